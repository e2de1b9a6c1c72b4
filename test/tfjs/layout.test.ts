// A step's batch (src/tfjs/layout.ts) and the clipping margin (src/tfjs/margin.ts): Poisson
// sampling at most at the accounted rate, micro-batches and their rows, and a margin that is small.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/index.js';
import { sourceOf } from '../../src/noise/random.js';
import { wordsOf } from '../../src/noise/words.js';
import { EMPTY, hostRows, microBatches, poissonBatch, takeRows } from '../../src/tfjs/layout.js';
import { clipMargin } from '../../src/tfjs/margin.js';

describe('poissonBatch', () => {
  it('takes an example when its 32-bit word is below floor(rate 2^32), never at it', () => {
    const rate = 0.01;
    const below = Math.floor(rate * 2 ** 32);
    expect(below).toBeLessThan(rate * 2 ** 32); // the word floor(rate 2^32) is below rate 2^32, and still refused
    // Each 64-bit word gives two examples their words: the high half, then the low half.
    const words = [(BigInt(below) << 32n) | BigInt(below - 1), (BigInt(below - 1) << 32n) | BigInt(below)];
    let k = 0;
    expect(Array.from(poissonBatch(4, rate, () => words[k++]!))).toEqual([1, 2]);
  });

  it('samples each example at the rate, from dpnoise randomness (seeded here)', () => {
    const rate = 0.3;
    const population = 1001;
    const next = wordsOf(sourceOf(createRng({ seed: 'poisson' })));
    const draws = 200;
    const counts = new Float64Array(population);
    let total = 0;
    for (let d = 0; d < draws; d++) {
      const batch = poissonBatch(population, rate, next);
      for (const i of batch) counts[i]!++;
      total += batch.length;
      expect(batch.every((v, i) => i === 0 || v > batch[i - 1]!)).toBe(true);
    }
    // The examples drawn over all batches are Binomial(1001 * 200, 0.3): within 5 standard deviations.
    const sd = Math.sqrt(population * draws * rate * (1 - rate));
    expect(Math.abs(total - population * draws * rate)).toBeLessThan(5 * sd);
    // Odd and even examples (low and high halves of the words) alike: each half's count within 5 standard deviations.
    const half = (parity: number) => counts.reduce((s, c, i) => (i % 2 === parity ? s + c : s), 0);
    expect(Math.abs(half(0) - 501 * draws * rate)).toBeLessThan(5 * Math.sqrt(501 * draws * rate * (1 - rate)));
    expect(Math.abs(half(1) - 500 * draws * rate)).toBeLessThan(5 * Math.sqrt(500 * draws * rate * (1 - rate)));
  });

  it('is the same batch for the same seed', () => {
    const batch = () => Array.from(poissonBatch(500, 0.1, wordsOf(sourceOf(createRng({ seed: 3 })))));
    expect(batch()).toEqual(batch());
  });
});

describe('microBatches', () => {
  it('cuts the batch in order into micro-batches of the given slots, the last padded with empty slots', () => {
    const batch = Int32Array.from([0, 2, 3, 5, 6, 7, 8, 9, 10, 19]);
    expect(microBatches(batch, 4).map((part) => Array.from(part))).toEqual([
      [0, 2, 3, 5],
      [6, 7, 8, 9],
      [10, 19, EMPTY, EMPTY],
    ]);
    expect(microBatches(batch.subarray(0, 8), 4)).toHaveLength(2);
    expect(microBatches(new Int32Array(0), 4)).toEqual([]);
  });
});

describe('takeRows', () => {
  it('copies the rows of the slots, zeros in an empty slot, keeping shape and type', () => {
    const ids = hostRows(tf.tensor3d([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [3, 2, 2], 'int32'));
    const taken = takeRows(ids, Int32Array.from([2, EMPTY, 0, 2]));
    expect(taken.dtype).toBe('int32');
    expect(taken.arraySync()).toEqual([
      [
        [9, 10],
        [11, 12],
      ],
      [
        [0, 0],
        [0, 0],
      ],
      [
        [1, 2],
        [3, 4],
      ],
      [
        [9, 10],
        [11, 12],
      ],
    ]);
  });
});

describe('the clipping margin', () => {
  it('lowers the norms by less than 1e-9 for the digits MLP and 1e-6 for an MNIST MLP', () => {
    // R = 64 + 32 + 1 terms in the first layer's norm, 4 pieces, 2 layers, 4 more.
    const digits = clipMargin({ normRoundings: 107, population: 1437 });
    expect(1 - digits).toBeGreaterThan(2 * 1437 ** 2 * 2 ** -53);
    expect(1 - digits).toBeLessThan(1e-9);
    // A 784-128-10 network on 60000 examples: the float64 sum's 2 gamma_(N+2) N dominates.
    const mnist = clipMargin({ normRoundings: 1000, population: 60000 });
    expect(1 - mnist).toBeGreaterThan(2 * 60000 ** 2 * 2 ** -53);
    expect(1 - mnist).toBeLessThan(1e-6);
    // The norm's roundings: 73728 terms (a 3x3x64x128 kernel) cost 8e-12, past the 2^-40 kept for the formula.
    const kernel = 1 - clipMargin({ normRoundings: 73728, population: 1 });
    expect(kernel).toBeGreaterThan(73728 * 2 ** -53 + 2 ** -40);
    expect(kernel).toBeLessThan(1e-11);
  });
});
