// Cell trials two coordinates at a time (docs/noise.md, "Cells"): each lane's cell, offset and V
// (as cells.ts picks them one by one, from the same bits), then the exponentials and the
// comparisons of the two, computed together in SIMD lanes. Every quantity is the one-by-one
// code's, to the bit: the integers are built in doubles only where they are exact (below 2^53,
// scaled by powers of two). A lane is decided only where it is sure; the caller draws the others
// one by one, from the same word. Only the SIMD build calls these.
import { factorsOf, RELATIVE_MARGIN, splitsOf } from "./cells";
import { expMinusPair } from "./exp-lanes";
import { exactDoubles, LANE_1023, LANE_SIGN } from "./log-uniform";

// Lane constants, in linear memory (see log-uniform.ts): 1 -+ RELATIVE_MARGIN (exact doubles);
// the biased exponents 1029 (s = 2^6) and 979 (2^-44); the largest width, 40; masks of the word's
// fields: 7 bits (the column; 127 is also TAIL), 12 bits (u), 44 bits (the offset and V); 8 bits
// (an alias); 3 bits of a mantissa.
const LANE_UNDER = memory.data<f64>([1.0 - RELATIVE_MARGIN, 1.0 - RELATIVE_MARGIN], 16);
const LANE_OVER = memory.data<f64>([1.0 + RELATIVE_MARGIN, 1.0 + RELATIVE_MARGIN], 16);
const LANE_1029 = memory.data<u64>([1029, 1029], 16);
const LANE_979 = memory.data<u64>([979, 979], 16);
const LANE_40 = memory.data<u64>([40, 40], 16);
const LANE_127 = memory.data<u64>([127, 127], 16);
const LANE_4095 = memory.data<u64>([0xFFF, 0xFFF], 16);
const LANE_255 = memory.data<u64>([0xFF, 0xFF], 16);
const LANE_7 = memory.data<u64>([7, 7], 16);
const LANE_LOW_44 = memory.data<u64>([0xFFFFFFFFFFF, 0xFFFFFFFFFFF], 16);

/** Two doubles in lanes. */
// @ts-ignore: decorator
@inline export function lanes(a: f64, b: f64): v128 {
  return f64x2.replace_lane(f64x2.splat(a), 1, b);
}

/** 2^(k - 1023) in each lane, for a biased exponent k in [1, 2046]. */
// @ts-ignore: decorator
@inline function powerOfTwo(k: v128): v128 {
  return i64x2.shl(k, 52);
}

/** e - 6 for s > 0 in [2^e, 2^(e + 1)), from its biased exponent, in each lane. */
// @ts-ignore: decorator
@inline function above64(s: v128): v128 {
  return i64x2.sub(i64x2.shr_u(s, 52), v128.load(LANE_1029));
}

/**
 * All ones in a lane whose variance parameter s is in the cells' range (cells.ts widthBits: s > 0
 * with w = floor((e - 6) / 2) in [0, 40]); else 0.
 */
// @ts-ignore: decorator
@inline export function inCells(s: v128): v128 {
  return v128.andnot(f64x2.gt(s, i64x2.splat(0)), i64x2.gt_s(halfAbove64(s), v128.load(LANE_40)));
}

/**
 * (e - 6) >> 1 for e - 6 >= 0, else above 2^62 (a logical shift of the two's complement): so
 * w = floor((e - 6) / 2) is in [0, 40] exactly where this is at most 40, signed. WebAssembly's
 * arithmetic shift of 64-bit lanes takes x64 six instructions, the logical one one.
 */
// @ts-ignore: decorator
@inline function halfAbove64(s: v128): v128 {
  return i64x2.shr_u(above64(s), 1);
}

/** The width bits w of s in each lane where `inCells`, else 0 (the one-by-one code's max(w, 0)). */
// @ts-ignore: decorator
@inline export function widthLanes(s: v128, inCells: v128): v128 {
  return v128.and(halfAbove64(s), inCells);
}

/** The table (tier) of s with width bits w in each lane where `inCells`, else 0 (cells.ts tableOf): the binade of s / 4^w and 3 bits of its mantissa. */
// @ts-ignore: decorator
@inline export function tableLanes(s: v128, w: v128, inCells: v128): v128 {
  const binade = i64x2.sub(above64(s), i64x2.shl(w, 1));
  return v128.and(v128.or(i64x2.shl(binade, 3), v128.and(i64x2.shr_u(s, 49), v128.load(LANE_7))), inCells);
}

/** The i32 at base + 4 index in each lane (WebAssembly SIMD has no gather). */
// @ts-ignore: decorator
@inline function gatherI32(base: usize, index: v128): v128 {
  const a = <i64>load<i32>(base + (<usize>i64x2.extract_lane(index, 0) << 2));
  return i64x2.replace_lane(i64x2.splat(a), 1, <i64>load<i32>(base + (<usize>i64x2.extract_lane(index, 1) << 2)));
}

/** The entry each lane's word picks from its table (cells.ts entryOf): its column, or the column's alias when u is not below the threshold. */
// @ts-ignore: decorator
@inline export function entryLanes(table: v128, words: v128): v128 {
  const column = v128.and(i64x2.shr_u(words, 56), v128.load(LANE_127));
  const split = gatherI32(splitsOf(0), v128.or(i64x2.shl(table, 7), column));
  const u = v128.and(i64x2.shr_u(words, 44), v128.load(LANE_4095));
  return v128.bitselect(column, v128.and(split, v128.load(LANE_255)), i64x2.lt_s(u, i64x2.shr_u(split, 8))); // split >= 0: a logical shift
}

/** The factor S / H_e of each lane's entry, with no step outwards (cells.ts factorOf, hops 0). */
// @ts-ignore: decorator
@inline export function factorLanes(table: v128, entry: v128): v128 {
  const index = v128.or(i64x2.shl(table, 7), entry);
  const base = factorsOf(0);
  return lanes(load<f64>(base + (<usize>i64x2.extract_lane(index, 0) << 3)), load<f64>(base + (<usize>i64x2.extract_lane(index, 1) << 3)));
}

/** 2^(w - 44) in each lane: the unit of V's known bits, the word's low 44 - w (cells.ts cellDraw). */
// @ts-ignore: decorator
@inline export function unitLanes(w: v128): v128 {
  return powerOfTwo(i64x2.add(w, v128.load(LANE_979)));
}

/**
 * The word's low 44 bits times 2^(w - 44) in each lane, exactly: the offset in the cell (its top w
 * bits, cells.ts magnitudeOf) as the integer part, V's known bits times their unit (the low end
 * of V's interval in cells.ts cellDraw) as the fraction.
 */
// @ts-ignore: decorator
@inline export function offsetAndUniform(words: v128, unit: v128): v128 {
  return f64x2.mul(exactDoubles(v128.and(words, v128.load(LANE_LOW_44))), unit);
}

/** The magnitude (cell 2^w + offset) in each lane, cell = hops TAIL + entry, exactly (cells.ts magnitudeOf). */
// @ts-ignore: decorator
@inline export function magnitudeLanes(cell: v128, w: v128, offset: v128): v128 {
  return f64x2.add(f64x2.mul(exactDoubles(cell), powerOfTwo(i64x2.add(w, v128.load(LANE_1023)))), offset);
}

/** The acceptance a = exp(-x) factor of each lane's trial, before the comparisons (cells.ts cellDraw). */
// @ts-ignore: decorator
@inline export function acceptanceLanes(x: v128, factor: v128): v128 {
  return f64x2.mul(expMinusPair(x), factor);
}

/** All ones where V, in [low, high), is below the acceptance a for sure (high <= a (1 - RELATIVE_MARGIN)). */
// @ts-ignore: decorator
@inline export function acceptedLanes(high: v128, a: v128): v128 {
  return f64x2.le(high, f64x2.mul(a, v128.load(LANE_UNDER)));
}

/** All ones where V is at least a for sure (low >= a (1 + RELATIVE_MARGIN)). */
// @ts-ignore: decorator
@inline export function rejectedLanes(low: v128, a: v128): v128 {
  return f64x2.ge(low, f64x2.mul(a, v128.load(LANE_OVER)));
}

/**
 * All ones where a lane's draw ends with its trial if V is accepted for sure: s in the cells, a
 * cell entry (not the tail), and not the (negative, 0) that is redrawn.
 */
// @ts-ignore: decorator
@inline export function releasableLanes(cells: v128, entry: v128, words: v128, n: v128): v128 {
  const zero = i64x2.splat(0);
  const redrawn = v128.and(i64x2.gt_s(zero, words), f64x2.eq(n, zero));
  return v128.andnot(v128.andnot(cells, i64x2.eq(entry, v128.load(LANE_127))), redrawn); // not ne: x64 has no such compare
}

/** The magnitude n with the sign of its word in each lane (-0 for a negative 0, which adds as 0). */
// @ts-ignore: decorator
@inline export function signedLanes(n: v128, words: v128): v128 {
  return v128.or(n, v128.and(words, v128.load(LANE_SIGN)));
}
