// Random words for the samplers. The primary word of coordinate i sits in RANDOM; the rare slow
// paths of the ziggurat take further ("extra") words, which come from the seeded stream, keyed by
// the coordinate, or from a pool the facade fills from the CSPRNG.
//
// The seeded generator is counter-based: word j of a stream is mix64(key + (j + 1) * gamma), the
// output function of SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number
// generators"; mix64 is Stafford's Mix13). It depends only on (key, gamma, j), so chunk sizes,
// threads and builds change nothing. Not cryptographic: seeded noise is for simulations and tests.
import { EXTRA, EXTRA_WORDS, RANDOM, STREAM } from "./memory";

const MIX1: u64 = 0xBF58476D1CE4E5B9;
const MIX2: u64 = 0x94D049BB133111EB;
/** Extra words of coordinate i are words 2^63 + i 2^16 + k of the stream, apart from the primaries. */
const EXTRA_BASE: u64 = 0x8000000000000000;

// @ts-ignore: decorator
@inline function mix64(z: u64): u64 {
  z = (z ^ (z >>> 30)) * MIX1;
  z = (z ^ (z >>> 27)) * MIX2;
  return z ^ (z >>> 31);
}

/** Word j of the stream whose key and gamma are in STREAM. */
// @ts-ignore: decorator
@inline function streamWord(j: u64): u64 {
  return mix64(load<u64>(STREAM) + (j + 1) * load<u64>(STREAM, 8));
}

/**
 * Writes words [first, first + count) of the seeded stream to RANDOM. Scalar in both builds:
 * WebAssembly SIMD has no native 64-bit multiply on x86 or ARM, and its emulated i64x2.mul made
 * a two-lane version slower (1.08 against 0.88 ns per word measured here).
 */
export function seededWords(first: f64, count: i32): void {
  const gamma = load<u64>(STREAM, 8);
  let state = load<u64>(STREAM) + (<u64>first + 1) * gamma;
  for (let p = RANDOM, end = RANDOM + (<usize>count << 3); p < end; p += 8) {
    store<u64>(p, mix64(state));
    state += gamma;
  }
}

let seeded = false;
let poolNext: i32 = 0;
let poolEnd: i32 = 0;
/** Set when the pool ran dry: the sampler stops and the facade refills it. */
export let exhausted = false;

/** Extra words come from the seeded stream (STREAM must hold its key and gamma). */
export function useSeededExtras(): void {
  seeded = true;
  exhausted = false;
}

/** Extra words come from the pool again, from where it was left (unused words stay fresh). */
export function resumePoolExtras(): void {
  seeded = false;
  exhausted = false;
}

/** Extra words come from EXTRA, which the facade has just filled with `count` random words. */
export function usePoolExtras(count: i32): void {
  seeded = false;
  poolNext = 0;
  poolEnd = min(count, EXTRA_WORDS);
  exhausted = false;
}

/** The k-th extra word of a coordinate; 0 with `exhausted` set when the pool is empty. */
export function extraWord(coordinate: u64, k: u64): u64 {
  if (seeded) return streamWord(EXTRA_BASE + (coordinate << 16) + k);
  if (poolNext >= poolEnd) {
    exhausted = true;
    return 0;
  }
  const word = load<u64>(EXTRA + (<usize>poolNext << 3));
  poolNext++;
  return word;
}
