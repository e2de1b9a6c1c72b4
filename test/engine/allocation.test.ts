import { describe, expect, it } from 'vitest';
import { compose, gaussianPrivacy, laplacePrivacy, randomAllocation, subsample } from '../../src/index.js';
import { allocationFloor, allocationPmf } from '../../src/engine/allocation.js';
import { floorDelta, pmfDelta } from '../../src/engine/pld.js';
import { wasm } from '../../src/wasm/loader.js';
import { fixture } from '../helpers.js';

/** scripts/allocation_reference.py: epsilon(delta) of t allocated Gaussian steps by numerical integration. */
interface Case {
  z: number;
  steps: number;
  delta: number;
  epsilon: number;
  removeDelta: number;
  addDelta: number;
}
const { cases } = fixture<{ cases: Case[] }>('allocation.json');
const gaussian = (z: number) => gaussianPrivacy({ scales: z, sensitivity: [1] });
// The z = 1 cases take about 10 s each (long lognormal tails on a fine grid): one of them runs.
const run = cases.filter((c) => c.z === 2 || (c.steps === 3 && c.delta === 1e-5));

describe('randomAllocation', () => {
  it.each(run.map((c) => [`z ${c.z}, ${c.steps} steps, delta ${c.delta}`, c] as const))(
    '%s: epsilon at most 0.2% above the integrated value, never below it, and the certified range holds it',
    (_, c) => {
      const p = randomAllocation(gaussian(c.z), { steps: c.steps });
      const epsilon = p.epsilon(c.delta);
      expect(epsilon).toBeGreaterThanOrEqual(c.epsilon);
      expect(epsilon).toBeLessThanOrEqual(c.epsilon * 1.002);
      const { lower, upper } = p.bounds(c.delta);
      expect(lower).toBeLessThanOrEqual(c.epsilon);
      expect(upper).toBeGreaterThanOrEqual(c.epsilon);
      expect(upper - lower).toBeLessThanOrEqual(0.01 * upper);
      // delta(epsilon) at the integrated epsilon: at least the integrated delta, within 2%.
      const delta = p.delta(c.epsilon);
      expect(delta).toBeGreaterThanOrEqual(c.delta);
      expect(delta).toBeLessThanOrEqual(c.delta * 1.02);
    },
    60_000,
  );

  it('both directions bracket the integrated deltas on a coarse grid: the pessimistic masses above, the floor pair below', () => {
    const c = cases.find((x) => x.z === 2 && x.steps === 3 && x.delta === 1e-5)!;
    const h = 2 ** -7;
    for (const [direction, reference] of [
      [0, c.removeDelta],
      [1, c.addDelta],
    ] as const) {
      const upper = pmfDelta(allocationPmf(0.5, 3, direction, h), h, c.epsilon);
      const lower = floorDelta(allocationFloor(0.5, 3, direction, h), h, c.epsilon);
      expect(upper).toBeGreaterThanOrEqual(reference);
      expect(lower).toBeLessThanOrEqual(reference);
      // The bracket has power: on this grid both ends are within 30% of the value.
      expect(upper).toBeLessThan(1.3 * reference);
      expect(lower).toBeGreaterThan(0.7 * reference);
    }
  });

  it('amplifies: less than the release itself and, at 10 steps, less than Poisson batches at rate 1/10 for one epoch', () => {
    const release = gaussian(2);
    const epoch = randomAllocation(release, { steps: 10 });
    const poisson = compose([{ privacy: subsample(release, { rate: 0.1 }), times: 10 }]);
    expect(epoch.epsilon(1e-5)).toBeLessThan(poisson.epsilon(1e-5));
    expect(poisson.epsilon(1e-5)).toBeLessThan(release.epsilon(1e-5) * 2);
    expect(epoch.epsilon(1e-5)).toBeLessThan(release.epsilon(1e-5));
  });

  it('composes over epochs, and its Renyi curve is the release its own (no amplification claimed there)', () => {
    const epoch = randomAllocation(gaussian(2), { steps: 10 });
    const three = compose([{ privacy: epoch, times: 3 }]);
    expect(three.epsilon(1e-5)).toBeGreaterThan(epoch.epsilon(1e-5));
    expect(three.epsilon(1e-5)).toBeLessThan(3 * epoch.epsilon(1e-5));
    expect(epoch.rdp?.(8)).toBe(gaussian(2).rdp?.(8));
  });

  it('never reports more than one release would: where the grids would take more than a build may (z 0.3, z 0.6), the figure of the release itself', () => {
    for (const z of [0.3, 0.6]) {
      const release = gaussian(z);
      expect(randomAllocation(release, { steps: 10 }).epsilon(1e-5)).toBe(release.epsilon(1e-5));
    }
  });

  it('fails closed at the extremes of the noise: never NaN, Infinity where the loss overflows', () => {
    for (const scales of [1e-200, 1e-20, 0.05, 1e20, 1e200]) {
      const p = randomAllocation(gaussianPrivacy({ scales, sensitivity: [1] }), { steps: 7 });
      const figures = [p.epsilon(1e-5), p.delta(1), p.delta(0), p.bounds(1e-5).lower, p.bounds(1e-5).upper];
      expect(
        figures.every((x) => x >= 0),
        `scales ${scales}: ${figures}`,
      ).toBe(true);
    }
    // A lognormal term far in a tail has mass 0, not NaN (normalMass of two tails that underflow).
    expect(wasm().lognormalMass(0, 1e-200, 0.025, 0.05)).toBe(0);
  });

  it('at a small noise multiplier (z 0.8), where only narrower tails fit the grid, still amplifies, inside its certified range', () => {
    const release = gaussian(0.8);
    const epoch = randomAllocation(release, { steps: 10 });
    const epsilon = epoch.epsilon(1e-5);
    expect(epsilon).toBeLessThan(0.75 * release.epsilon(1e-5)); // 3.43 against 5.68
    const { lower, upper } = epoch.bounds(1e-5);
    expect(lower).toBeGreaterThan(0);
    expect(lower).toBeLessThanOrEqual(upper);
    expect(upper).toBeLessThanOrEqual(epsilon);
  }, 120_000);

  it('one step is the release itself', () => {
    const release = gaussian(2);
    expect(randomAllocation(release, { steps: 1 })).toBe(release);
  });

  it('moves to and from dp_accounting as a RandomAllocationDpEvent with one step per record', () => {
    const epoch = randomAllocation(gaussian(2), { steps: 10 });
    const json = epoch.toDpEvent();
    expect(json).toMatchObject({ class_name: 'RandomAllocationDpEvent', num_selected: 1, num_steps: 10, event: { class_name: 'GaussianDpEvent' } });
    // Read back, the noise multiplier's reciprocal is rounded to the safe side (mu a few ulp larger),
    // and the certified figure is the same to 1e-8.
    expect(compose([{ event: json }]).epsilon(1e-5) / epoch.epsilon(1e-5)).toBeCloseTo(1, 8);
    expect(() => compose([{ event: { ...json, num_selected: 2 } }])).toThrow(/num_selected. is 2: dpnoise accounts random allocation to one step/);
    expect(compose([{ event: { ...json, num_steps: 1 } }]).epsilon(1e-5)).toBeCloseTo(gaussian(2).epsilon(1e-5), 8);
  });

  it('refuses what it cannot account for, with errors that say why', () => {
    expect(() => randomAllocation(laplacePrivacy({ scales: 1, sensitivity: [1] }), { steps: 10 })).toThrow(/kind 'gdp'/);
    expect(() => randomAllocation(gaussian(1), { steps: 0 })).toThrow(RangeError);
    expect(() => randomAllocation(gaussian(1), { steps: 2.5 })).toThrow(/`steps` must be/);
    expect(() => randomAllocation(gaussian(1), { steps: 10, rate: 0.1 } as never)).toThrow(TypeError);
    const forged = Object.freeze({ ...gaussian(1) });
    expect(() => randomAllocation(forged, { steps: 10 })).toThrow(/privacy object made by dpnoise/);
  });
});
