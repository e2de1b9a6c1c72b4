// The fast path of the exact discrete samplers two coordinates at a time, in SIMD lanes
// (docs/noise.md, "Two draws at a time"): the decisions the one-by-one draws of discrete.ts make,
// on the same bits, where they are sure; a lane that is not sure is left to those draws. Only the
// SIMD build calls these.
import { LANE_HALF, LANE_ONE, LANE_TWO_52_BITS, LANE_ZERO, minusLogUniformPair, wordsAsDoubles } from "./log-uniform";

/** 2^-30: far above every rounding error bounded in docs/noise.md, "The fast path" (below 2^-38 in all cases). */
export const MARGIN: f64 = 9.313225746154785e-10;
export const LOW_63: u64 = 0x7FFFFFFFFFFFFFFF;

// Lane constants, in linear memory (see log-uniform.ts): 1027, 1023, 2047, MARGIN, 2^-52,
// 15/16, the sign bit, the low 63 bits, NaN, 1/6, 1/24, 2^-50, 4, 1/16, 1/64.
const LANE_1027 = memory.data<u64>([1027, 1027], 16);
const LANE_1023 = memory.data<u64>([1023, 1023], 16);
const LANE_2047 = memory.data<u64>([2047, 2047], 16);
const LANE_MARGIN = memory.data<f64>([MARGIN, MARGIN], 16);
const LANE_TWO_M52 = memory.data<f64>([2.220446049250313e-16, 2.220446049250313e-16], 16);
const LANE_FIFTEEN_SIXTEENTHS = memory.data<f64>([0.9375, 0.9375], 16);
const LANE_SIGN = memory.data<u64>([0x8000000000000000, 0x8000000000000000], 16);
const LANE_LOW_63 = memory.data<u64>([LOW_63, LOW_63], 16);
const LANE_NAN = memory.data<f64>([NaN, NaN], 16);
const LANE_SIXTH = memory.data<f64>([0.16666666666666666, 0.16666666666666666], 16);
const LANE_TWENTY_FOURTH = memory.data<f64>([0.041666666666666664, 0.041666666666666664], 16);
const LANE_TWO_M50 = memory.data<f64>([8.881784197001252e-16, 8.881784197001252e-16], 16);
const LANE_FOUR = memory.data<f64>([4.0, 4.0], 16);
const LANE_SIXTEENTH = memory.data<f64>([0.0625, 0.0625], 16);
const LANE_SIXTY_FOURTH = memory.data<f64>([0.015625, 0.015625], 16);

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
 * for f = u rounded, 2^E <= f; u = 0), or L not surely kept (no exp: V below 15/16 or below
 * 1 - l/(16 B)). With `needsBlock`, also where
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
  // V in [v, v + 2^(b-52)) is below exp(-l/t) for sure if v < 15/16 (keepRemainder's test), or if
  // v + 2^(b-52) <= 1 - l/(16 B) - MARGIN, as 1 - l/(16 B) <= 1 - l/t < exp(-l/t) (t >= 16 B).
  const v = f64x2.sub(scaled, l);
  const bound = f64x2.sub(f64x2.sub(v128.load(LANE_ONE), f64x2.mul(f64x2.mul(l, inverseBlock), v128.load(LANE_SIXTEENTH))), v128.load(LANE_MARGIN));
  const keptSure = v128.or(
    f64x2.lt(v, v128.load(LANE_FIFTEEN_SIXTEENTHS)),
    f64x2.le(f64x2.add(v, f64x2.mul(block, v128.load(LANE_TWO_M52))), bound),
  );
  const unblocked = i64x2.eq(b, zero);
  const kept = needsBlock ? v128.andnot(keptSure, unblocked) : v128.or(keptSure, unblocked);
  return v128.bitselect(f64x2.add(f64x2.mul(h, block), l), v128.load(LANE_NAN), v128.and(hSure, kept));
}

/** The noise of magnitude x and the sign of word w in each lane, NaN where (1, 0) is drawn (a redraw) or x is NaN. */
// @ts-ignore: decorator
@inline export function signed(x: v128, w: v128): v128 {
  const redrawn = v128.and(i64x2.gt_s(v128.load(LANE_ZERO), w), f64x2.eq(x, v128.load(LANE_ZERO)));
  return v128.bitselect(v128.load(LANE_NAN), v128.or(x, v128.and(w, v128.load(LANE_SIGN))), redrawn);
}

/**
 * The discrete Gaussian's acceptance of proposals y (discrete.ts, `acceptGaussian`) by the
 * uniforms V of words aw, for variance parameters s with shift = s/T: a mask of the lanes
 * accepted for sure, and in REJECTED_LANES that of those rejected for sure. V's top 52 bits
 * decide: for gamma <= 1, exp(-gamma) lies between 1 - gamma + gamma^2/2 - gamma^3/6 and that
 * plus gamma^4/24 (alternating series, decreasing terms); for gamma > 1, between largeLower
 * and 1 / largeSeries. The brackets are widened by gamma's error and MARGIN, as in belowExpSmall.
 */
// @ts-ignore: decorator
@inline export function acceptedLanes(y: v128, aw: v128, s: v128, shift: v128): v128 {
  const one = v128.load(LANE_ONE);
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
  const g2 = f64x2.mul(gamma, gamma);
  const g3 = f64x2.mul(g2, gamma);
  const lower = f64x2.sub(f64x2.add(f64x2.sub(one, gamma), f64x2.mul(v128.load(LANE_HALF), g2)), f64x2.mul(v128.load(LANE_SIXTH), g3));
  const upper = f64x2.add(lower, f64x2.mul(v128.load(LANE_TWENTY_FOURTH), f64x2.mul(g2, g2)));
  const small = f64x2.le(gamma, one);
  const below = v128.bitselect(lower, largeLower(gamma, error, one), small);
  const accepted = f64x2.le(f64x2.add(top, v128.load(LANE_TWO_M52)), f64x2.sub(below, slack));
  const rejectedSmall = v128.and(small, f64x2.ge(top, f64x2.add(upper, slack)));
  const rejectedLarge = v128.andnot(f64x2.ge(f64x2.mul(f64x2.sub(top, v128.load(LANE_MARGIN)), largeSeries(gamma, error, one)), one), small);
  v128.store(REJECTED_LANES, v128.or(rejectedSmall, rejectedLarge));
  return accepted;
}

/** The lanes acceptedLanes found rejected for sure (a mask; memory, as the scalar build cannot hold a v128 global). */
export const REJECTED_LANES: usize = memory.data(16, 16);

/**
 * (1 - g/64)^64 <= exp(-g) <= exp(-gamma) for g = gamma + error <= 64 (as 1 - x <= exp(-x)), 0
 * beyond: for gamma > 1, V below it is accepted for sure. Without it every draw accepted with
 * gamma > 1, that is with noise beyond about 2.4 sqrt(s), would be finished one by one, and so
 * take longer than a small one (bench/RESULTS.md, "Timing"). Six squarings round by at most
 * 2^-47 relative, far inside MARGIN.
 */
// @ts-ignore: decorator
@inline function largeLower(gamma: v128, error: v128, one: v128): v128 {
  let x = f64x2.pmax(v128.load(LANE_ZERO), f64x2.sub(one, f64x2.mul(f64x2.add(gamma, error), v128.load(LANE_SIXTY_FOURTH))));
  for (let k = 0; k < 6; k++) x = f64x2.mul(x, x);
  return x;
}

/**
 * 1 + g + g^2/2 + g^3/6 <= exp(g) <= exp(gamma) for g = max(0, gamma - error): V >= exp(-gamma)
 * for sure when (top - MARGIN) times it is at least 1 (its rounding, relative 2^-50 at most, is
 * far inside MARGIN).
 */
// @ts-ignore: decorator
@inline function largeSeries(gamma: v128, error: v128, one: v128): v128 {
  const g = f64x2.pmax(v128.load(LANE_ZERO), f64x2.sub(gamma, error));
  return f64x2.add(one, f64x2.mul(g, f64x2.add(one, f64x2.mul(g, f64x2.add(v128.load(LANE_HALF), f64x2.mul(g, v128.load(LANE_SIXTH)))))));
}
