// Gaussian and Laplace noise from random 64-bit words, by the 256-layer ziggurat (Marsaglia &
// Tsang 2000; the bit layout of NumPy's random_standard_normal and random_standard_exponential):
//   into[i] = (ADD ? from[i] : 0) + noise_i * (PER_COORDINATE ? scales[i] : scale) + shared,
// where shared is a term common to every coordinate (correlated sums draw it once per release),
// and into, from and scales are pointers: the scratch chunks VALUES and SCALES, or a caller's
// vectors in the module's memory, drawn in place without a copy (src/noise/wasm-vector.ts).
// Coordinate i draws from its primary word RANDOM[i]; about 1% of draws also take extra words
// of the coordinate (random.ts), so noise depends only on the words, never on chunking.
// No tail is cut off (docs/noise.md, "Samplers"): the exponential tail is r plus a fresh
// exponential (memoryless), and the normal tail beyond r = 3.654 is Marsaglia's (1964) r + E1/r,
// accepted when 2 E2 > (E1/r)^2, with E1 and E2 exponentials from the same unbounded sampler. A
// uniform-based tail (-log U with a 53-bit U) could never pass 13.71 standard deviations, which
// one neighbour's output can reach and the other's not. Laplace noise is finite, never NaN.
import { beginCoordinate, nextWord } from "./random";
import { RANDOM } from "../memory";
import {
  EXPONENTIAL_F, EXPONENTIAL_K, EXPONENTIAL_R, EXPONENTIAL_W, NORMAL_F, NORMAL_INV_R, NORMAL_K, NORMAL_R, NORMAL_W,
} from "./ziggurat";

/** Kernel flags: one scale per coordinate at `scales` (else `scale` for all), and add to `from` (else overwrite). */
export const PER_COORDINATE: i32 = 1;
export const ADD: i32 = 2;

const MAGNITUDE_52: u64 = 0xFFFFFFFFFFFFF;
const TWO_POW_M53: f64 = 1.1102230246251565e-16;

// @ts-ignore: decorator
@inline function table(base: usize, layer: i32): f64 {
  return load<f64>(base + (<usize>layer << 3));
}

// @ts-ignore: decorator
@inline function limit(base: usize, layer: i32): u64 {
  return load<u64>(base + (<usize>layer << 3));
}

/**
 * x < 2^53 as a double, exactly: by the signed conversion, one instruction, where the unsigned
 * one is several on x64 (the kernels alone are 7% faster for it).
 */
// @ts-ignore: decorator
@inline export function exactDouble(x: u64): f64 {
  return <f64><i64>x;
}

/** A uniform in [0, 1) with 53 bits (for the wedge tests, which a finite precision only blurs). */
// @ts-ignore: decorator
@inline function uniform(word: u64): f64 {
  return exactDouble(word >>> 11) * TWO_POW_M53;
}

/**
 * The loops are specialised at compile time for each combination of the flags, so that the
 * per-sample work has no branch on them: a flag is a type argument, Yes or No (a bool argument
 * of an inlined function would let the optimiser fold the four loops back into one, branching
 * per sample, 17% slower).
 */
type Yes = i32;
type No = f64;

// @ts-ignore: decorator
@inline function apply(into: usize, from: usize, scales: usize, i: i32, noise: f64, perCoordinate: bool, scale: f64, add: bool, shared: f64): void {
  const at = <usize>i << 3;
  const s = perCoordinate ? load<f64>(scales + at) : scale;
  const drawn = noise * s + shared;
  store<f64>(into + at, add ? load<f64>(from + at) + drawn : drawn);
}

/** Normal word layout: layer = bits 0-7, sign = bit 8, magnitude = bits 9-60. */
// @ts-ignore: decorator
@inline function normalLayer(word: u64): i32 { return <i32>(word & 0xFF); }
// @ts-ignore: decorator
@inline function normalMagnitude(word: u64): u64 { return (word >>> 9) & MAGNITUDE_52; }
/** x with the sign bit of `word` at `bit` (branch-free: the sign is a coin flip). */
// @ts-ignore: decorator
@inline export function signed(word: u64, bit: u64, x: f64): f64 {
  return reinterpret<f64>(reinterpret<u64>(x) ^ (((word >>> bit) & 1) << 63));
}

/**
 * The normal ziggurat's W and K indexed by a word's low 9 bits, its layer and sign: entry 256 + i
 * is -W[i] (negation is exact, so the product is exactly signed(word, 8, magnitude * W[i])) and
 * K[i] again. The fast path then takes one product for the signed draw, with no sign bits to move.
 */
const NORMAL_SIGNED_W: usize = memory.data(512 << 3, 16);
const NORMAL_SIGNED_K: usize = memory.data(512 << 3, 16);
for (let i = 0; i < 256; i++) {
  const at = <usize>i << 3;
  store<f64>(NORMAL_SIGNED_W + at, table(NORMAL_W, i));
  store<f64>(NORMAL_SIGNED_W + (256 << 3) + at, -table(NORMAL_W, i));
  store<u64>(NORMAL_SIGNED_K + at, limit(NORMAL_K, i));
  store<u64>(NORMAL_SIGNED_K + (256 << 3) + at, limit(NORMAL_K, i));
}

/** The rare branches of the normal ziggurat: tail, wedge, redraw. */
function normalSlow(word: u64): f64 {
  while (true) {
    const layer = normalLayer(word);
    const magnitude = normalMagnitude(word);
    const x = exactDouble(magnitude) * table(NORMAL_W, layer);
    if (magnitude < limit(NORMAL_K, layer)) return signed(word, 8, x);
    if (layer == 0) {
      // Tail beyond r (Marsaglia 1964): r + xx with xx ~ Exp(rate r), accepted with prob exp(-xx^2/2).
      while (true) {
        const xx = exponential() * NORMAL_INV_R;
        const yy = exponential();
        if (yy + yy > xx * xx) return signed(word, 8, NORMAL_R + xx);
      }
    }
    const edge = table(NORMAL_F, layer);
    if ((table(NORMAL_F, layer - 1) - edge) * uniform(nextWord()) + edge < Math.exp(-0.5 * x * x)) return signed(word, 8, x);
    word = nextWord();
  }
}

/**
 * Gaussian noise (unit variance times the scale, plus `shared`) for coordinates [0, n) of the chunk
 * whose first coordinate is `first` in the whole vector, written at `into` (the values read at
 * `from`, the scales at `scales`); `flags` is a set of PER_COORDINATE, ADD.
 */
export function gaussianSamples(first: f64, n: i32, flags: i32, scale: f64, shared: f64, into: usize, from: usize, scales: usize): void {
  switch (flags & 3) {
    case 0: gaussianLoop<No, No>(first, n, scale, shared, into, from, scales); break;
    case PER_COORDINATE: gaussianLoop<Yes, No>(first, n, scale, shared, into, from, scales); break;
    case ADD: gaussianLoop<No, Yes>(first, n, scale, shared, into, from, scales); break;
    default: gaussianLoop<Yes, Yes>(first, n, scale, shared, into, from, scales);
  }
}

function gaussianLoop<PerCoordinate, Add>(first: f64, n: i32, scale: f64, shared: f64, into: usize, from: usize, scales: usize): void {
  const origin = <u64>first;
  let i = 0;
  if (ASC_FEATURE_SIMD) i = gaussianPairs<PerCoordinate, Add>(origin, n, scale, shared, into, from, scales);
  for (; i < n; i++) {
    const word = load<u64>(RANDOM + (<usize>i << 3));
    const layerAndSign = <usize>(word & 0x1FF) << 3;
    const magnitude = normalMagnitude(word);
    let noise = exactDouble(magnitude) * load<f64>(NORMAL_SIGNED_W + layerAndSign);
    if (magnitude >= load<u64>(NORMAL_SIGNED_K + layerAndSign)) {
      beginCoordinate(origin + i);
      noise = normalSlow(word);
    }
    apply(into, from, scales, i, noise, isInteger<PerCoordinate>(), scale, isInteger<Add>(), shared);
  }
}

/**
 * The SIMD build's fast path, two coordinates at a time from the start of the chunk; returns how
 * many it drew (the scalar loop draws the last one of an odd count). Each lane computes what the
 * scalar loop computes, bit for bit: the magnitude (below 2^52) becomes a double exactly as the
 * bits of 2^52 + magnitude, less 2^52; a lane past its layer's K takes the scalar slow path.
 */
// @ts-ignore: decorator
@inline function gaussianPairs<PerCoordinate, Add>(origin: u64, n: i32, scale: f64, shared: f64, into: usize, from: usize, scales: usize): i32 {
  const layerAndSign = i64x2.splat(0x1FF);
  const magnitudeMask = i64x2.splat(MAGNITUDE_52);
  const twoPow52Bits = i64x2.splat(0x4330000000000000); // 2^52 = 4503599627370496
  const twoPow52 = f64x2.splat(4503599627370496.0);
  const scaleBoth = f64x2.splat(scale);
  const sharedBoth = f64x2.splat(shared);
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const at = <usize>i << 3;
    const words = v128.load(RANDOM + at);
    const offsets = i64x2.shl(v128.and(words, layerAndSign), 3);
    const a = <usize>i64x2.extract_lane(offsets, 0);
    const b = <usize>i64x2.extract_lane(offsets, 1);
    const w = v128.load64_lane(NORMAL_SIGNED_W + b, v128.load64_zero(NORMAL_SIGNED_W + a), 1);
    const k = v128.load64_lane(NORMAL_SIGNED_K + b, v128.load64_zero(NORMAL_SIGNED_K + a), 1);
    const magnitude = v128.and(i64x2.shr_u(words, 9), magnitudeMask);
    let noise = f64x2.mul(f64x2.sub(v128.or(magnitude, twoPow52Bits), twoPow52), w);
    if (v128.any_true(i64x2.ge_s(magnitude, k))) noise = slowLanes(noise, words, magnitude, k, origin + <u64>i);
    const drawn = f64x2.add(f64x2.mul(noise, isInteger<PerCoordinate>() ? v128.load(scales + at) : scaleBoth), sharedBoth);
    v128.store(into + at, isInteger<Add>() ? f64x2.add(v128.load(from + at), drawn) : drawn);
  }
  return i;
}

/** The lanes of a pair past their layer's K redrawn by the slow path, the first lane first (the order the scalar loop takes its extra words in). */
function slowLanes(noise: v128, words: v128, magnitude: v128, k: v128, coordinate: u64): v128 {
  if (i64x2.extract_lane(magnitude, 0) >= i64x2.extract_lane(k, 0)) {
    beginCoordinate(coordinate);
    noise = f64x2.replace_lane(noise, 0, normalSlow(<u64>i64x2.extract_lane(words, 0)));
  }
  if (i64x2.extract_lane(magnitude, 1) >= i64x2.extract_lane(k, 1)) {
    beginCoordinate(coordinate + 1);
    noise = f64x2.replace_lane(noise, 1, normalSlow(<u64>i64x2.extract_lane(words, 1)));
  }
  return noise;
}

/** Exponential word layout: sign (for Laplace) = bit 0, layer = bits 3-10, magnitude = bits 11-63. */
// @ts-ignore: decorator
@inline function exponentialLayer(word: u64): i32 { return <i32>((word >>> 3) & 0xFF); }

/** The rare branches of the exponential ziggurat; the tail restarts past r, so nothing is cut off. */
function exponentialSlow(word: u64): f64 {
  let offset: f64 = 0.0;
  while (true) {
    const layer = exponentialLayer(word);
    const magnitude = word >>> 11;
    const x = exactDouble(magnitude) * table(EXPONENTIAL_W, layer);
    if (magnitude < limit(EXPONENTIAL_K, layer)) return offset + x;
    if (layer == 0) {
      offset += EXPONENTIAL_R;
    } else {
      const edge = table(EXPONENTIAL_F, layer);
      if ((table(EXPONENTIAL_F, layer - 1) - edge) * uniform(nextWord()) + edge < Math.exp(-x)) return offset + x;
    }
    word = nextWord();
  }
}

/** An Exp(1) draw from the extra words of the current coordinate (for the normal tail, and the joint staircase). */
export function exponential(): f64 {
  const word = nextWord();
  const magnitude = word >>> 11;
  const layer = exponentialLayer(word);
  if (magnitude < limit(EXPONENTIAL_K, layer)) return exactDouble(magnitude) * table(EXPONENTIAL_W, layer);
  return exponentialSlow(word);
}

/** Laplace noise (scale b = 1 times the scale, plus `shared`) for coordinates [0, n); as gaussianSamples. */
export function laplaceSamples(first: f64, n: i32, flags: i32, scale: f64, shared: f64, into: usize, from: usize, scales: usize): void {
  switch (flags & 3) {
    case 0: laplaceLoop<No, No>(first, n, scale, shared, into, from, scales); break;
    case PER_COORDINATE: laplaceLoop<Yes, No>(first, n, scale, shared, into, from, scales); break;
    case ADD: laplaceLoop<No, Yes>(first, n, scale, shared, into, from, scales); break;
    default: laplaceLoop<Yes, Yes>(first, n, scale, shared, into, from, scales);
  }
}

/** An Exp(1) draw from the primary word of `coordinate`; the rare slow path takes its extra words from the first. */
// @ts-ignore: decorator
@inline export function standardExponential(word: u64, coordinate: u64): f64 {
  const layer = exponentialLayer(word);
  const magnitude = word >>> 11;
  if (magnitude < limit(EXPONENTIAL_K, layer)) return exactDouble(magnitude) * table(EXPONENTIAL_W, layer);
  beginCoordinate(coordinate);
  return exponentialSlow(word);
}

function laplaceLoop<PerCoordinate, Add>(first: f64, n: i32, scale: f64, shared: f64, into: usize, from: usize, scales: usize): void {
  const origin = <u64>first;
  for (let i = 0; i < n; i++) {
    const word = load<u64>(RANDOM + (<usize>i << 3));
    apply(into, from, scales, i, signed(word, 0, standardExponential(word, origin + i)), isInteger<PerCoordinate>(), scale, isInteger<Add>(), shared);
  }
}
