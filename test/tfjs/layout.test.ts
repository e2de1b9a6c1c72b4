// A step's batch (src/tfjs/layout.ts) and the clipping margin (src/tfjs/margin.ts): Poisson
// sampling at most at the accounted rate, chunks that never mix blocks, and a margin that is small.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/index.js';
import { sourceOf } from '../../src/noise/random.js';
import { wordsOf } from '../../src/noise/words.js';
import { chunkLayout, EMPTY, poissonBatch } from '../../src/tfjs/layout.js';
import { clipMargin, float32Below } from '../../src/tfjs/margin.js';

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

describe('chunkLayout', () => {
  const chunksOf = (slots: Int32Array, m: number) => Array.from({ length: slots.length / m }, (_, c) => Array.from(slots.subarray(c * m, (c + 1) * m)));

  it('lays each block out in order, m to a chunk, padded with empty slots, never two blocks in a chunk', () => {
    const batch = Int32Array.from([0, 2, 3, 5, 6, 7, 8, 9, 10, 19, 20, 31]);
    const slots = chunkLayout(batch, 10, 4);
    expect(chunksOf(slots, 4)).toEqual([
      [0, 2, 3, 5],
      [6, 7, 8, 9],
      [10, 19, EMPTY, EMPTY],
      [20, EMPTY, EMPTY, EMPTY],
      [31, EMPTY, EMPTY, EMPTY],
    ]);
    expect(Array.from(chunkLayout(new Int32Array(0), 10, 4))).toEqual([]);
  });

  it('changes only the chunks of its block when an example is removed', () => {
    const batch = Int32Array.from({ length: 60 }, (_, i) => 3 * i + (i % 2));
    const key = (chunks: number[][]) => chunks.map((c) => c.join(',')).sort();
    const all = chunksOf(chunkLayout(batch, 16, 4), 4);
    for (const removed of batch) {
      const rest = chunksOf(
        chunkLayout(
          batch.filter((i) => i !== removed),
          16,
          4,
        ),
        4,
      );
      const block = Math.floor(removed / 16);
      const outside = (chunks: number[][]) => key(chunks.filter((c) => Math.floor(c[0]! / 16) !== block));
      expect(outside(rest)).toEqual(outside(all));
    }
  });
});

describe('the clipping margin', () => {
  it('is a small lowering of the norms: 0.007% for the digits MLP, 0.27% for an MNIST MLP at rate 256/60000', () => {
    // R = 64 + 32 + 1 terms in the first layer's norm, 4 pieces, 2 layers, 4 more.
    const digits = clipMargin({ normRoundings: 107, chunk: 4, block: Math.ceil(16 / (256 / 1437)), population: 1437 });
    expect(1 - digits).toBeGreaterThan(0);
    expect(1 - digits).toBeLessThan(1e-4);
    // A 784-128-10 network: R about 1000; its 235 blocks of 3750 examples dominate.
    const mnist = clipMargin({ normRoundings: 1000, chunk: 4, block: Math.ceil(16 / (256 / 60000)), population: 60000 });
    expect(1 - mnist).toBeLessThan(3e-3);
    // The norm's roundings alone grow with the longest reduction: 73728 terms (a 3x3x64x128 kernel) cost 0.44%.
    expect(1 - clipMargin({ normRoundings: 73728, chunk: 4, block: 1, population: 1 })).toBeLessThan(5e-3);
  });

  it('float32Below gives the largest float32 at most its argument', () => {
    for (const x of [0.5, 0.1, 1 / 3, 2 ** -40, 1e10, Math.SQRT1_2]) {
      const f = float32Below(x);
      expect(Math.fround(f)).toBe(f);
      expect(f).toBeLessThanOrEqual(x);
      const next = new Float32Array([f]);
      new Uint32Array(next.buffer)[0]! += 1;
      expect(next[0]!).toBeGreaterThan(x);
    }
  });
});
