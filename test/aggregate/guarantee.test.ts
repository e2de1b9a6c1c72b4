import { describe, expect, it } from 'vitest';
import { aggregate, planAggregate } from '../../src/aggregate/index.js';
import { guaranteeWarnings, readWarnAbove, WEAK } from '../../src/aggregate/guarantee.js';
import { createBudget, createRng } from '../../src/index.js';

describe('guaranteeWarnings', () => {
  it('warns above epsilon 10 and delta 1e-4 by default, and at neither threshold itself', () => {
    expect(WEAK).toEqual({ epsilon: 10, delta: 1e-4 });
    const defaults = readWarnAbove(undefined);
    expect(guaranteeWarnings({ notion: 'approximate', epsilon: 10, delta: 1e-4 }, defaults)).toEqual([]);
    const both = guaranteeWarnings({ notion: 'approximate', epsilon: 1e7, delta: 0.1 }, defaults);
    expect(both).toHaveLength(2);
    expect(both[0]).toMatch(/^epsilon 10000000 is above 10: .*warnAbove.epsilon, --warn-epsilon/);
    expect(both[1]).toMatch(/^delta 0.1 is above 0.0001: .*warnAbove.delta, --warn-delta/);
    expect(guaranteeWarnings({ notion: 'pure', epsilon: 11 }, defaults)).toHaveLength(1);
  });

  it('takes other thresholds (Infinity and 1 never warn), and refuses what is not one', () => {
    const never = readWarnAbove({ epsilon: Infinity, delta: 1 });
    expect(guaranteeWarnings({ notion: 'approximate', epsilon: 1e300, delta: 0.5 }, never)).toEqual([]);
    expect(guaranteeWarnings({ notion: 'pure', epsilon: 2 }, readWarnAbove({ epsilon: 1 }))).toHaveLength(1);
    expect(readWarnAbove({ delta: 1e-6 })).toEqual({ epsilon: 10, delta: 1e-6 });
    expect(() => readWarnAbove({ epsilon: -1 })).toThrow(/`warnAbove.epsilon` must be/);
    expect(() => readWarnAbove({ delta: 2 })).toThrow(RangeError);
    expect(() => readWarnAbove({ eps: 1 })).toThrow(TypeError);
  });
});

describe('aggregate and planAggregate warn of a weak guarantee', () => {
  const options = { groupBy: 'g', groups: ['a', 'b'], count: true } as const;

  it('in the plan, before any data, and first among the result warnings, the same whatever the rows', async () => {
    const plan = planAggregate({ epsilon: 50, delta: 1e-3, ...options });
    expect(plan.warnings).toHaveLength(2);
    const tables = [[{ g: 'a' }], Array.from({ length: 500 }, (_, i) => ({ g: i % 2 ? 'a' : 'b' }))];
    for (const table of tables) {
      const result = await aggregate({
        epsilon: 50,
        delta: 1e-3,
        budget: createBudget({ epsilon: 100, delta: 1e-2 }),
        ...options,
        table,
        rng: createRng({ seed: 1 }),
      });
      expect(result.warnings.slice(0, 2)).toEqual(plan.warnings);
    }
    expect(planAggregate({ epsilon: 1, delta: 1e-6, ...options }).warnings).toEqual([]);
    expect(planAggregate({ epsilon: 50, delta: 1e-3, ...options, warnAbove: { epsilon: 100, delta: 0.01 } }).warnings).toEqual([]);
  });
});
