// The programs in examples/ and the demo run against the built package and exit cleanly; the
// DP-SGD training example, shortened, gets the privacy it reports.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dpsgd } from '../src/index.js';

const dir = new URL('../examples/', import.meta.url);
/** Arguments that shorten an example to a test's time. */
const ARGS: Record<string, string[]> = { 'dpsgd-digits.mjs': ['--steps', '15'] };

describe('examples', () => {
  it.each(readdirSync(dir).filter((f) => f.endsWith('.mjs')))('%s runs', (file) => {
    const output = execFileSync(process.execPath, [new URL(file, dir).pathname, ...(ARGS[file] ?? [])], { encoding: 'utf8', timeout: 60_000 });
    expect(output.length).toBeGreaterThan(100);
    expect(output).not.toMatch(/NaN|Infinity/);
  });
});

describe('DP-SGD on the digits (examples/dpsgd-digits.mjs), shortened', () => {
  it('samples a record with probability at most the rate the accountant is given', async () => {
    const example = await import(new URL('dpsgd-digits.mjs', dir).href);
    // The word floor(rate 2^32) itself, below rate 2^32 when that is not whole, must not take the record.
    const rate = 0.01;
    const word = Math.floor(rate * 2 ** 32);
    expect(word).toBeLessThan(rate * 2 ** 32);
    const real = crypto.getRandomValues.bind(crypto);
    crypto.getRandomValues = ((array: Uint32Array) => array.fill(word)) as typeof crypto.getRandomValues;
    try {
      expect(example.poissonBatch(5, rate)).toEqual([]);
    } finally {
      crypto.getRandomValues = real;
    }
  });

  it('each rule clips to its norms, draws its scales and spends at most the budget', async () => {
    const example = await import(new URL('dpsgd-digits.mjs', dir).href);
    const { epsilon, delta, rate, clipNorms } = example.SETTINGS;
    const layerSizes: number[] = example.LAYER_SIZES;
    const data = example.loadDigits();
    const steps = 30;
    const total = (noise: string) => (noise === 'gaussian' ? Math.hypot(...clipNorms) : clipNorms.reduce((a: number, b: number) => a + b, 0));
    for (const noise of ['gaussian', 'laplace']) {
      const plan = dpsgd({ layerSizes, clipNorms, batch: { rate }, steps, epsilon, delta, noise: noise as 'gaussian' });
      const accuracies: Record<string, number> = {};
      for (const rule of ['global', 'spr', 'optimal']) {
        const result = example.train({ data, plan, rule, clipNorms, rate, steps });
        // The accountant, from the scales drawn and the clipping norms, finds at most the budget.
        const spent = example.runPrivacy({ noise, scales: result.scales, clipNorms, rate, steps }).epsilon(delta);
        expect(spent).toBeLessThanOrEqual(epsilon);
        expect(spent).toBeGreaterThan(0.99 * epsilon); // and not much less: the rules are at the same privacy
        // Clipping holds: per layer to C_l, or as a whole to ||C|| (a layer may then use all of it).
        result.largest.forEach((n: number, l: number) => {
          expect(n).toBeLessThanOrEqual(rule === 'global' ? total(noise) : clipNorms[l]);
        });
        // The noise drawn has the rule's scales: standard deviation sigma_l (Gaussian) or b_l sqrt 2
        // (Laplace), within 6 standard errors (the smallest layer has n = 300 draws; the relative
        // standard error of the root mean square is sqrt((kurtosis - 1) / n) / 2: 0.041 for
        // Gaussian, 0.065 for Laplace). A rule drawing another rule's scales is off by 2x or more
        // in the small layers.
        result.noiseSd.forEach((sd: number, l: number) => {
          const expected = result.scales[l] * (noise === 'gaussian' ? 1 : Math.SQRT2);
          expect(Math.abs(sd / expected - 1)).toBeLessThan(noise === 'gaussian' ? 0.25 : 0.4);
        });
        accuracies[rule] = result.accuracy;
      }
      if (noise === 'gaussian') expect(Math.max(...Object.values(accuracies))).toBeGreaterThan(0.3); // it learns (chance is 0.1)
    }
  });
});
