// Arrow and Arquero tables as `table` (issue 45): read column by column, they release exactly what
// the same rows as objects release (same seed, same noise), nulls read as missing values, a
// filtered Arquero table is its filter's rows, and a missing column or a Decimal one is refused
// before the budget is charged.
import * as arrow from 'apache-arrow';
import * as aq from 'arquero';
import { describe, expect, it } from 'vitest';
import { aggregate } from '../../src/aggregate/index.js';
import { createBudget, createRng } from '../../src/index.js';

const N = 3000;
const regions = ['north', 'south', 'east'];
/** Rows with a unit per row (so bounding draws nothing at random), a text group, a value with some nulls and a whole number column. */
const objects = Array.from({ length: N }, (_, i) => ({
  id: i,
  region: regions[i % 3]!,
  income: i % 17 === 0 ? null : ((i * 7919) % 1000) * 37.5,
  age: 18 + ((i * 31) % 70),
}));
const options = {
  privacyUnit: 'id',
  maxGroups: 1,
  maxRows: 1,
  groupBy: 'region',
  groups: regions,
  invalid: 'drop' as const,
  count: true,
  sum: { income: [0, 40000] as [number, number] },
  mean: { age: [0, 100] as [number, number] },
  quantile: { age: { bounds: [0, 100] as [number, number], q: [0.5] } },
  histogram: { age: { bins: [0, 25, 50, 75, 100] } },
};
const run = (table: unknown) =>
  aggregate({
    ...options,
    epsilon: 1,
    delta: 1e-6,
    budget: createBudget({ epsilon: 10, delta: 1e-6 }),
    table: table as never,
    rng: createRng({ seed: 'columnar' }),
  });

const arrowTable = arrow.tableFromArrays({
  id: BigInt64Array.from(objects, (r) => BigInt(r.id)), // read as 1n, keyed as 1
  region: objects.map((r) => r.region), // a dictionary of text
  income: objects.map((r) => r.income), // Float64 with nulls
  age: Int32Array.from(objects, (r) => r.age), // Int32, no nulls: its typed array is read as is
});

describe('Arrow and Arquero tables (docs/aggregates.md, "Tables in memory")', () => {
  it('release what the same rows as objects release, with the same seed', async () => {
    const expected = await run(objects);
    expect(expected.rows[0]?.count?.value).toBeGreaterThan(0);
    const fromArrow = await run(arrowTable);
    expect(fromArrow.rows).toEqual(expected.rows);
    const fromArquero = await run(
      aq.table({ id: objects.map((r) => r.id), region: objects.map((r) => r.region), income: objects.map((r) => r.income), age: objects.map((r) => r.age) }),
    );
    expect(fromArquero.rows).toEqual(expected.rows);
    expect((await run(aq.fromArrow(arrowTable as never))).rows).toEqual(expected.rows);
  });

  it("a filtered and ordered Arquero table is read as its filter's rows, in its order", async () => {
    const kept = objects.filter((r) => r.age < 60);
    const expected = await run(kept);
    const table = aq
      .from(objects)
      .filter((d: { age: number }) => d.age < 60)
      .orderby('id');
    expect(table.numRows()).toBe(kept.length);
    expect((await run(table)).rows).toEqual(expected.rows);
    expect((await run(objects)).rows).not.toEqual(expected.rows); // the filter matters
  });

  it('a missing column is refused by name, with a near one suggested, before the budget is charged', async () => {
    const budget = createBudget({ epsilon: 1 });
    const misspelt = arrow.tableFromArrays({
      id: Int32Array.from(objects, (r) => r.id),
      regoin: objects.map((r) => r.region),
      income: objects.map((r) => r.income),
      age: Int32Array.from(objects, (r) => r.age),
    });
    await expect(aggregate({ ...options, epsilon: 1, budget, table: misspelt })).rejects.toThrow(/no column "region" \(did you mean "regoin"\?\)/);
    await expect(aggregate({ ...options, epsilon: 1, budget, table: aq.from(objects).select('id', 'region', 'income') })).rejects.toThrow(/no column "age"/);
    expect(budget.spent.epsilon).toBe(0);
  });

  it('an Arrow Decimal column is refused with the cast to make', async () => {
    const decimals = arrow.makeVector(arrow.makeData({ type: new arrow.Decimal(2, 10, 128), length: N, data: new Uint32Array(4 * N) }));
    const table = new arrow.Table({
      id: arrow.makeVector(Int32Array.from(objects, (r) => r.id)),
      region: arrow.vectorFromArray(objects.map((r) => r.region)),
      income: decimals,
      age: arrow.makeVector(Int32Array.from(objects, (r) => r.age)),
    });
    await expect(run(table)).rejects.toThrow('dpnoise: the Arrow column "income" holds decimals; cast it to Float64 first.');
  });
});
