// One step's batch: Poisson sampling from dpnoise's random source, and the slots the batch takes
// in tfjs's fixed-shape micro-batches, in chunks of m slots that never mix two blocks of the
// dataset (docs/training.md, "Rounding": with one example more or less, only the chunks of its
// block change).
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

/**
 * The slots of a batch (ascending indices): for each block of `block` consecutive dataset indices,
 * its examples in order, `chunk` to a chunk, each chunk padded with EMPTY to `chunk` slots.
 */
export function chunkLayout(batch: Int32Array, block: number, chunk: number): Int32Array {
  const slots: number[] = [];
  let current = -1;
  for (const index of batch) {
    const owner = Math.floor(index / block);
    if (owner !== current || slots.length % chunk === 0) {
      while (slots.length % chunk !== 0) slots.push(EMPTY);
      current = owner;
    }
    slots.push(index);
  }
  while (slots.length % chunk !== 0) slots.push(EMPTY);
  return Int32Array.from(slots);
}
