// The rows of `aggregate` are typed from its options (src/aggregate/row-types.ts): strict
// TypeScript reads each statistic the options ask for without a cast, and tsc checks this file.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { aggregate, type Estimate, type HistogramBin } from '../../src/aggregate/index.js';
import { createBudget, createRng } from '../../src/index.js';

describe('typed rows', () => {
  it('have each statistic the options ask for, by its name', async () => {
    const table = [
      { g: 'a', age: 30, income: 10, hours: 5 },
      { g: 'b', age: 50, income: 20, hours: 7 },
    ];
    const r = await aggregate({
      epsilon: 1,
      budget: createBudget({ epsilon: 2 }),
      table,
      groupBy: 'g',
      groups: ['a', 'b'],
      count: true,
      sum: { income: [0, 100] },
      mean: { age: [0, 100] },
      quantile: { hours: { bounds: [0, 10], q: [0.5, 0.9] } },
      histogram: { age: { bins: [0, 40, 100] } },
      rng: createRng({ seed: 1 }),
    });
    const row = r.rows[0]!;
    expectTypeOf(row.group).toEqualTypeOf<string>();
    expectTypeOf(row.count).toEqualTypeOf<Estimate>();
    expectTypeOf(row['sum(income)']).toEqualTypeOf<Estimate>();
    expectTypeOf(row['mean(age)']).toEqualTypeOf<Estimate>();
    expectTypeOf(row['quantile(hours, 0.9)']).toEqualTypeOf<Estimate>();
    expectTypeOf(row['histogram(age)']).toEqualTypeOf<readonly HistogramBin[]>();
    // And at run time, the same names.
    expect(typeof row.count.value).toBe('number');
    expect(typeof row['sum(income)'].value).toBe('number');
    expect(typeof row['mean(age)'].value).toBe('number');
    expect(typeof row['quantile(hours, 0.5)'].low).toBe('number');
    expect(row['histogram(age)'].map((b) => b.bin)).toEqual(['[0, 40)', '[40, 100]']);
  });

  it('without a count in the options, have none for sure', async () => {
    const r = await aggregate({ epsilon: 1, budget: createBudget({ epsilon: 1 }), table: [{ x: 1 }], mean: { x: [0, 2] }, rng: createRng({ seed: 2 }) });
    expectTypeOf(r.rows[0]!.count).toEqualTypeOf<Estimate | undefined>();
    expect(r.rows[0]!.count).toBeUndefined();
  });
});
