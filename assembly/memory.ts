// Scratch memory: fixed static buffers, so linear memory never grows, whatever the vector length.
// The facade streams long vectors through them chunk by chunk.

/** Doubles per scratch buffer (128 KiB: large enough to amortise a call, small enough for L2). */
export const CHUNK: i32 = 16384;

/** Input chunk (a sensitivity profile); kernels that produce scales overwrite it in place. */
export const PROFILE: usize = memory.data(CHUNK << 3, 16);
/** Input chunk of per-coordinate weights. */
export const WEIGHTS: usize = memory.data(CHUNK << 3, 16);
/** Small results area for kernels that return more than one number. */
export const RESULTS: usize = memory.data(4 << 3, 16);

/** Samples per sampling chunk. */
export const SAMPLE_CHUNK: i32 = 8192;
/** Values chunk: noise is written, or added, here. */
export const VALUES: usize = memory.data(SAMPLE_CHUNK << 3, 16);
/** Per-coordinate scales chunk. */
export const SCALES: usize = memory.data(SAMPLE_CHUNK << 3, 16);
/** Per-coordinate budgets and shapes of the staircase sampler (its step widths are in SCALES). */
export const EPSILONS: usize = memory.data(SAMPLE_CHUNK << 3, 16);
export const SHAPES: usize = memory.data(SAMPLE_CHUNK << 3, 16);
/** One random 64-bit word per sample of the chunk (the discrete Gaussian's later SIMD rounds put their trial words in its used slots, discrete.ts). */
export const RANDOM: usize = memory.data(SAMPLE_CHUNK << 3, 16);
/** The CSPRNG pool of extra words (the ziggurats' slow paths, about 1% of draws; the discrete samplers' further words). */
export const EXTRA_WORDS: i32 = 8192;
export const EXTRA: usize = memory.data(EXTRA_WORDS << 3, 16);
/** The seeded stream of the current call: key and odd increment (gamma), two u64. */
export const STREAM: usize = memory.data(16, 16);
/**
 * The state of a discrete draw handed to the exact path, eight 8-byte slots. discrete.ts: the
 * noise parameter (t, or s for the Gaussian), the Laplace scale in use (t, or T), the stage's
 * random word, the sign bit, H, the Gaussian proposal Y, the value the noise is added to. cells.ts:
 * the scale, the hops, the trial word, whether V was extended, the extending word, the table, the
 * value, the width bits.
 */
export const EXACT: usize = memory.data(8 << 3, 16);
/** Coordinates per batch of the discrete samplers' SIMD rounds (discrete.ts): the length of the lists. */
export const BATCH: i32 = 2048;
/** The discrete Laplace's L words read ahead for its SIMD trials (a word per slot of a batch), handed back if the slot's draw is finished one by one. */
export const STASH: usize = memory.data(BATCH << 3, 16);
/** Lists of coordinates of a batch, left by a round of SIMD trials to the next one, and each one's steps outwards (discrete.ts). */
export const PENDING: usize = memory.data(BATCH << 2, 16);
export const PENDING_NEXT: usize = memory.data(BATCH << 2, 16);
export const HOPS: usize = memory.data(BATCH << 2, 16);
/**
 * What one SIMD loop over pairs of coordinates hands to the next (discrete.ts): for PAIR_BATCH
 * pairs of cell trials, their exponents (then acceptances), factors, magnitudes, releasable lanes
 * and V's ends, a v128 each; or the discrete Laplace's noise for a whole batch, a v128 a pair
 * (BATCH 8 bytes, which fits). Sized so that the module's memory stays within 1 MiB.
 */
export const PAIR_BATCH: i32 = 256;
export const PAIR_BYTES: usize = 96;
export const PAIRS: usize = memory.data(PAIR_BATCH * <i32>PAIR_BYTES, 16);
/** The pairs of a round with a lane not simply released, ended after the round's loop (discrete.ts). */
export const SLOW: usize = memory.data(BATCH << 1, 16);

// The dynamic region past the static data: the caller's vectors first (src/wasm/heap.ts lays
// them out), the accountant's arena past them (accounting/arena.ts), so neither overwrites the other.
/** The first byte past the static data, 16-byte aligned. */
// @ts-ignore: builtin
export const HEAP: usize = (__heap_base + 15) & ~(<usize>15);
/** Bytes from HEAP held for vectors. */
let vectorBytes: usize = 0;

/** Makes memory hold `end` bytes, growing it as needed; false if it cannot grow. */
export function ensureMemory(end: usize): bool {
  const have = <usize>memory.size() << 16;
  return end <= have || memory.grow(<i32>((end - have + 0xFFFF) >> 16)) >= 0;
}

/** Holds `bytes` bytes from HEAP for vectors (16-byte multiple), growing memory as needed; false, nothing changed, if it cannot grow. */
export function reserveVectors(bytes: usize): bool {
  if (!ensureMemory(HEAP + bytes)) return false;
  vectorBytes = bytes;
  return true;
}

/** Where the arena starts: past the vectors. */
export function arenaStart(): usize {
  return HEAP + vectorBytes;
}
