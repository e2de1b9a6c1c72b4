// The accountant at its edges (issue 41): small delta over many pure releases, and the routes that
// dominate sampled and allocated releases at the extremes. References: dp_accounting 0.6.0
// (scripts/accountant_edges_reference.py, test/fixtures/accountant-edges.json), and the
// dominating figures themselves (the release alone; a product rate; pure amplification).
import { describe, expect, it } from 'vitest';
import { compose, gaussianEpsilon, gaussianPrivacy, laplacePrivacy, randomAllocation, subsample } from '../../src/index.js';
import { fixture } from '../helpers.js';

interface Case {
  name: string;
  delta: number;
  pld: number;
  rdp: number;
}
const { cases } = fixture<{ cases: Case[] }>('accountant-edges.json');
const gaussianEvent = (multiplier: number) => ({ class_name: 'GaussianDpEvent', noise_multiplier: multiplier });

describe('small delta', () => {
  it.each([100, 10, 1])(
    '1000 Laplace releases of scale %s at delta 1e-10: within 10%% of dp_accounting (5.3x, 4.2x and 1.9x above it by basic composition before)',
    (scale) => {
      const reference = cases.find((c) => c.name === `1000 Laplace, scale ${scale}`)!;
      const epsilon = compose([{ privacy: laplacePrivacy({ scales: [scale], sensitivity: [1] }), times: 1000 }]).epsilon(reference.delta);
      expect(epsilon).toBeLessThanOrEqual(1.1 * reference.pld);
      expect(epsilon).toBeLessThan(1000 / scale); // basic composition's figure
      expect(epsilon).toBeGreaterThan(0.9 * reference.pld); // and not below what dp_accounting certifies
    },
  );

  it('1000 Poisson-sampled Gaussian steps (multiplier 1, rate 1e-3) at delta 1e-10: within 10% of dp_accounting (0.989 before tilting, 1.8x)', () => {
    const reference = cases.find((c) => c.name === '1000 Poisson-sampled Gaussian steps, multiplier 1, rate 1e-3')!;
    const step = subsample(gaussianPrivacy({ scales: [1], sensitivity: [1] }), { rate: 1e-3 });
    const run = compose([{ privacy: step, times: 1000 }]);
    const epsilon = run.epsilon(reference.delta);
    expect(epsilon).toBeLessThanOrEqual(1.1 * reference.pld);
    const { lower, upper } = run.bounds(reference.delta);
    expect(upper).toBeLessThanOrEqual(1.1 * reference.pld);
    expect(lower).toBeLessThanOrEqual(reference.pld); // the true value is below both upper bounds
    expect((upper - lower) / upper).toBeLessThan(0.01); // 0.37% with the floor tilted too (20% without: [0.439, 0.546])
    expect(run.delta(epsilon)).toBeLessThanOrEqual(reference.delta);
  });
});

describe("the Renyi route near the accountant's floor", () => {
  it('searches the orders between the fallback orders around its best: within 1% of compose(..., { method: "rdp" }) where the accountant cannot answer', () => {
    const step = subsample(gaussianPrivacy({ scales: [1], sensitivity: [1] }), { rate: 1e-3 });
    // 1e4 steps at delta 1e-10 read 1.888 on the 20 orders alone, 1.754 with the band; tilted, the
    // accountant now gives 0.864 there. 1e5 steps are past its work budget: the Renyi route answers.
    const run = compose([{ privacy: step, times: 1e5 }]);
    const renyi = compose([{ privacy: step, times: 1e5 }], { method: 'rdp' });
    expect(run.epsilon(1e-10)).toBeLessThan(1.01 * renyi.epsilon(1e-10)); // 2.855 against 2.841
  });
});

describe('certified ranges', () => {
  it('reach past ln of the largest double: the lower end is found in logarithms (it stopped at 709.78 before, against an upper end of 1301.18)', () => {
    const laplace = compose([{ privacy: laplacePrivacy({ scales: [0.5], sensitivity: [1] }), times: 1000 }]);
    const { lower, upper } = laplace.bounds(1e-5);
    expect(lower).toBeGreaterThan(1301);
    expect((upper - lower) / upper).toBeLessThan(1e-4);
    expect(upper).toBe(laplace.epsilon(1e-5));
  });

  it('are within 0.11% at 1e4 subsampled steps, and hold the estimate', () => {
    const run = compose([{ privacy: subsample(gaussianPrivacy({ scales: [1], sensitivity: [1] }), { rate: 0.01 }), times: 1e4 }]);
    const { lower, upper } = run.bounds(1e-5);
    expect((upper - lower) / upper).toBeLessThan(1.1e-3);
    expect(lower).toBeLessThanOrEqual(run.epsilon(1e-5));
    expect(upper).toBeGreaterThanOrEqual(run.epsilon(1e-5) * (1 - 1e-12));
  });
});

describe('dominating routes at the extremes', () => {
  const single = gaussianPrivacy({ scales: [1], sensitivity: [1] });

  it('Poisson sampling within Poisson sampling is sampling at the product of the rates (2.02 before, where the product gives 1.03)', () => {
    const nested = {
      class_name: 'PoissonSampledDpEvent',
      sampling_probability: 0.5,
      event: { class_name: 'PoissonSampledDpEvent', sampling_probability: 0.1, event: gaussianEvent(1) },
    };
    const product = { class_name: 'PoissonSampledDpEvent', sampling_probability: 0.05, event: gaussianEvent(1) };
    expect(compose([{ event: nested }]).epsilon(1e-5)).toBeCloseTo(compose([{ event: product }]).epsilon(1e-5), 9);
  });

  it('a sample of the whole population, or a random allocation over 2^53 - 1 steps or with z = 0.3, is never less private than one release', () => {
    const release = single.epsilon(1e-5);
    const whole = { class_name: 'SampledWithoutReplacementDpEvent', source_dataset_size: 100, sample_size: 100, event: gaussianEvent(1) };
    expect(compose([{ event: whole }]).epsilon(1e-5)).toBeLessThanOrEqual(release); // 4.73 before
    expect(subsample(single, { size: 100, population: 100 }).epsilon(1e-5)).toBeLessThanOrEqual(release);
    const many = { class_name: 'RandomAllocationDpEvent', num_steps: 2 ** 53 - 1, num_selected: 1, event: gaussianEvent(1) };
    expect(compose([{ event: many }]).epsilon(1e-5)).toBeLessThanOrEqual(release); // 4.753 before
    const noisy = gaussianPrivacy({ scales: [0.3], sensitivity: [1] });
    const low = { class_name: 'RandomAllocationDpEvent', num_steps: 1e6, num_selected: 1, event: gaussianEvent(0.3) };
    expect(compose([{ event: low }]).epsilon(1e-5)).toBeLessThanOrEqual(noisy.epsilon(1e-5)); // 20.4 against 19.1 before
  });

  it('random allocations composed are never less private than their releases composed (two over 2^53 - 1 steps: 7.08 before, against 6.57)', () => {
    const allocated = randomAllocation(single, { steps: 2 ** 53 - 1 });
    const releases = compose([{ privacy: single, times: 2 }]).epsilon(1e-5);
    expect(compose([{ privacy: allocated, times: 2 }]).epsilon(1e-5)).toBeLessThanOrEqual(releases);
    const mixed = compose([allocated, laplacePrivacy({ scales: [1], sensitivity: [1] })]);
    expect(mixed.epsilon(1e-5)).toBeLessThanOrEqual(compose([single, laplacePrivacy({ scales: [1], sensitivity: [1] })]).epsilon(1e-5));
    // Where the allocation itself is the smaller, it still answers.
    const few = randomAllocation(single, { steps: 100 });
    expect(compose([{ privacy: few, times: 2 }]).epsilon(1e-5)).toBeLessThan(0.5 * releases);
  });

  it('Poisson sampling of pure releases is pure: ln(1 + q (e^epsilon - 1)) at every delta (0.600 before, where it is 0.494)', () => {
    const twoLaplace = {
      class_name: 'ComposedDpEvent',
      events: [
        { class_name: 'LaplaceDpEvent', noise_multiplier: 1 },
        { class_name: 'LaplaceDpEvent', noise_multiplier: 1 },
      ],
    };
    const sampled = compose([{ event: { class_name: 'PoissonSampledDpEvent', sampling_probability: 0.1, event: twoLaplace } }]);
    const amplified = Math.log1p(0.1 * Math.expm1(2));
    for (const delta of [0, 1e-10, 1e-5]) expect(sampled.epsilon(delta)).toBeLessThanOrEqual(amplified * (1 + 1e-12));
    expect(sampled.epsilon(0)).toBeGreaterThan(amplified * (1 - 1e-12));
  });

  it('Poisson sampling at 1e-300 leaves almost nothing: delta at most the rate at every epsilon', () => {
    const tiny = compose([{ event: { class_name: 'PoissonSampledDpEvent', sampling_probability: 1e-300, event: gaussianEvent(1) } }]);
    expect(tiny.delta(1)).toBeLessThanOrEqual(1e-300);
    expect(tiny.delta(0)).toBeLessThanOrEqual(1e-300);
    expect(tiny.epsilon(1e-5)).toBe(0);
  });
});

describe('large privacy losses', () => {
  // A Gaussian release's exact epsilon(delta) is a lower bound for any composition that holds it.
  // An accountant whose first grid widened with the loss (a step of 2^k, k up to 400) placed that
  // loss at (lower + k) h with lower beyond 2^53: mu 2.6e120 with a Laplace release certified
  // 2.07e180 where the Gaussian alone is 3.33e240. Where the grid cannot hold a loss, the other
  // routes answer.
  it('a composition certifies at least its Gaussian part, mu from 1 to 1000 and at 2.6e120', () => {
    for (const mu of [1, 30, 150, 400, 1000, 2.6e120]) {
      const gaussian = gaussianPrivacy({ scales: [1 / mu], sensitivity: [1] });
      const both = compose([laplacePrivacy({ scales: [1 / mu], sensitivity: [1] }), gaussian]);
      for (const delta of [1e-10, 1e-3]) {
        const alone = mu <= 1000 ? gaussianEpsilon(mu, delta) : gaussian.epsilon(delta);
        expect(both.epsilon(delta), `mu ${mu} delta ${delta}`).toBeGreaterThanOrEqual(alone * (1 - 1e-9));
        expect(both.bounds(delta).upper, `mu ${mu} delta ${delta}`).toBeGreaterThanOrEqual(alone * (1 - 1e-9));
      }
    }
  });
});
