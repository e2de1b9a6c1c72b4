// Histograms consistent with their count (docs/aggregates.md, "Consistent histograms"): the fit
// adds up exactly, its standard deviations are those of its noise (2e5 simulated releases), its
// Gaussian intervals cover at their level with the power to see one 10% too narrow, and
// aggregate releases it, with Laplace intervals that hold the raw ones.
import { describe, expect, it } from 'vitest';
import { aggregate } from '../../src/aggregate/index.js';
import { consistent } from '../../src/aggregate/consistent.js';
import { widthPerSd } from '../../src/aggregate/accuracy.js';
import { createRng, gaussianNoise } from '../../src/index.js';

const DRAWS = 200_000;
/** True counts: a group of 500 rows in two histograms, of 4 and 7 bins. */
const truth = {
  count: 500,
  histograms: [
    [200, 150, 100, 50],
    [10, 40, 90, 120, 110, 80, 50],
  ],
};
const sds = { count: 3, histograms: [2, 5] };

describe('consistent', () => {
  // Every coordinate's noise, drawn at once: the count's, then each histogram's bins.
  const coordinates = 1 + truth.histograms.reduce((n, h) => n + h.length, 0);
  const noise = gaussianNoise(DRAWS * coordinates, 1, { rng: createRng({ seed: 'consistent' }) });
  const releases = Array.from({ length: DRAWS }, (_, d) => {
    let at = d * coordinates;
    const count = { value: truth.count + sds.count * noise[at++]!, sd: sds.count };
    const histograms = truth.histograms.map((bins, h) => ({ values: bins.map((b) => b + sds.histograms[h]! * noise[at++]!), sd: sds.histograms[h]! }));
    return { count, histograms, fitted: consistent(count, histograms) };
  });

  it('adds up: every histogram sums to the count, to rounding', () => {
    for (const { fitted } of releases.slice(0, 1000)) {
      for (const h of fitted.histograms) expect(Math.abs(h.values.reduce((a, b) => a + b, 0) - fitted.count.value)).toBeLessThan(1e-9);
    }
  });

  it('reports the standard deviation of its noise (within 1% over 2e5 releases), below the raw ones', () => {
    const empirical = (error: (r: (typeof releases)[number]) => number) => Math.sqrt(releases.reduce((s, r) => s + error(r) ** 2, 0) / DRAWS);
    const { fitted } = releases[0]!;
    expect(empirical((r) => r.fitted.count.value - truth.count) / fitted.count.sd).toBeCloseTo(1, 1);
    expect(Math.abs(empirical((r) => r.fitted.count.value - truth.count) / fitted.count.sd - 1)).toBeLessThan(0.01);
    expect(fitted.count.sd).toBeLessThan(sds.count);
    truth.histograms.forEach((bins, h) => {
      bins.forEach((b, k) => {
        const ratio = empirical((r) => r.fitted.histograms[h]!.values[k]! - b) / fitted.histograms[h]!.sd[k]!;
        expect(Math.abs(ratio - 1)).toBeLessThan(0.01);
      });
      expect(fitted.histograms[h]!.sd[0]).toBeLessThan(sds.histograms[h]!);
    });
  });

  it('its Gaussian intervals cover at 95% (within 0.4%), where intervals 10% too narrow cover 92.2%', () => {
    const width = widthPerSd('gaussian', 0.95);
    let [covered, narrow, cells] = [0, 0, 0];
    for (const { fitted } of releases) {
      truth.histograms.forEach((bins, h) => {
        bins.forEach((b, k) => {
          const error = Math.abs(fitted.histograms[h]!.values[k]! - b) / fitted.histograms[h]!.sd[k]!;
          if (error <= width) covered++;
          if (error <= 0.9 * width) narrow++;
          cells++;
        });
      });
    }
    expect(Math.abs(covered / cells - 0.95)).toBeLessThan(0.004);
    expect(narrow / cells).toBeLessThan(0.94);
  });
});

describe('aggregate with consistent', () => {
  const rows = Array.from({ length: 4000 }, (_, i) => ({ g: i % 4, age: (i * 37) % 100 }));
  const options = {
    table: rows,
    groupBy: 'g',
    groups: [0, 1, 2, 3],
    count: true as const,
    histogram: { age: { bins: [0, 25, 50, 75, 100] } },
    consistent: true,
  };

  it('releases histograms that add up to the count, with Gaussian noise and with Laplace noise', async () => {
    for (const privacy of [
      { epsilon: 1, delta: 1e-6 },
      { epsilon: 1 }, // Laplace: pure epsilon
    ]) {
      const r = await aggregate({ ...options, ...privacy, rng: createRng({ seed: 'fit' }) });
      const raw = await aggregate({ ...options, ...privacy, consistent: false, rng: createRng({ seed: 'fit' }) });
      r.rows.forEach((row, g) => {
        const bins = row['histogram(age)'];
        const sum = bins.reduce((s, b) => s + b.value, 0);
        expect(Math.abs(sum - row.count.value)).toBeLessThan(1e-9);
        expect(row.count.sd).toBeLessThan(raw.rows[g]!.count.sd!);
        bins.forEach((b, k) => {
          expect(b.low).toBeLessThanOrEqual(b.value);
          expect(b.high).toBeGreaterThanOrEqual(b.value);
          // Laplace: the raw interval, widened to hold the fitted value.
          if (!('delta' in privacy)) expect(b.low).toBeLessThanOrEqual(raw.rows[g]!['histogram(age)'][k]!.low);
        });
      });
    }
  });

  it('needs a count', async () => {
    await expect(aggregate({ ...options, epsilon: 1, count: false })).rejects.toThrow(
      'dpnoise: `consistent` makes histograms add up to the count, so it needs `count: true`.',
    );
  });
});
