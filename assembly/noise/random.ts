// Random words for the samplers. The primary word of coordinate i sits in RANDOM; further
// ("extra") words of a coordinate come from the seeded stream, keyed by the coordinate, or from a
// pool the facade fills from the CSPRNG. A draw that empties the pool asks the facade for more
// (the `refillPool` import) and carries on with the fresh words: a draw is never restarted, so its
// distribution cannot depend on where the pool runs out.
//
// The seeded generator is counter-based: word j of a stream is mix64(key + (j + 1) * gamma), the
// output function of SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number
// generators"; mix64 is Stafford's Mix13). It depends only on (key, gamma, j), so chunk sizes,
// threads and builds change nothing. Not cryptographic: seeded noise is for simulations and tests.
import { BATCH, EXACT, EXTRA, EXTRA_WORDS, HOPS, PAIR_BATCH, PAIR_BYTES, PAIRS, PENDING, PENDING_NEXT, RANDOM, SAMPLE_CHUNK, SCALES, SLOW, STASH, STREAM, VALUES } from "../memory";

/** Asks the facade to refill EXTRA from the CSPRNG; it answers with usePoolExtras(count). */
@external("env", "refillPool")
declare function refillPool(): void;

const MIX1: u64 = 0xBF58476D1CE4E5B9;
const MIX2: u64 = 0x94D049BB133111EB;
/**
 * Extra word k of coordinate i is word 2^63 + i 2^24 + k of the stream, apart from the primaries
 * (words 0 to 2^32): distinct for every coordinate below 2^39 and k below 2^24.
 */
const EXTRA_BASE: u64 = 0x8000000000000000;
const EXTRA_SHIFT: u64 = 24;

// @ts-ignore: decorator
@inline function mix64(z: u64): u64 {
  z = (z ^ (z >>> 30)) * MIX1;
  z = (z ^ (z >>> 27)) * MIX2;
  return z ^ (z >>> 31);
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
// The seeded stream's key and gamma, cached from STREAM.
let streamKey: u64 = 0;
let streamGamma: u64 = 0;

/** Extra words come from the seeded stream (STREAM must hold its key and gamma). */
export function useSeededExtras(): void {
  seeded = true;
  streamKey = load<u64>(STREAM);
  streamGamma = load<u64>(STREAM, 8);
}

/** Extra words come from the CSPRNG pool, from where it was left (unused words stay fresh). */
export function resumePoolExtras(): void {
  seeded = false;
}

/** EXTRA now holds `count` fresh random words (the facade's answer to refillPool). */
export function usePoolExtras(count: i32): void {
  seeded = false;
  poolNext = 0;
  poolEnd = min(count, EXTRA_WORDS);
}

/** The coordinate being drawn and how many extra words it has taken (for the exact slow path). */
let current: u64 = 0;
let taken: u64 = 0;
/** Words of the current coordinate read ahead (at `replayAt`) and not yet handed out again. */
let replayAt: usize = 0;
let replayLeft: i32 = 0;

/** Starts the extra words of coordinate i. */
// @ts-ignore: decorator
@inline export function beginCoordinate(i: u64): void {
  current = i;
  taken = 0;
  replayLeft = 0;
}

/**
 * Continues coordinate i after its first `before` extra words, the next `count` of them being the
 * ones already read and kept at `at`, `at` + 8, ...: the draw sees the words it would have
 * seen, and the source goes on after them.
 */
// @ts-ignore: decorator
@inline export function replayCoordinate(i: u64, before: i32, at: usize, count: i32): void {
  current = i;
  taken = <u64>before;
  replayAt = at;
  replayLeft = count;
}

/** The next extra word of the current coordinate (inlined into the samplers' loops). */
// @ts-ignore: decorator
@inline export function nextWord(): u64 {
  const k = taken++;
  if (replayLeft > 0) {
    replayLeft--;
    const word = load<u64>(replayAt);
    replayAt += 8;
    return word;
  }
  if (seeded) return extraWord(current, k);
  return poolWord();
}

/** Has the facade refill the CSPRNG pool if it is empty. */
// @ts-ignore: decorator
@inline function ensurePool(): void {
  if (poolNext >= poolEnd) {
    refillPool();
    if (poolNext >= poolEnd) unreachable(); // the facade must supply at least one word
  }
}

/** The next word of the CSPRNG pool, refilled by the facade when empty. */
function poolWord(): u64 {
  ensurePool();
  const word = load<u64>(EXTRA + (<usize>poolNext << 3));
  poolNext++;
  return word;
}

/**
 * Extra word k of the coordinate of each slot j in [0, m) to at + 8 j, read ahead for a SIMD trial
 * (the draws get them back by replayCoordinate): slot j is coordinate first + j, or first +
 * LIST[j] when `list` is not 0; from the seeded stream, or the pool's next m words, in order.
 */
export function extraWordsInto(at: usize, first: f64, list: usize, m: i32, k: i32): void {
  if (seeded) {
    for (let j = 0; j < m; j++) {
      const i = list != 0 ? <u64>load<i32>(list + (<usize>j << 2)) : <u64>j;
      store<u64>(at + (<usize>j << 3), extraWord(<u64>first + i, <u64>k));
    }
    return;
  }
  for (let j = 0; j < m; ) {
    ensurePool();
    const count = min(m - j, poolEnd - poolNext);
    memory.copy(at + (<usize>j << 3), EXTRA + (<usize>poolNext << 3), <usize>count << 3);
    poolNext += count;
    j += count;
  }
}

/** Extra word k of coordinate i of the seeded stream. */
// @ts-ignore: decorator
@inline function extraWord(i: u64, k: u64): u64 {
  return mix64(streamKey + (EXTRA_BASE + (i << EXTRA_SHIFT) + k + 1) * streamGamma);
}

/** nextWord for the exact path (src/noise/discrete-exact.ts), which continues a draw from the same words. */
export function exactWord(): u64 {
  return nextWord();
}

/**
 * Zeroes what a call has left in the scratch buffers that depends on its random words or on the
 * caller's values: the first n entries of the chunk buffers that can hold them (words, values,
 * sums), the whole CSPRNG pool (its unused words would be the next draws' randomness: the pool
 * is emptied, and refilled when next needed) and, after a discrete draw, the exact path's state
 * and the batch buffers. The host calls it after every call while a caller's vector, whose view
 * exposes the whole memory, is alive (src/noise/wasm-vector.ts).
 */
export function scrub(n: i32, discrete: bool): void {
  const bytes = <usize>min(n, SAMPLE_CHUNK) << 3;
  memory.fill(RANDOM, 0, bytes);
  memory.fill(VALUES, 0, bytes);
  memory.fill(SCALES, 0, bytes);
  memory.fill(EXTRA, 0, <usize>poolEnd << 3);
  poolNext = 0;
  poolEnd = 0;
  if (!discrete) return;
  // A batch holds at most n coordinates, and n / 2 pairs (rounded up).
  const batch = <usize>min(n, BATCH);
  memory.fill(EXACT, 0, 8 << 3);
  memory.fill(STASH, 0, batch << 3);
  memory.fill(PENDING, 0, batch << 2);
  memory.fill(PENDING_NEXT, 0, batch << 2);
  memory.fill(HOPS, 0, batch << 2);
  memory.fill(PAIRS, 0, <usize>min((n + 1) >> 1, PAIR_BATCH) * PAIR_BYTES);
  memory.fill(SLOW, 0, batch << 1);
}
