// The programs in examples/ and the demo run against the built package and exit cleanly; the
// DP-SGD training example, shortened, spends the privacy it reports.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('../examples/', import.meta.url);
/** Arguments that shorten an example to a test's time. */
const ARGS: Record<string, string[]> = { 'dpsgd-digits.mjs': ['--epochs', '1'] };

describe('examples', () => {
  it.each(readdirSync(dir).filter((f) => f.endsWith('.mjs')))('%s runs', (file) => {
    const output = execFileSync(process.execPath, [new URL(file, dir).pathname, ...(ARGS[file] ?? [])], { encoding: 'utf8', timeout: 60_000 });
    expect(output.length).toBeGreaterThan(100);
    expect(output).not.toMatch(/NaN|Infinity/);
  });
});

describe('DP-SGD on the digits through dpnoise/tfjs (examples/dpsgd-digits.mjs), shortened', () => {
  it('spends at most the budget, and not much less, and learns', async () => {
    const example = await import(new URL('dpsgd-digits.mjs', dir).href);
    const tf = await import('@tensorflow/tfjs');
    tf.enableProdMode();
    await tf.setBackend('cpu');
    const { epsilon, delta } = example.SETTINGS;
    const data = example.loadDigits();
    for (const [noise, rule] of [
      ['gaussian', 'optimal'],
      ['laplace', 'global'],
    ]) {
      const { run, accuracy } = await example.trainDigits({ data, rule, noise, epochs: 3 });
      // The accountant's epsilon for the 18 steps taken: the whole budget, less the search's 0.1% gap on z.
      expect(run.stepsTaken).toBe(18);
      expect(run.privacy.epsilon(delta)).toBeLessThanOrEqual(epsilon);
      expect(run.privacy.epsilon(delta)).toBeGreaterThan(0.99 * epsilon);
      if (noise === 'gaussian') expect(accuracy).toBeGreaterThan(0.3); // chance is 0.1
    }
  });
});
