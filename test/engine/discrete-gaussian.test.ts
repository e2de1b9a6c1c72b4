import { describe, expect, it } from 'vitest';
import { discreteGaussianEvents } from '../../src/engine/discrete-gaussian.js';
import { gaussianDelta } from '../../src/index.js';
import { fixture } from '../helpers.js';

const fallback = { type: 'zcdp', rho: 1 } as const;

describe('discrete Gaussian noise between two continuous Gaussians', () => {
  const reference = fixture('discrete-gaussian.json') as { exact: { sigma: number; sensitivity: number; epsilon: number; delta: number }[] };

  it('the exact discrete curve (mpmath sums) lies between the Gaussian curves at d / sqrt(sigma^2 +- 16)', () => {
    for (const { sigma, sensitivity: d, epsilon, delta } of reference.exact) {
      const events = discreteGaussianEvents(Float64Array.of(d), () => sigma, fallback)!;
      const above = gaussianDelta(events.upper.event.type === 'gaussian' ? events.upper.event.mu : Number.NaN, epsilon);
      const below = gaussianDelta(events.lower.event.type === 'gaussian' ? events.lower.event.mu : Number.NaN, epsilon);
      const where = `sigma ${sigma} d ${d} eps ${epsilon}`;
      expect(delta, where).toBeLessThanOrEqual(above);
      expect(delta, where).toBeGreaterThanOrEqual(below);
      // Power: the same sigma without tau (the continuous curve at d / sigma) is neither bound.
      expect(Math.abs(gaussianDelta(d / sigma, epsilon) / delta - 1), where).toBeLessThan(0.2);
    }
  });

  it('the distances bracket d / sigma by the tau^2 / sigma^2 the comparison costs, and need 8 steps of noise', () => {
    const steps = Float64Array.from([3, 0, 40]);
    const scales = [10, 0.5, 200]; // the zero-sensitivity coordinate's scale does not matter
    const events = discreteGaussianEvents(steps, (i) => scales[i]!, fallback)!;
    const exact = Math.hypot(3 / 10, 40 / 200);
    const upper = Math.hypot(3 / Math.sqrt(84), 40 / Math.sqrt(200 ** 2 - 16));
    const lower = Math.hypot(3 / Math.sqrt(116), 40 / Math.sqrt(200 ** 2 + 16));
    expect(events.mu).toBeGreaterThanOrEqual(upper);
    expect(events.mu / upper - 1).toBeLessThan(1e-14);
    expect(events.lower.event.type === 'gaussian' && events.lower.event.mu).toBeLessThanOrEqual(lower);
    expect(lower).toBeLessThan(exact);
    expect(exact).toBeLessThan(upper);
    expect(events.upper.fallback).toBe(fallback);
    // The slacks: 2^53 ln((1 + eta) / (1 - eta)) with eta = 2 e^(-2 pi^2 tau^2 k) (k = 1 upper, 1/2 lower), and the next terms far smaller.
    const slack = (k: number) => 2 ** 53 * 4.0001 * Math.exp(-2 * Math.PI ** 2 * 16 * k);
    expect(events.upper.slack).toBeGreaterThanOrEqual(slack(1));
    expect(events.lower.slack).toBeGreaterThanOrEqual(slack(0.5));
    expect(events.lower.slack).toBeLessThan(1e-50); // and negligible
    expect(discreteGaussianEvents(steps, (i) => (i === 0 ? 7.99 : 100), fallback)).toBeUndefined();
  });
});
