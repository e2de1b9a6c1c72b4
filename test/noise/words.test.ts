// Random words for the selections drawn in JavaScript (src/noise/words.ts): a seeded source's
// words repeat from the same seed and differ between calls; uniform integers below n are uniform.
import { describe, expect, it } from 'vitest';
import { gaussianNoise } from '../../src/index.js';
import { createRng, sourceOf } from '../../src/noise/random.js';
import { uniformBelow, wordsOf } from '../../src/noise/words.js';

const take = (next: () => bigint, n: number) => Array.from({ length: n }, next);

describe('wordsOf', () => {
  it('gives the same words for the same seed, others for the next call, and is not disturbed by draws in between', () => {
    const a = createRng({ seed: 'words' });
    const b = createRng({ seed: 'words' });
    const first = wordsOf(sourceOf(a));
    const head = take(first, 300);
    gaussianNoise(1000, 1, { rng: a }); // another draw between two blocks of the stream
    const tail = take(first, 300);
    const again = wordsOf(sourceOf(b));
    expect([...take(again, 300), ...take(again, 300)]).toEqual([...head, ...tail]);
    expect(take(wordsOf(sourceOf(a)), 300)).not.toEqual(head);
    expect(new Set(head).size).toBe(300);
  });

  it('reads the CSPRNG by default', () => {
    const next = wordsOf(sourceOf(undefined));
    expect(new Set(take(next, 600)).size).toBe(600);
  });
});

describe('uniformBelow', () => {
  it('is uniform on [0, n): chi-square over 7 values, and reaches both ends of 2^53', () => {
    const next = wordsOf(sourceOf(createRng({ seed: 'uniform' })));
    const counts = new Array(7).fill(0);
    const N = 70_000;
    for (let i = 0; i < N; i++) counts[uniformBelow(next, 7)]++;
    const chi = counts.reduce((s, c) => s + (c - N / 7) ** 2 / (N / 7), 0);
    expect(chi).toBeLessThan(27.9); // 6 degrees of freedom, 1 - 1e-4
    const big = take(() => BigInt(uniformBelow(next, 2 ** 53)), 2000).map(Number);
    expect(Math.max(...big)).toBeGreaterThan(2 ** 52);
    expect(Math.min(...big)).toBeLessThan(2 ** 52);
    expect(big.every((x) => Number.isInteger(x) && x >= 0 && x < 2 ** 53)).toBe(true);
  });
});
