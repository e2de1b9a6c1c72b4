// The discrete Laplace sampler's fast path two coordinates at a time, in SIMD lanes
// (docs/noise.md, "Two Laplace draws at a time"): the decisions the one-by-one draws of
// discrete.ts make, on the same bits, where they are sure; a lane that is not sure is left to
// those draws. Only the SIMD build calls these.
import { expMinusSmallPair } from "./exp-lanes";
import { exactDoubles, LANE_1023, LANE_HALF, LANE_ONE, LANE_SIGN, LANE_ZERO, minusLogUniformPair, wordsAsDoubles } from "./log-uniform";

/** 2^-30: far above every error bounded in docs/noise.md, "The fast path" and "Two Laplace draws at a time" (below 2^-35 in all cases). */
export const MARGIN: f64 = 9.313225746154785e-10;
export const LOW_63: u64 = 0x7FFFFFFFFFFFFFFF;

// Lane constants, in linear memory (see log-uniform.ts): 1027, 2047, MARGIN, 2^-52, the low 63
// bits, NaN.
const LANE_1027 = memory.data<u64>([1027, 1027], 16);
const LANE_2047 = memory.data<u64>([2047, 2047], 16);
const LANE_MARGIN = memory.data<f64>([MARGIN, MARGIN], 16);
const LANE_TWO_M52 = memory.data<f64>([2.220446049250313e-16, 2.220446049250313e-16], 16);
const LANE_LOW_63 = memory.data<u64>([LOW_63, LOW_63], 16);
const LANE_NAN = memory.data<f64>([NaN, NaN], 16);
/**
 * The outputs of two coordinates (discrete.ts's gridValue and release): (roundHalfUp(query /
 * grid) + 0 with ADD, else 0) plus the noise where `noisy`, times the grid.
 */
// @ts-ignore: decorator
@inline export function releasedPair(query: v128, noise: v128, noisy: v128, add: bool, inverseGrid: v128, grid: v128): v128 {
  const zero = v128.load(LANE_ZERO);
  const start = add ? f64x2.add(roundHalfUpPair(f64x2.mul(query, inverseGrid)), zero) : zero;
  return f64x2.mul(v128.bitselect(f64x2.add(start, noise), start, noisy), grid);
}

/** discrete.ts's roundHalfUp in each lane: floor(x), plus 1 where x - floor(x) >= 1/2 (exact). */
// @ts-ignore: decorator
@inline export function roundHalfUpPair(x: v128): v128 {
  const f = f64x2.floor(x);
  return v128.bitselect(f64x2.add(f, v128.load(LANE_ONE)), f, f64x2.ge(f64x2.sub(x, f), v128.load(LANE_HALF)));
}

/**
 * X = B H + L of a discrete Laplace trial of scale t > 0 (discrete.ts, `laplace`) in each lane,
 * from its word w and L's word lw, or NaN where the one-by-one draw would not end its first
 * trial here for sure: H not sure (inversion, with the width bound (t/B) 2^(1 - E) >= (t/B)/u
 * for f = u rounded, 2^E <= f; u = 0), or L not surely kept (V not surely below exp(-l/t),
 * rejected ones included: their redraw is the one-by-one draw's). The sign and the redraw of
 * (1, 0) are the caller's.
 */
// @ts-ignore: decorator
@inline export function laplaceMagnitudes(t: v128, w: v128, lw: v128): v128 {
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
  const scaled = f64x2.mul(f64x2.mul(exactDoubles(i64x2.shr_u(lw, 12)), v128.load(LANE_TWO_M52)), block);
  const l = f64x2.floor(scaled); // 0 when B = 1
  // V in [v, v + 2^(b-52)) is below exp(-l/t) for sure if v + 2^(b-52) <= exp(-l/t) - MARGIN,
  // which bounds the errors of l/t (2^-57 at most, as l/t < 1/16) and of expMinusSmallPair.
  const v = f64x2.sub(scaled, l);
  const keptSure = f64x2.le(
    f64x2.add(v, f64x2.mul(block, v128.load(LANE_TWO_M52))),
    f64x2.sub(expMinusSmallPair(f64x2.div(l, t)), margin),
  );
  const kept = v128.or(keptSure, i64x2.eq(b, zero)); // B = 1: no L
  return v128.bitselect(f64x2.add(f64x2.mul(h, block), l), v128.load(LANE_NAN), v128.and(hSure, kept));
}

/** The noise of magnitude x and the sign of word w in each lane, NaN where (1, 0) is drawn (a redraw) or x is NaN. */
// @ts-ignore: decorator
@inline export function signed(x: v128, w: v128): v128 {
  const redrawn = v128.and(i64x2.gt_s(v128.load(LANE_ZERO), w), f64x2.eq(x, v128.load(LANE_ZERO)));
  return v128.bitselect(v128.load(LANE_NAN), v128.or(x, v128.and(w, v128.load(LANE_SIGN))), redrawn);
}
