// One step's batch: Poisson sampling from dpnoise's random source, the slots the batch takes in
// tfjs's fixed-shape micro-batches, and their rows, copied from the examples read once per run
// (tf.gather copies entry by entry on the cpu backend, 15 times slower for the digits).
import * as tf from '@tensorflow/tfjs';
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

/** A tensor's values read once, to copy rows (first-axis entries) from. */
export interface HostRows {
  readonly values: tf.TypedArray;
  readonly shape: readonly number[];
  readonly dtype: tf.DataType;
}

/** The tensor's values (on the cpu backend, its own array: nothing here writes to it). */
export function hostRows(t: tf.Tensor): HostRows {
  return { values: t.dataSync() as tf.TypedArray, shape: t.shape, dtype: t.dtype };
}

/** A micro-batch's rows: row i of `slots` is row slots[i] of `rows`, and zeros for an empty slot. */
export function takeRows(rows: HostRows, slots: Int32Array): tf.Tensor {
  const width = rows.values.length / rows.shape[0]!;
  const values = new (rows.values.constructor as new (n: number) => tf.TypedArray)(slots.length * width);
  const from = rows.values;
  for (let i = 0; i < slots.length; i++) {
    const start = slots[i]! * width;
    if (slots[i] !== EMPTY) for (let k = 0; k < width; k++) values[i * width + k] = from[start + k]!;
  }
  return tf.tensor(values, [slots.length, ...rows.shape.slice(1)], rows.dtype);
}
