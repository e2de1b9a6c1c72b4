// exp(-x) in SIMD lanes (docs/noise.md, "exp in lanes"): WebAssembly has no exp, in lanes or not.
// The cell trials' acceptances (cell-lanes.ts) use the general one, the discrete Laplace's L
// (laplace-lanes.ts) the one for small x. Only the SIMD build calls these, but tests.
import { LANE_1023, LANE_LN2_HI, LANE_LN2_LO, LANE_ONE, LANE_TWO_52_BITS } from "./log-uniform";

// Lane constants, in linear memory (see log-uniform.ts): 700, 1/ln 2 = 1.4426950408889634,
// and the Taylor coefficients 1/j!, j = 2 to 9, each the double nearest to it (as Python's
// float(1/mpmath.factorial(j)) prints it).
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
