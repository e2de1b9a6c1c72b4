// The acceptances of cell trials two coordinates at a time (docs/noise.md, "Cells"): the
// caller (discrete.ts) picks each lane's cell as cells.ts does, and the exponentials and the
// comparisons of the two are computed together, in SIMD lanes. A lane is decided only where it is
// sure; the caller draws the others one by one, from the same word. Only the SIMD build calls
// these.
import { RELATIVE_MARGIN } from "./cells";
import { expMinusPair } from "./exp-lanes";

// Lane constants, in linear memory (see log-uniform.ts): 1 -+ RELATIVE_MARGIN, exact doubles.
const LANE_UNDER = memory.data<f64>([1.0 - RELATIVE_MARGIN, 1.0 - RELATIVE_MARGIN], 16);
const LANE_OVER = memory.data<f64>([1.0 + RELATIVE_MARGIN, 1.0 + RELATIVE_MARGIN], 16);

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
