// The empirical audit (test/audit.ts) run against the mechanisms: the estimated delta(eps) is
// never above the claimed profile beyond 5 standard errors, matches it where the analysis is
// tight, and catches noise 5% too small.
import { describe, expect, it } from 'vitest';
import { calibrateGaussian, calibrateLaplace, correlatedSum, createRng, gaussianDelta, gaussianNoise, laplaceNoise } from '../../src/index.js';
import { estimateDelta, gaussianLosses, laplaceLosses } from '../audit.js';

const RELEASES = 1_000_000;
const EPSILONS = [0, 0.25, 0.5, 1, 1.5];

/** Repeats per-coordinate scales for `releases` releases of K coordinates. */
function tiled(scales: ArrayLike<number>, releases: number): Float64Array {
  const out = new Float64Array(scales.length * releases);
  for (let r = 0; r < releases; r++) out.set(Array.from(scales), r * scales.length);
  return out;
}

describe('empirical privacy audit (1e6 releases per mechanism)', () => {
  it('non-identical Gaussian noise: delta(eps) as claimed, and tight at the box corner', () => {
    const sensitivity = [0.1, 0.3, 0.5, 1, 2, 0.05, 0.8, 1.5, 0.2, 0.6];
    const g = calibrateGaussian({ sensitivity, epsilon: 0.5, delta: 0.05 });
    const noise = gaussianNoise(sensitivity.length * RELEASES, tiled(g.scales, RELEASES), { rng: createRng({ seed: 'audit-gaussian' }) });
    const losses = gaussianLosses(noise, g.scales, sensitivity); // D' moves every coordinate by lambda_i
    for (const eps of EPSILONS) {
      const claim = gaussianDelta(g.mu, eps);
      const { delta, se } = estimateDelta(losses, eps);
      // Statistical: 5 standard errors of the estimate (plus an absolute 1e-9 in the two-sided check).
      expect(delta - 5 * se, `eps ${eps}: estimate ${delta} against claim ${claim}`).toBeLessThanOrEqual(claim);
      expect(Math.abs(delta - claim), `eps ${eps}: tight`).toBeLessThan(5 * se + 1e-9);
    }
    // Power: the same draws with every scale 5% too small break the claim.
    const shrunk = Array.from(g.scales, (s) => s * 0.95);
    const under = gaussianLosses(
      noise.map((x) => x * 0.95),
      shrunk,
      sensitivity,
    );
    const { delta, se } = estimateDelta(under, 0.5);
    expect(delta - 5 * se).toBeGreaterThan(gaussianDelta(g.mu, 0.5));
  });

  it('non-identical Laplace noise: pure epsilon-DP (no loss above epsilon), tight in its losses', () => {
    const sensitivity = [0.1, 0.3, 0.5, 1, 2];
    const epsilon = 1;
    const l = calibrateLaplace({ sensitivity, epsilon });
    const noise = laplaceNoise(sensitivity.length * RELEASES, tiled(l.scales, RELEASES), { rng: createRng({ seed: 'audit-laplace' }) });
    const losses = laplaceLosses(noise, l.scales, sensitivity);
    const worst = losses.reduce((m, L) => Math.max(m, L), -Infinity);
    expect(worst).toBeLessThanOrEqual(epsilon);
    expect(worst).toBeGreaterThan(epsilon * 0.999); // the bound is attained (statistical: the largest of 1e6 losses within 0.1%)
    expect(estimateDelta(losses, epsilon).delta).toBe(0);
    // Power: scales 5% too small give losses above epsilon.
    const under = laplaceLosses(
      noise.map((x) => x * 0.95),
      Array.from(l.scales, (s) => s * 0.95),
      sensitivity,
    );
    expect(estimateDelta(under, epsilon).delta).toBeGreaterThan(0.001);
  });

  it('correlated sums: the joint output is exactly mu-GDP for a vertex record', () => {
    const d = 4;
    const m = correlatedSum({ dimension: d, epsilon: 0.5, delta: 0.05, mode: 'continuous' });
    const rng = createRng({ seed: 'audit-correlated' });
    const releases = 200_000;
    // Neighbour D' adds a record at the vertex (1, 0, 1, 0): sums shift by x, the count by 1.
    const x = [1, 0, 1, 0];
    const losses = new Float64Array(releases);
    const zero = new Float64Array(d);
    for (let r = 0; r < releases; r++) {
      const { sums, count } = m.release(zero, 0, { rng });
      // Whiten: the shared standard normal is count / countScale; each sum's independent part is the rest.
      const eta = count! / m.countScale;
      let L = 0;
      for (let j = 0; j < d; j++) {
        const z = (sums[j]! - m.sharedScale * eta) / m.independentScale;
        const shift = (x[j]! - m.sharedScale * (1 / m.countScale)) / m.independentScale;
        L += ((z - shift) ** 2 - z * z) / 2;
      }
      L += ((eta - 1 / m.countScale) ** 2 - eta * eta) / 2;
      losses[r] = L;
    }
    for (const eps of EPSILONS) {
      const claim = gaussianDelta(m.mu, eps);
      const { delta, se } = estimateDelta(losses, eps);
      // Statistical: 5 standard errors (plus an absolute 1e-9 in the two-sided check).
      expect(delta - 5 * se).toBeLessThanOrEqual(claim);
      expect(Math.abs(delta - claim)).toBeLessThan(5 * se + 1e-9);
    }
  });
});
