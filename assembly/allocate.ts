// Per-coordinate noise scales over a chunk of a sensitivity profile (MATH.md sections 4 and 5).
// Every allocation has the shape scale_i = c * lambda_i^alpha * w_i^-gamma; the facade derives c
// from sums over the whole profile, which these kernels compute chunk by chunk.
import { PROFILE, RESULTS, WEIGHTS } from "./memory";

/**
 * x^e, with the exponents of error powers 1 and 2 (and of their weights) taken without pow,
 * which costs about 14 ns. The branches are on a loop constant, so they predict perfectly.
 */
// @ts-ignore: decorator
@inline function power(x: f64, e: f64): f64 {
  if (e == 1.0) return x;
  if (e == 0.0) return 1.0;
  if (e == 2.0) return x * x;
  if (e == 0.5) return Math.sqrt(x);
  if (e == -0.5) return 1.0 / Math.sqrt(x);
  if (e == -1.0) return 1.0 / x;
  if (e == -0.25) return 1.0 / Math.sqrt(Math.sqrt(x));
  if (e == 1.0 / 3.0) return Math.cbrt(x);
  if (e == -1.0 / 3.0) return 1.0 / Math.cbrt(x);
  if (e == 2.0 / 3.0) {
    const c = Math.cbrt(x);
    return c * c;
  }
  if (e == -2.0 / 3.0) {
    const c = Math.cbrt(x);
    return 1.0 / (c * c);
  }
  if (e == 4.0 / 3.0) return x * Math.cbrt(x);
  return Math.pow(x, e);
}

/** Writes sum(lambda) and sum(lambda^2) over the chunk to RESULTS[0..1]. */
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
  if (weighted) {
    for (let p = PROFILE, q = WEIGHTS; p < end; p += 8, q += 8) {
      const x = load<f64>(p);
      const w = load<f64>(q);
      s1 += power(x, a1) * power(w, b1);
      s2 += power(x, a2) * power(w, b2);
      s3 += power(x, a3) * power(w, b3);
    }
  } else {
    for (let p = PROFILE; p < end; p += 8) {
      const x = load<f64>(p);
      s1 += power(x, a1);
      s2 += power(x, a2);
      s3 += power(x, a3);
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
  if (weighted) {
    for (let q = WEIGHTS; p < end; p += 8, q += 8) {
      store<f64>(p, c * power(load<f64>(p), alpha) * power(load<f64>(q), -gamma));
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
  if (alpha == 1.0 / 3.0) {
    for (; p < end; p += 8) store<f64>(p, c * Math.cbrt(load<f64>(p)));
    return;
  }
  for (; p < end; p += 8) store<f64>(p, c * power(load<f64>(p), alpha));
}
