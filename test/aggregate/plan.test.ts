// The plan's choices from public inputs alone: here, groups selected privately beside very wide
// bounds, whose shared grid leaves no exact threshold (docs/aggregates.md, "Partition selection").
import { describe, expect, it } from 'vitest';
import { planAggregate } from '../../src/aggregate/index.js';

const selected = { epsilon: 0.1, delta: 1e-6, privacyUnit: 'id', groupBy: 'g', maxGroups: 2, count: true } as const;

describe('planOf with groups selected privately', () => {
  it('refuses, with a RangeError naming the way out, bounds too wide for the units to be thresholded (an internal error before)', () => {
    for (const options of [
      { ...selected, sum: { x: [0, 2 ** 24] } },
      { ...selected, sum: { x: [0, 'private'] }, boundsLimit: 2 ** 24 },
    ] as const) {
      expect(() => planAggregate(options)).toThrow(RangeError);
      expect(() => planAggregate(options)).toThrow(/^dpnoise: the bounds are too wide .* narrow the bounds \(or `boundsLimit`\), or declare the groups\.$/);
    }
  });

  it('plans with the candidates whose grid allows a threshold, where one failing used to fail the plan: a sum over [0, 2^20], declared or found', () => {
    // Before, the Gaussian candidates' coarse grid threw an internal error for the whole plan.
    for (const options of [
      { ...selected, sum: { x: [0, 2 ** 20] } },
      { ...selected, sum: { x: [0, 'private'] } },
    ] as const) {
      const plan = planAggregate(options);
      expect(plan.threshold).toBeGreaterThan(1);
      expect(plan.accuracy[0]!.mechanism).toBe('laplace');
    }
  });
});
