// Gaussian and Laplace noise from random 64-bit words, by the 256-layer ziggurat (Marsaglia &
// Tsang 2000; the bit layout of NumPy's random_standard_normal and random_standard_exponential):
//   VALUES[i] = (add ? VALUES[i] : 0) + noise_i * (perCoordinate ? SCALES[i] : scale) + offset,
// where offset is a shared term (correlated.ts draws it once per release; 0 otherwise).
// Coordinate i draws from its primary word RANDOM[i]; about 1% of draws also take extra words
// keyed by the coordinate (random.ts), so noise depends only on the words, never on chunking.
// Tails (MATH.md section 8): the normal tail beyond r = 3.654 is sampled by Marsaglia's method
// from 53-bit uniforms, so |noise| < 13.71: the truncated probability is below 1e-42. The
// exponential tail is r plus a fresh exponential (memoryless), never truncated; Laplace noise is
// finite, never NaN.
import { exhausted, extraWord } from "./random";
import { RANDOM, SCALES, VALUES } from "./memory";
import {
  EXPONENTIAL_F, EXPONENTIAL_K, EXPONENTIAL_R, EXPONENTIAL_W, NORMAL_F, NORMAL_INV_R, NORMAL_K, NORMAL_R, NORMAL_W,
} from "./ziggurat";

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

/** A uniform in [0, 1) with 53 bits. */
// @ts-ignore: decorator
@inline function uniform(word: u64): f64 {
  return <f64>(word >>> 11) * TWO_POW_M53;
}

// @ts-ignore: decorator
@inline function apply(i: i32, noise: f64, perCoordinate: bool, scale: f64, add: bool, shared: f64): void {
  const at = <usize>i << 3;
  const s = perCoordinate ? load<f64>(SCALES + at) : scale;
  const base = add ? load<f64>(VALUES + at) : 0.0;
  store<f64>(VALUES + at, base + (noise * s + shared));
}

/** Normal word layout: layer = bits 0-7, sign = bit 8, magnitude = bits 9-60. */
// @ts-ignore: decorator
@inline function normalLayer(word: u64): i32 { return <i32>(word & 0xFF); }
// @ts-ignore: decorator
@inline function normalMagnitude(word: u64): u64 { return (word >>> 9) & MAGNITUDE_52; }
/** x with the sign bit of `word` at `bit` (branch-free: the sign is a coin flip). */
// @ts-ignore: decorator
@inline function signed(word: u64, bit: u64, x: f64): f64 {
  return reinterpret<f64>(reinterpret<u64>(x) ^ (((word >>> bit) & 1) << 63));
}

/** The rare branches of the normal ziggurat: tail, wedge, redraw. NaN if the pool ran dry. */
function normalSlow(coordinate: u64, word: u64): f64 {
  let k: u64 = 0;
  while (true) {
    const layer = normalLayer(word);
    const magnitude = normalMagnitude(word);
    const x = <f64>magnitude * table(NORMAL_W, layer);
    if (magnitude < limit(NORMAL_K, layer)) return signed(word, 8, x);
    if (layer == 0) {
      // Tail beyond r (Marsaglia 1964): r + xx with xx ~ Exp(r), accepted with prob exp(-xx^2/2).
      while (true) {
        const xx = -NORMAL_INV_R * Math.log1p(-uniform(extraWord(coordinate, k++)));
        const yy = -Math.log1p(-uniform(extraWord(coordinate, k++)));
        if (exhausted) return NaN;
        if (yy + yy > xx * xx) return signed(word, 8, NORMAL_R + xx);
      }
    }
    const edge = table(NORMAL_F, layer);
    const u = uniform(extraWord(coordinate, k++));
    if (exhausted) return NaN;
    if ((table(NORMAL_F, layer - 1) - edge) * u + edge < Math.exp(-0.5 * x * x)) return signed(word, 8, x);
    word = extraWord(coordinate, k++);
    if (exhausted) return NaN;
  }
}

/**
 * Gaussian noise (unit variance times the scale, plus `shared`) for coordinates [start, n) of the chunk whose
 * first coordinate is `first` in the whole vector. Returns n, or the coordinate at which the
 * extra-word pool ran dry (refill it and call again from there).
 */
export function gaussianSamples(first: f64, start: i32, n: i32, perCoordinate: bool, scale: f64, add: bool, shared: f64): i32 {
  // One loop per combination of the flags, so that the per-sample work has no branch on them.
  if (perCoordinate) {
    return add ? gaussianLoop(first, start, n, true, scale, true, shared) : gaussianLoop(first, start, n, true, scale, false, shared);
  }
  return add ? gaussianLoop(first, start, n, false, scale, true, shared) : gaussianLoop(first, start, n, false, scale, false, shared);
}

// @ts-ignore: decorator
@inline function gaussianLoop(first: f64, start: i32, n: i32, perCoordinate: bool, scale: f64, add: bool, shared: f64): i32 {
  const origin = <u64>first;
  for (let i = start; i < n; i++) {
    const word = load<u64>(RANDOM + (<usize>i << 3));
    const layer = normalLayer(word);
    const magnitude = normalMagnitude(word);
    let noise = signed(word, 8, <f64>magnitude * table(NORMAL_W, layer));
    if (magnitude >= limit(NORMAL_K, layer)) {
      noise = normalSlow(origin + i, word);
      if (isNaN(noise)) return i;
    }
    apply(i, noise, perCoordinate, scale, add, shared);
  }
  return n;
}

/** Exponential word layout: sign (for Laplace) = bit 0, layer = bits 3-10, magnitude = bits 11-63. */
// @ts-ignore: decorator
@inline function exponentialLayer(word: u64): i32 { return <i32>((word >>> 3) & 0xFF); }

/** The rare branches of the exponential ziggurat; the tail restarts past r. NaN if the pool ran dry. */
function exponentialSlow(coordinate: u64, word: u64): f64 {
  let k: u64 = 0;
  let offset: f64 = 0.0;
  while (true) {
    const layer = exponentialLayer(word);
    const magnitude = word >>> 11;
    const x = <f64>magnitude * table(EXPONENTIAL_W, layer);
    if (magnitude < limit(EXPONENTIAL_K, layer)) return offset + x;
    if (layer == 0) {
      offset += EXPONENTIAL_R;
    } else {
      const edge = table(EXPONENTIAL_F, layer);
      const u = uniform(extraWord(coordinate, k++));
      if (exhausted) return NaN;
      if ((table(EXPONENTIAL_F, layer - 1) - edge) * u + edge < Math.exp(-x)) return offset + x;
    }
    word = extraWord(coordinate, k++);
    if (exhausted) return NaN;
  }
}

/** Laplace noise (scale b = 1 times the scale, plus `shared`) for coordinates [start, n); returns as gaussianSamples. */
export function laplaceSamples(first: f64, start: i32, n: i32, perCoordinate: bool, scale: f64, add: bool, shared: f64): i32 {
  if (perCoordinate) {
    return add ? laplaceLoop(first, start, n, true, scale, true, shared) : laplaceLoop(first, start, n, true, scale, false, shared);
  }
  return add ? laplaceLoop(first, start, n, false, scale, true, shared) : laplaceLoop(first, start, n, false, scale, false, shared);
}

// @ts-ignore: decorator
@inline function laplaceLoop(first: f64, start: i32, n: i32, perCoordinate: bool, scale: f64, add: bool, shared: f64): i32 {
  const origin = <u64>first;
  for (let i = start; i < n; i++) {
    const word = load<u64>(RANDOM + (<usize>i << 3));
    const layer = exponentialLayer(word);
    const magnitude = word >>> 11;
    let noise = <f64>magnitude * table(EXPONENTIAL_W, layer);
    if (magnitude >= limit(EXPONENTIAL_K, layer)) {
      noise = exponentialSlow(origin + i, word);
      if (isNaN(noise)) return i;
    }
    apply(i, signed(word, 0, noise), perCoordinate, scale, add, shared);
  }
  return n;
}
