// Permute-and-flip (src/mechanisms/select.ts) and its exact coins (src/noise/discrete-exact.ts,
// bernoulliExp): the law it draws, with the power to see a wrong rate, coins decided as the exact
// comparison decides them, and a pass that always ends.
import { describe, expect, it } from 'vitest';
import { permuteAndFlip } from '../../src/mechanisms/select.js';
import { bernoulliExp, type NextWord, ratioOf } from '../../src/noise/discrete-exact.js';
import { createRng, sourceOf } from '../../src/noise/random.js';
import { wordsOf } from '../../src/noise/words.js';
import { lcg } from '../helpers.js';

/** Permute-and-flip's law: over every order of the candidates, the chance that r is the first whose coin lands. */
function law(distances: number[], rate: number): number[] {
  const best = Math.min(...distances);
  const accept = distances.map((d) => Math.exp(-(d - best) * rate));
  const p = distances.map(() => 0);
  const orders = (rest: number[]): number[][] =>
    rest.length === 0 ? [[]] : rest.flatMap((r, i) => orders(rest.filter((_, j) => j !== i)).map((o) => [r, ...o]));
  const all = orders(distances.map((_, i) => i));
  for (const order of all) {
    let none = 1;
    for (const r of order) {
      p[r]! += (none * accept[r]!) / all.length;
      none *= 1 - accept[r]!;
    }
  }
  return p;
}

/** Pearson's statistic of counts against a law. */
const chiSquare = (counts: number[], p: number[], n: number) => counts.reduce((s, c, i) => s + (c - n * p[i]!) ** 2 / (n * p[i]!), 0);

/** A source of the given words, then of `more`. */
function replay(words: bigint[], more: NextWord): NextWord {
  let i = 0;
  return () => (i < words.length ? words[i++]! : more());
}

describe('permuteAndFlip', () => {
  // Three degrees of freedom: 21.1 is the 1 - 1e-4 quantile of chi-square.
  const CRITICAL = 21.1;
  const distances = [0, 1, 2, 5];
  const N = 20_000;
  const counts = (() => {
    const next = wordsOf(sourceOf(createRng({ seed: 'permute-and-flip' })));
    const c = [0, 0, 0, 0];
    // Distances in halves (times 2), at rate 1/4 per half: exponents (d - d_min) / 2.
    for (let i = 0; i < N; i++)
      c[
        permuteAndFlip(
          distances.map((d) => BigInt(2 * d)),
          { n: 1n, d: 4n },
          next,
        )
      ]!++;
    return c;
  })();

  it("draws permute-and-flip's law, and the test sees a rate 30% off", () => {
    expect(chiSquare(counts, law(distances, 0.5), N)).toBeLessThan(CRITICAL);
    expect(chiSquare(counts, law(distances, 0.65), N)).toBeGreaterThan(CRITICAL);
  });

  it('does the same work whichever candidate lands: every coin is drawn (words counted, two very different score sets)', () => {
    const counted = () => {
      const words = wordsOf(sourceOf(createRng({ seed: 'work' })));
      let used = 0;
      return {
        next: () => {
          used++;
          return words();
        },
        used: () => used,
      };
    };
    const peaked = counted();
    const flat = counted();
    const near = Array.from({ length: 500 }, (_, i) => BigInt(i === 250 ? 0 : 1000 + i));
    const far = Array.from({ length: 500 }, (_, i) => BigInt(i % 3));
    permuteAndFlip(near, { n: 1n, d: 2n }, peaked.next);
    permuteAndFlip(far, { n: 1n, d: 2n }, flat.next);
    expect(peaked.used()).toBe(flat.used());
    expect(peaked.used()).toBeGreaterThanOrEqual(2 * 500); // a word for each place in the order and each coin
  });

  it('picks a best candidate when the rate is huge, and the only one there is', () => {
    const next = wordsOf(sourceOf(createRng({ seed: 1 })));
    for (let i = 0; i < 200; i++) expect(permuteAndFlip([7n, 3n, 9n, 3n, 4n], ratioOf(1e300), next)).toSatisfy((r: number) => r === 1 || r === 3);
    expect(permuteAndFlip([5n], ratioOf(1), next)).toBe(0);
  });
});

describe('bernoulliExp', () => {
  it('decides every coin as the exact comparison does, near its threshold and far from it', () => {
    const random = lcg(11);
    const more = wordsOf(sourceOf(createRng({ seed: 'coins' })));
    let near = 0;
    for (let i = 0; i < 3000; i++) {
      const x = ratioOf(i % 3 === 0 ? random() * 40 : random() * 2);
      const approximate = Number(x.n) / Number(x.d);
      const threshold = BigInt(Math.floor(Math.exp(-approximate) * 2 ** 64));
      // A third of the words within 2^-40 of the threshold, where doubles cannot decide.
      const word = i % 3 === 1 ? threshold + BigInt(Math.floor((random() - 0.5) * 2 ** 24)) : BigInt(Math.floor(random() * 2 ** 53)) << 11n;
      if (i % 3 === 1) near++;
      const extension = [more(), more(), more()];
      const fast = bernoulliExp(x, replay([word, ...extension], more), approximate);
      const exact = bernoulliExp(x, replay([word, ...extension], more));
      expect(fast, `x ${approximate}, word ${word}`).toBe(exact);
    }
    expect(near).toBe(1000);
  });

  it('lands with probability exp(-x): 10^5 coins at x = ln 2 within 4 sd of one half', () => {
    const next = wordsOf(sourceOf(createRng({ seed: 'half' })));
    const x = ratioOf(Math.LN2);
    let heads = 0;
    for (let i = 0; i < 100_000; i++) if (bernoulliExp(x, next, Math.LN2)) heads++;
    // exp(-ln 2 rounded) is one half to 1e-16; sd of the count 158.
    expect(Math.abs(heads - 50_000)).toBeLessThan(4 * 158);
  });
});
