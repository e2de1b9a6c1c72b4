// One step's batch: Poisson sampling from dpnoise's random source, and the slots the batch takes
// in tfjs's fixed-shape micro-batches.
import type { NextWord } from '../noise/discrete-exact.js';

/**
 * The indices of a Poisson batch of `population` examples, ascending: example i is in when its
 * 32-bit word is below floor(rate 2^32), so with probability at most `rate`, the rate the
 * accountant is given. Each 64-bit word of `next` gives two examples their words.
 */
export function poissonBatch(population: number, rate: number, next: NextWord): Int32Array {
  const below = Math.floor(rate * 2 ** 32);
  const chosen = new Int32Array(population);
  let count = 0;
  for (let i = 0; i < population; i += 2) {
    const word = next();
    if (Number(word >> 32n) < below) chosen[count++] = i;
    if (i + 1 < population && Number(word & 0xffffffffn) < below) chosen[count++] = i + 1;
  }
  return chosen.slice(0, count);
}

/** Marks an empty slot. */
export const EMPTY = -1;

/** The batch in micro-batches of `slots` slots each, the last padded with EMPTY; none for an empty batch. */
export function microBatches(batch: Int32Array, slots: number): Int32Array[] {
  const parts: Int32Array[] = [];
  for (let start = 0; start < batch.length; start += slots) {
    const part = new Int32Array(slots).fill(EMPTY);
    part.set(batch.subarray(start, start + slots));
    parts.push(part);
  }
  return parts;
}
