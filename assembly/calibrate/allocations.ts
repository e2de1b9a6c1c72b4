// Per-coordinate noise scales over a chunk of a sensitivity profile (docs/calibration.md, "Allocations").
// Every allocation has the shape scale_i = c * lambda_i^alpha * w_i^-gamma; the facade derives c
// from sums over the whole profile, which these kernels compute chunk by chunk.
import { PROFILE, RESULTS, WEIGHTS } from "../memory";

// Exponents of error powers 1 and 2 (and of their weights) are taken without pow, which costs
// about 14 ns. Each kernel picks the kind once per call, then switches per element (a jump table:
// an if-chain would be flattened into selects that compute every arm).
const ONE = 0, ZERO = 1, TWO = 2, HALF = 3, MINUS_HALF = 4, MINUS_ONE = 5, MINUS_QUARTER = 6;
const THIRD = 7, MINUS_THIRD = 8, TWO_THIRDS = 9, MINUS_TWO_THIRDS = 10, FOUR_THIRDS = 11, GENERAL = 12;

function powerKind(e: f64): i32 {
  if (e == 1.0) return ONE;
  if (e == 0.0) return ZERO;
  if (e == 2.0) return TWO;
  if (e == 0.5) return HALF;
  if (e == -0.5) return MINUS_HALF;
  if (e == -1.0) return MINUS_ONE;
  if (e == -0.25) return MINUS_QUARTER;
  if (e == 1.0 / 3.0) return THIRD;
  if (e == -1.0 / 3.0) return MINUS_THIRD;
  if (e == 2.0 / 3.0) return TWO_THIRDS;
  if (e == -2.0 / 3.0) return MINUS_TWO_THIRDS;
  if (e == 4.0 / 3.0) return FOUR_THIRDS;
  return GENERAL;
}

/** x^e, where kind = powerKind(e). */
// @ts-ignore: decorator
@inline function power(x: f64, e: f64, kind: i32): f64 {
  switch (kind) {
    case ONE: return x;
    case ZERO: return 1.0;
    case TWO: return x * x;
    case HALF: return Math.sqrt(x);
    case MINUS_HALF: return 1.0 / Math.sqrt(x);
    case MINUS_ONE: return 1.0 / x;
    case MINUS_QUARTER: return 1.0 / Math.sqrt(Math.sqrt(x));
    case THIRD: return Math.cbrt(x);
    case MINUS_THIRD: return 1.0 / Math.cbrt(x);
    case TWO_THIRDS: {
      const c = Math.cbrt(x);
      return c * c;
    }
    case MINUS_TWO_THIRDS: {
      const c = Math.cbrt(x);
      return 1.0 / (c * c);
    }
    case FOUR_THIRDS: return x * Math.cbrt(x);
    default: return Math.pow(x, e);
  }
}

/**
 * Writes sum(lambda) and sum(lambda^2) over the chunk to RESULTS[0..1]. Both builds add in the
 * same order (two interleaved partial sums, the SIMD build's lanes), so they agree bit for bit.
 */
export function profileMoments(n: i32): void {
  let p = PROFILE;
  const end = PROFILE + (<usize>n << 3);
  let s1: f64 = 0.0;
  let s2: f64 = 0.0;
  if (ASC_FEATURE_SIMD) {
    let v1 = f64x2.splat(0.0);
    let v2 = f64x2.splat(0.0);
    for (; p + 16 <= end; p += 16) {
      const x = v128.load(p);
      v1 = f64x2.add(v1, x);
      v2 = f64x2.add(v2, f64x2.mul(x, x));
    }
    s1 = f64x2.extract_lane(v1, 0) + f64x2.extract_lane(v1, 1);
    s2 = f64x2.extract_lane(v2, 0) + f64x2.extract_lane(v2, 1);
  } else {
    let a1: f64 = 0.0, b1: f64 = 0.0, a2: f64 = 0.0, b2: f64 = 0.0;
    for (; p + 16 <= end; p += 16) {
      const x = load<f64>(p);
      const y = load<f64>(p, 8);
      a1 += x;
      b1 += y;
      a2 += x * x;
      b2 += y * y;
    }
    s1 = a1 + b1;
    s2 = a2 + b2;
  }
  for (; p < end; p += 8) {
    const x = load<f64>(p);
    s1 += x;
    s2 += x * x;
  }
  store<f64>(RESULTS, s1);
  store<f64>(RESULTS, s2, 8);
}

/**
 * Writes sum(lambda^a_k w^b_k), k = 1..3, over the chunk to RESULTS[0..2]; without weights
 * (weighted = false) w is taken as 1. The exponents of lambda are > 0 or 0.
 */
export function powerSums(n: i32, weighted: bool, a1: f64, b1: f64, a2: f64, b2: f64, a3: f64, b3: f64): void {
  let s1: f64 = 0.0;
  let s2: f64 = 0.0;
  let s3: f64 = 0.0;
  const end = PROFILE + (<usize>n << 3);
  const ka1 = powerKind(a1), ka2 = powerKind(a2), ka3 = powerKind(a3);
  if (weighted) {
    const kb1 = powerKind(b1), kb2 = powerKind(b2), kb3 = powerKind(b3);
    for (let p = PROFILE, q = WEIGHTS; p < end; p += 8, q += 8) {
      const x = load<f64>(p);
      const w = load<f64>(q);
      s1 += power(x, a1, ka1) * power(w, b1, kb1);
      s2 += power(x, a2, ka2) * power(w, b2, kb2);
      s3 += power(x, a3, ka3) * power(w, b3, kb3);
    }
  } else {
    for (let p = PROFILE; p < end; p += 8) {
      const x = load<f64>(p);
      s1 += power(x, a1, ka1);
      s2 += power(x, a2, ka2);
      s3 += power(x, a3, ka3);
    }
  }
  store<f64>(RESULTS, s1);
  store<f64>(RESULTS, s2, 8);
  store<f64>(RESULTS, s3, 16);
}

/** Overwrites the chunk's profile with scales c * lambda^alpha * w^-gamma (w = 1 if unweighted). */
export function fillScales(n: i32, weighted: bool, alpha: f64, gamma: f64, c: f64): void {
  const end = PROFILE + (<usize>n << 3);
  let p = PROFILE;
  const kAlpha = powerKind(alpha);
  if (weighted) {
    const kGamma = powerKind(-gamma);
    for (let q = WEIGHTS; p < end; p += 8, q += 8) {
      store<f64>(p, c * power(load<f64>(p), alpha, kAlpha) * power(load<f64>(q), -gamma, kGamma));
    }
    return;
  }
  if (ASC_FEATURE_SIMD && (alpha == 0.5 || alpha == 1.0)) {
    const vc = f64x2.splat(c);
    if (alpha == 0.5) {
      for (; p + 16 <= end; p += 16) v128.store(p, f64x2.mul(vc, f64x2.sqrt(v128.load(p))));
    } else {
      for (; p + 16 <= end; p += 16) v128.store(p, f64x2.mul(vc, v128.load(p)));
    }
  }
  for (; p < end; p += 8) store<f64>(p, c * power(load<f64>(p), alpha, kAlpha));
}
