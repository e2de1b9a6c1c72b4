// Random words for the selections drawn in JavaScript (mechanisms/select.ts): a fresh stream of
// the source, read a block at a time through the module's buffer. A seeded source gives the same
// words for the same seed and call, so a selection repeats on every engine and build.
import type { WasmExports } from '../wasm/exports.js';
import { holdsVectors } from '../wasm/heap.js';
import { wasm } from '../wasm/loader.js';
import type { NextWord } from './discrete-exact.js';
import type { RandomSource } from './random.js';

/** Words read per refill. */
const BLOCK = 256;

/** The words of one new stream of `source`, one at a time. */
export function wordsOf(source: RandomSource): NextWord {
  const stream = source.stream();
  const w: WasmExports = wasm();
  const block = Math.min(BLOCK, w.sampleChunkLength());
  let buffer = new BigUint64Array(0);
  let used = 0;
  let first = 0;
  return () => {
    if (used === buffer.length) {
      // Another draw may have used the module since: the stream is set again before each block.
      stream.begin(w);
      stream.words(w, first, block);
      buffer = new BigUint64Array(w.memory.buffer, w.randomPointer(), block).slice();
      if (holdsVectors(w)) w.scrub(block, false); // not left where a vector's view can read them
      first += block;
      used = 0;
    }
    return buffer[used++]!;
  };
}

/**
 * A uniform integer in [0, n), 1 <= n <= 2^53, by rejection from whole words (no modulo bias):
 * below 2^32, from each word's top 32 bits in double arithmetic (exact there).
 */
export function uniformBelow(next: NextWord, n: number): number {
  if (n <= 2 ** 32) {
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const top = Number(next() >> 32n);
      if (top < limit) return top % n;
    }
  }
  const m = BigInt(n);
  const limit = (1n << 64n) - ((1n << 64n) % m);
  for (;;) {
    const word = next();
    if (word < limit) return Number(word % m);
  }
}
