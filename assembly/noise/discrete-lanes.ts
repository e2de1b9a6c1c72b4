// The fast path of the exact discrete samplers two coordinates at a time, in SIMD lanes
// (docs/noise.md, "Two draws at a time"): the decisions the one-by-one draws of discrete.ts make,
// on the same bits, where they are sure; a lane that is not sure is left to those draws. Only the
// SIMD build calls these.
import { LANE_HALF, LANE_LN2_HI, LANE_LN2_LO, LANE_ONE, LANE_TWO_52_BITS, LANE_ZERO, minusLogUniformPair, wordsAsDoubles } from "./log-uniform";

/** 2^-30: far above every error bounded in docs/noise.md, "The fast path" and "Two draws at a time" (below 2^-35 in all cases). */
export const MARGIN: f64 = 9.313225746154785e-10;
export const LOW_63: u64 = 0x7FFFFFFFFFFFFFFF;

// Lane constants, in linear memory (see log-uniform.ts): 1027, 1023, 2047, MARGIN, 2^-52,
// the sign bit, the low 63 bits, NaN, 2^-50, 4.
const LANE_1027 = memory.data<u64>([1027, 1027], 16);
const LANE_1023 = memory.data<u64>([1023, 1023], 16);
const LANE_2047 = memory.data<u64>([2047, 2047], 16);
const LANE_MARGIN = memory.data<f64>([MARGIN, MARGIN], 16);
const LANE_TWO_M52 = memory.data<f64>([2.220446049250313e-16, 2.220446049250313e-16], 16);
const LANE_SIGN = memory.data<u64>([0x8000000000000000, 0x8000000000000000], 16);
const LANE_LOW_63 = memory.data<u64>([LOW_63, LOW_63], 16);
const LANE_NAN = memory.data<f64>([NaN, NaN], 16);
const LANE_TWO_M50 = memory.data<f64>([8.881784197001252e-16, 8.881784197001252e-16], 16);
const LANE_FOUR = memory.data<f64>([4.0, 4.0], 16);
// expMinusPair's: 700, 1/ln 2 = 1.4426950408889634, and the Taylor coefficients 1/j!, j = 2
// to 9, each the double nearest to it (as Python's float(1/mpmath.factorial(j)) prints it).
const LANE_700 = memory.data<f64>([700.0, 700.0], 16);
const LANE_LOG2E = memory.data<f64>([1.4426950408889634, 1.4426950408889634], 16);
const EXP_TAYLOR = memory.data<f64>([
  0.5, 0.5, // 1/2!
  0.16666666666666666, 0.16666666666666666, // 1/3!
  0.041666666666666664, 0.041666666666666664, // 1/4!
  0.008333333333333333, 0.008333333333333333, // 1/5!
  0.001388888888888889, 0.001388888888888889, // 1/6!
  0.0001984126984126984, 0.0001984126984126984, // 1/7!
  2.48015873015873e-05, 2.48015873015873e-05, // 1/8!
  2.7557319223985893e-06, 2.7557319223985893e-06, // 1/9!
], 16);

/**
 * The outputs of two coordinates (discrete.ts's gridValue and release): (roundHalfUp(query /
 * grid) + 0 with ADD, else 0) plus the noise where `noisy`, times the grid.
 */
// @ts-ignore: decorator
@inline export function releasedPair(query: v128, noise: v128, noisy: v128, add: bool, inverseGrid: v128, grid: v128): v128 {
  const zero = v128.load(LANE_ZERO);
  let start = zero;
  if (add) {
    const x = f64x2.mul(query, inverseGrid);
    const f = f64x2.floor(x);
    const up = f64x2.ge(f64x2.sub(x, f), v128.load(LANE_HALF));
    start = f64x2.add(v128.bitselect(f64x2.add(f, v128.load(LANE_ONE)), f, up), zero);
  }
  return f64x2.mul(v128.bitselect(f64x2.add(start, noise), start, noisy), grid);
}

/**
 * X = B H + L of a discrete Laplace trial of scale t > 0 (discrete.ts, `laplace`) in each lane,
 * from its word w and L's word lw, or NaN where the one-by-one draw would not end its first
 * trial here for sure: H not sure (inversion, with the width bound (t/B) 2^(1 - E) >= (t/B)/u
 * for f = u rounded, 2^E <= f; u = 0), or L not surely kept (V not surely below exp(-l/t),
 * rejected ones included: their redraw is the one-by-one draw's). With `needsBlock`, also where
 * B = 1 (t < 32), whose draw reads no L word. The sign and the redraw of (1, 0) are the caller's.
 */
// @ts-ignore: decorator
@inline export function laplaceMagnitudes(t: v128, w: v128, lw: v128, needsBlock: bool): v128 {
  const zero = v128.load(LANE_ZERO);
  const margin = v128.load(LANE_MARGIN);
  // setLaplace: b = max(0, exponent(t) - 4), B = 2^b and t/B, from the bits.
  const e = i64x2.sub(i64x2.shr_u(t, 52), v128.load(LANE_1027));
  const b = v128.andnot(e, i64x2.gt_s(zero, e));
  const block = i64x2.shl(i64x2.add(b, v128.load(LANE_1023)), 52);
  const inverseBlock = i64x2.shl(i64x2.sub(v128.load(LANE_1023), b), 52);
  const scaledT = f64x2.mul(t, inverseBlock);
  // H, as inversion.
  const u = v128.and(w, v128.load(LANE_LOW_63));
  const f = wordsAsDoubles(u);
  const y = f64x2.mul(scaledT, minusLogUniformPair(f));
  const width = f64x2.mul(scaledT, i64x2.shl(i64x2.sub(v128.load(LANE_2047), i64x2.shr_u(f, 52)), 52));
  const h = f64x2.floor(f64x2.pmax(zero, f64x2.sub(f64x2.sub(y, width), margin)));
  const hSure = v128.andnot(f64x2.eq(f64x2.floor(f64x2.add(y, margin)), h), i64x2.eq(u, zero));
  // L: the top 52 bits of its word, in units of 2^-b, are l (the integer part) and V's top 52 - b >= 16 bits.
  const magic = v128.load(LANE_TWO_52_BITS);
  const scaled = f64x2.mul(f64x2.mul(f64x2.sub(v128.or(i64x2.shr_u(lw, 12), magic), magic), v128.load(LANE_TWO_M52)), block);
  const l = f64x2.floor(scaled); // 0 when B = 1
  // V in [v, v + 2^(b-52)) is below exp(-l/t) for sure if v + 2^(b-52) <= exp(-l/t) - MARGIN,
  // which bounds the errors of l/t (2^-57 at most, as l/t < 1/16) and of expMinusSmallPair.
  const v = f64x2.sub(scaled, l);
  const keptSure = f64x2.le(
    f64x2.add(v, f64x2.mul(block, v128.load(LANE_TWO_M52))),
    f64x2.sub(expMinusSmallPair(f64x2.div(l, t)), margin),
  );
  const unblocked = i64x2.eq(b, zero);
  const kept = needsBlock ? v128.andnot(keptSure, unblocked) : v128.or(keptSure, unblocked);
  return v128.bitselect(f64x2.add(f64x2.mul(h, block), l), v128.load(LANE_NAN), v128.and(hSure, kept));
}

/** The lane pair 1/j! of EXP_TAYLOR, 2 <= j <= 9. */
// @ts-ignore: decorator
@inline function taylor(j: i32): v128 {
  return v128.load(EXP_TAYLOR + (<usize>(j - 2) << 4));
}

/**
 * exp(-x) in each lane, x >= 0, within 2^-35 relative for x <= 700 (docs/noise.md, "exp in
 * lanes"), far inside MARGIN; x above 700 counts as 700, and NaN stays NaN. exp(-x) = 2^-k exp(r)
 * for k = nearest(x / ln 2) and r = k ln 2 - x in [-ln2/2, ln2/2] (Cody & Waite 1980: with
 * log-uniform.ts's split of ln 2, k ln2_hi is exact); exp(r) by its Taylor polynomial of degree 9
 * in Estrin's scheme (short dependency chains: the lanes' latency, not their operation count,
 * bounds the trial rate); 2^-k from k's bits (a normal double: k <= 1010).
 */
// @ts-ignore: decorator
@inline export function expMinusPair(x: v128): v128 {
  const clamped = f64x2.pmin(x, v128.load(LANE_700)); // 700 < x ? 700 : x, so NaN stays NaN
  const k = f64x2.nearest(f64x2.mul(clamped, v128.load(LANE_LOG2E)));
  const r = f64x2.add(f64x2.sub(f64x2.mul(k, v128.load(LANE_LN2_HI)), clamped), f64x2.mul(k, v128.load(LANE_LN2_LO)));
  const r2 = f64x2.mul(r, r);
  const r4 = f64x2.mul(r2, r2);
  const low = f64x2.add(f64x2.add(v128.load(LANE_ONE), r), f64x2.mul(r2, f64x2.add(taylor(2), f64x2.mul(taylor(3), r))));
  const middle = f64x2.add(f64x2.add(taylor(4), f64x2.mul(taylor(5), r)), f64x2.mul(r2, f64x2.add(taylor(6), f64x2.mul(taylor(7), r))));
  const high = f64x2.add(taylor(8), f64x2.mul(taylor(9), r));
  const p = f64x2.add(low, f64x2.mul(r4, f64x2.add(middle, f64x2.mul(r4, high))));
  const magic = v128.load(LANE_TWO_52_BITS);
  const kBits = i64x2.sub(f64x2.add(k, magic), magic); // k as an integer: 2^52 + k is exact
  return f64x2.mul(p, i64x2.shl(i64x2.sub(v128.load(LANE_1023), kBits), 52));
}

/**
 * exp(-x) in each lane for 0 <= x <= 1/16 (L's acceptance, x = l/t), within 2^-40 relative: the
 * alternating Taylor series to degree 6, whose error is below the next term, x^7/7! <= 2^-40.2
 * exp(-1/16), in Estrin's scheme as expMinusPair.
 */
// @ts-ignore: decorator
@inline export function expMinusSmallPair(x: v128): v128 {
  const x2 = f64x2.mul(x, x);
  const low = f64x2.add(f64x2.sub(v128.load(LANE_ONE), x), f64x2.mul(x2, f64x2.sub(taylor(2), f64x2.mul(taylor(3), x))));
  const high = f64x2.add(f64x2.sub(taylor(4), f64x2.mul(taylor(5), x)), f64x2.mul(x2, taylor(6)));
  return f64x2.add(low, f64x2.mul(f64x2.mul(x2, x2), high));
}

/** expMinusPair (or with `small`, expMinusSmallPair) for tests, in its second lane (Math.exp(-x) in the scalar build). */
export function expMinusPairOf(x: f64, small: bool): f64 {
  if (!ASC_FEATURE_SIMD) return Math.exp(-x);
  const xs = f64x2.replace_lane(f64x2.splat(0.0), 1, x);
  return f64x2.extract_lane(small ? expMinusSmallPair(xs) : expMinusPair(xs), 1);
}

/** The noise of magnitude x and the sign of word w in each lane, NaN where (1, 0) is drawn (a redraw) or x is NaN. */
// @ts-ignore: decorator
@inline export function signed(x: v128, w: v128): v128 {
  const redrawn = v128.and(i64x2.gt_s(v128.load(LANE_ZERO), w), f64x2.eq(x, v128.load(LANE_ZERO)));
  return v128.bitselect(v128.load(LANE_NAN), v128.or(x, v128.and(w, v128.load(LANE_SIGN))), redrawn);
}

/**
 * The discrete Gaussian's acceptance of proposals y (discrete.ts, `gaussian`) by the uniforms V of
 * words aw, for variance parameters s with shift = s/T: a mask of the lanes accepted for sure,
 * and in REJECTED_LANES that of those rejected for sure. V's top 52 bits decide against
 * exp(-gamma) (expMinusPair), widened by gamma's error and MARGIN, as in belowExp: one test for
 * every gamma, so that how a trial is decided does not depend on the proposal.
 */
// @ts-ignore: decorator
@inline export function acceptedLanes(y: v128, aw: v128, s: v128, shift: v128): v128 {
  const twoM50 = v128.load(LANE_TWO_M50);
  const halfInverse = f64x2.div(v128.load(LANE_HALF), s);
  const d = f64x2.sub(f64x2.abs(y), shift);
  const absD = f64x2.abs(d);
  const dError = f64x2.mul(f64x2.add(shift, absD), twoM50);
  const gamma = f64x2.mul(f64x2.mul(d, d), halfInverse);
  const error = f64x2.mul(
    v128.load(LANE_FOUR),
    f64x2.add(f64x2.mul(f64x2.add(f64x2.mul(absD, dError), f64x2.mul(dError, dError)), halfInverse), f64x2.mul(gamma, twoM50)),
  );
  const slack = f64x2.add(error, v128.load(LANE_MARGIN));
  const magic = v128.load(LANE_TWO_52_BITS);
  const top = f64x2.mul(f64x2.sub(v128.or(i64x2.shr_u(aw, 12), magic), magic), v128.load(LANE_TWO_M52)); // V in [top, top + 2^-52)
  const threshold = expMinusPair(gamma);
  v128.store(REJECTED_LANES, f64x2.ge(top, f64x2.add(threshold, slack)));
  return f64x2.le(f64x2.add(top, v128.load(LANE_TWO_M52)), f64x2.sub(threshold, slack));
}

/** The lanes acceptedLanes found rejected for sure (a mask; memory, as the scalar build cannot hold a v128 global). */
export const REJECTED_LANES: usize = memory.data(16, 16);
