// The acceptances of cell trials two coordinates at a time (docs/noise.md, "Cells"): the
// caller (discrete.ts) picks each lane's cell as cells.ts does, and the exponentials and the
// comparisons of the two are computed together, in SIMD lanes. A lane is decided only where it is
// sure; the caller draws the others one by one, from the same word. Only the SIMD build calls
// these.
import { RELATIVE_MARGIN } from "./cells";

// Lane constants, in linear memory: V8 rebuilds a v128 constant at every use in a loop (three
// instructions), where a load from memory is one. 1, 2^52 (OR-ed with an integer below 2^52, its
// bits make the double 2^52 plus that integer), 1023, 1 -+ RELATIVE_MARGIN, 700, fdlibm's split of ln 2
// (ln2_hi = 6.93147180369123816490e-01, with 21 trailing zero bits, and ln2_lo =
// 1.90821492927058770002e-10, as log-uniform.ts), 1/ln 2 = 1.4426950408889634 and the Taylor
// coefficients 1/j!, j = 2 to 9, each the double nearest to it (as Python's
// float(1/mpmath.factorial(j)) prints it).
const LANE_ONE = memory.data<f64>([1.0, 1.0], 16);
const LANE_TWO_52_BITS = memory.data<u64>([0x4330000000000000, 0x4330000000000000], 16);
const LANE_LN2_HI = memory.data<u64>([0x3FE62E42FEE00000, 0x3FE62E42FEE00000], 16);
const LANE_LN2_LO = memory.data<u64>([0x3DEA39EF35793C76, 0x3DEA39EF35793C76], 16);
const LANE_1023 = memory.data<u64>([1023, 1023], 16);
const LANE_UNDER = memory.data<f64>([1.0 - RELATIVE_MARGIN, 1.0 - RELATIVE_MARGIN], 16);
const LANE_OVER = memory.data<f64>([1.0 + RELATIVE_MARGIN, 1.0 + RELATIVE_MARGIN], 16);
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

/** The lane pair 1/j! of EXP_TAYLOR, 2 <= j <= 9. */
// @ts-ignore: decorator
@inline function taylor(j: i32): v128 {
  return v128.load(EXP_TAYLOR + (<usize>(j - 2) << 4));
}

/**
 * exp(-x) in each lane, x >= 0, within 2^-35 relative for x <= 700 (docs/noise.md, "exp in
 * lanes"); x above 700 counts as 700, and NaN stays NaN. exp(-x) = 2^-k exp(r) for k =
 * nearest(x / ln 2) and r = k ln 2 - x in [-ln2/2, ln2/2] (Cody & Waite 1980: with
 * log-uniform.ts's split of ln 2, k ln2_hi is exact); exp(r) by its Taylor polynomial of degree 9
 * in Estrin's scheme (short dependency chains); 2^-k from k's bits (a normal double: k <= 1010).
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

/** expMinusPair for tests, in its second lane (Math.exp(-x) in the scalar build). */
export function expMinusPairOf(x: f64): f64 {
  if (!ASC_FEATURE_SIMD) return Math.exp(-x);
  return f64x2.extract_lane(expMinusPair(f64x2.replace_lane(f64x2.splat(0.0), 1, x)), 1);
}

/**
 * The acceptances of two cell trials (cells.ts): V in [low, high) against a = exp(-x) factor, in
 * each lane. Returns a bitmask: bit l when lane l is accepted for sure, bit 2 + l when it is
 * rejected for sure (V beyond RELATIVE_MARGIN of the computed a, as cells.ts decides one by one).
 */
// @ts-ignore: decorator
@inline export function decidedPair(x: v128, factor: v128, low: v128, high: v128): i32 {
  const a = f64x2.mul(expMinusPair(x), factor);
  const accepted = f64x2.le(high, f64x2.mul(a, v128.load(LANE_UNDER)));
  const rejected = f64x2.ge(low, f64x2.mul(a, v128.load(LANE_OVER)));
  return i64x2.bitmask(accepted) | (i64x2.bitmask(rejected) << 2);
}
