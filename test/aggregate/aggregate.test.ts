// aggregate end to end: the budget is charged before any row is read, the released values minus
// the exact aggregates have the reported standard deviations, the intervals cover at their level
// (2e4 groups per statistic kind, 1e4 for quantiles, with the power to catch intervals 10% too narrow), quantiles
// land within their rank error, the empirical audit holds on a worst-case neighbour, and nothing
// but the noisy values depends on the data.
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregate, planAggregate } from '../../src/aggregate/index.js';
import { planOf, readAggregateTarget, releaseVector } from '../../src/aggregate/plan.js';
import { readSpec } from '../../src/aggregate/spec.js';
import { createBudget, createRng, gaussianNoise, restoreBudget } from '../../src/index.js';
import { estimateDelta, gaussianLosses } from '../audit.js';
import { memoryRun } from './engine-cases.js';

const GROUPS = 20_000;
const PER_GROUP = 100;
let instance: DuckDBInstance;
/** Exact count, sum, median and population variance of x per group g. */
let truth: Array<{ n: number; sum: number; median: number; variance: number }>;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  // x takes the values 0, 0.1, ..., 9.9 in every group, in a different order.
  await c.run(`CREATE TABLE t AS SELECT i % ${GROUPS} AS g, ((i // ${GROUPS}) * 49 + i % 7) % 100 / 10.0 AS x FROM range(${GROUPS * PER_GROUP}) r(i)`);
  const rows = (
    await c.runAndReadAll('SELECT g, count(*) AS n, sum(x) AS s, quantile_disc(x, 0.5) AS m, var_pop(x) AS v FROM t GROUP BY g ORDER BY g')
  ).getRowObjectsJS();
  truth = rows.map((r) => ({ n: Number(r.n), sum: Number(r.s), median: Number(r.m), variance: Number(r.v) }));
});
afterAll(() => instance.closeSync());

const spec = {
  groupBy: 'g',
  groups: Array.from({ length: GROUPS }, (_, g) => g),
  count: true,
  units: true, // no privacy unit: each row is one, so the truth is the count
  sum: { x: [0, 10] },
  mean: { x: [0, 10] },
  variance: { x: [0, 10] },
  histogram: { x: { bins: [0, 5, 10] } },
} as const;

/** The fraction of groups whose interval holds the truth, with intervals at `shrink` times their width. */
function coverage(released: ReadonlyArray<{ value: number; low: number; high: number }>, exact: (g: number) => number, shrink = 1): number {
  let inside = 0;
  released.forEach((e, g) => {
    const half = ((e.high - e.low) / 2) * shrink;
    const middle = (e.high + e.low) / 2;
    if (Math.abs(exact(g) - middle) <= half) inside++;
  });
  return inside / released.length;
}

describe.each([
  ['gaussian', { epsilon: 1, delta: 1e-6 }],
  ['laplace', { epsilon: 1 }],
] as const)('aggregate with %s noise over 2e4 groups', (family, privacy) => {
  let result: Awaited<ReturnType<typeof aggregate>>;
  beforeAll(async () => {
    const connection = await instance.connect();
    result = await aggregate({
      ...privacy,
      budget: createBudget({ epsilon: 1, delta: 1e-6 }),
      ...spec,
      noise: family,
      table: { connection, table: 't' },
      rng: createRng({ seed: `coverage-${family}` }),
    });
    expect(result.accuracy[0]!.mechanism).toBe(family);
  });

  it('releases values whose errors have the reported standard deviation', () => {
    const errors = (key: string, exact: (g: number) => number) =>
      result.rows.map((row, g) => ((row[key] as { value: number }).value - exact(g)) / (row[key] as { sd: number }).sd);
    for (const [key, exact] of [
      ['count', (g: number) => truth[g]!.n],
      ['units', (g: number) => truth[g]!.n],
      ['sum(x)', (g: number) => truth[g]!.sum],
    ] as const) {
      const z = errors(key, exact);
      const mean = z.reduce((a, b) => a + b, 0) / z.length;
      const sd = Math.sqrt(z.reduce((a, b) => a + (b - mean) ** 2, 0) / z.length);
      expect(Math.abs(mean), `${key} mean error`).toBeLessThan(0.04);
      expect(sd, `${key} sd`).toBeGreaterThan(0.97);
      expect(sd, `${key} sd`).toBeLessThan(1.03);
    }
  });

  it('gives intervals that cover at their level (and would not, 10% narrower)', () => {
    const kinds: Array<[string, ReadonlyArray<{ value: number; low: number; high: number }>, (g: number) => number]> = [
      ['count', result.rows.map((r) => r.count as never), (g) => truth[g]!.n],
      ['units', result.rows.map((r) => r.units as never), (g) => truth[g]!.n],
      ['sum', result.rows.map((r) => r['sum(x)'] as never), (g) => truth[g]!.sum],
      ['mean', result.rows.map((r) => r['mean(x)'] as never), (g) => truth[g]!.sum / truth[g]!.n],
      ['variance', result.rows.map((r) => r['variance(x)'] as never), (g) => truth[g]!.variance],
      ['stddev', result.rows.map((r) => r['stddev(x)'] as never), (g) => Math.sqrt(truth[g]!.variance)],
      ['histogram', result.rows.map((r) => (r['histogram(x)'] as never[])[0]!), () => PER_GROUP / 2],
    ];
    for (const [kind, released, exact] of kinds) {
      expect(coverage(released, exact), kind).toBeGreaterThanOrEqual(0.945);
      expect(coverage(released, exact, 0.9), `${kind}, narrower`).toBeLessThan(0.94);
    }
  });
});

describe('quantiles', () => {
  it.each([
    ['exponential', 7, 0.05],
    ['tree', 3, 0.2],
  ] as const)(
    'cover the true median in DuckDB as in memory by the %s method, with the same figures from the same seed (coverage in every regime: quantiles.test.ts)',
    async (quantileMethod, widest, error) => {
      const connection = await instance.connect();
      // 10^3 groups of 1000 rows, each holding 0, 0.01, ..., 9.99 in its own order: the median 4.99.
      await connection.run('CREATE OR REPLACE TABLE big AS SELECT i % 1000 AS g, ((i // 1000) * 499 + i % 7) % 1000 / 100.0 AS x FROM range(1000000) r(i)');
      const options = { groupBy: 'g', groups: spec.groups.slice(0, 1000), quantile: { x: { bounds: [0, 10], q: 0.5 } }, quantileMethod };
      const release = async (table: unknown) =>
        aggregate({
          epsilon: 1,
          delta: 1e-6,
          budget: createBudget({ epsilon: 1, delta: 1e-6 }),
          ...options,
          table,
          rng: createRng({ seed: 'quantiles' }),
        } as never);
      const r = await release({ connection, table: 'big' });
      const memory = (await connection.runAndReadAll('SELECT g, x FROM big')).getRowObjectsJS();
      expect((await release(memory)).table).toEqual(r.table);
      let inside = 0;
      let off = 0;
      for (const row of r.rows) {
        const e = row['quantile(x, 0.5)'] as { value: number; sd: undefined; rankSd: number; low: number; high: number };
        if (e.low <= 4.99 && 4.99 <= e.high) inside++;
        off += Math.abs(e.value - 4.99) / r.rows.length;
        expect(e.sd).toBeUndefined();
        // 1000 rows: an interval inside the bounds (conservative; by the exponential mechanism, on a tenth of the budget: docs/aggregates.md, "Quantiles").
        expect(e.high - e.low).toBeLessThan(widest);
      }
      expect(inside / r.rows.length).toBeGreaterThanOrEqual(0.95);
      expect(off).toBeLessThan(error);
      expect(r.warnings).toEqual([]);
    },
  );
});

describe('the plan', () => {
  const plan = (options: object, privacy: { epsilon: number; delta?: number } = { epsilon: 1, delta: 1e-6 }) =>
    planAggregate({ ...privacy, groupBy: 'g', groups: [0, 1], ...options });
  const sd = (p: ReturnType<typeof plan>, statistic: string) => p.accuracy.find((a) => a.statistic === statistic)!.sd;

  it('picks the exponential mechanism for a few quantiles of a column and the tree for many, and charges both to the budget', () => {
    const one = plan({ quantile: { x: { bounds: [0, 10], q: 0.5 } } }, { epsilon: 1 });
    expect(one.accuracy.map((a) => a.mechanism)).toEqual(['exponential']);
    const deciles = plan({ quantile: { x: { bounds: [0, 10], q: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] } } }, { epsilon: 1 });
    expect(new Set(deciles.accuracy.map((a) => a.mechanism))).toEqual(new Set(['laplace']));
    const forced = plan({ quantile: { x: { bounds: [0, 10], q: 0.5 } }, quantileMethod: 'tree' }, { epsilon: 1 });
    expect(forced.accuracy[0]!.mechanism).toBe('laplace');
    // Pure epsilon: the exponential mechanism's and the vector's add up to the budget (by a hair less).
    for (const p of [one, plan({ count: true, mean: { y: [0, 1] }, quantile: { x: { bounds: [0, 10], q: [0.5, 0.9] } } }, { epsilon: 1 })]) {
      expect(p.privacy.epsilon(0)).toBeLessThanOrEqual(1);
      expect(p.privacy.epsilon(0)).toBeGreaterThan(0.999);
    }
    const gaussian = plan({ count: true, quantile: { x: { bounds: [0, 10], q: 0.5 } }, noise: 'gaussian' });
    expect(gaussian.accuracy.map((a) => a.mechanism)).toEqual(['gaussian', 'exponential']);
    expect(gaussian.privacy.epsilon(1e-6)).toBeLessThanOrEqual(1);
    expect(() => plan({ quantile: { x: { bounds: [0, 10], q: 0.5 } }, quantileMethod: 'median' })).toThrow(/`quantileMethod` must be/);
  });

  it('gives the errors of means and quantiles in their own units for an expected group size, and only then', () => {
    const options = { count: true, mean: { y: [0, 50] }, quantile: { x: { bounds: [0, 10], q: 0.5 } } };
    expect(plan(options).accuracy.every((a) => a.valueSd === undefined)).toBe(true);
    const sized = plan({ ...options, expectedCount: 200 });
    const [count, mean, quantile] = sized.accuracy;
    expect(count!.valueSd).toBeUndefined();
    expect(mean!.valueSd).toBeCloseTo(Math.sqrt(mean!.sd ** 2 + 25 ** 2 * count!.sd ** 2) / 200, 12);
    expect(quantile!.valueSd).toBeCloseTo((quantile!.sd * 10) / 200, 12);
    expect(() => plan({ ...options, expectedCount: 0.5 })).toThrow(/`expectedCount` must be/);
  });

  it('picks the noise with the smaller error when none is named: Laplace for a few statistics, Gaussian for many', () => {
    expect(plan({ count: true }).accuracy[0]!.mechanism).toBe('laplace');
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`c${i}`, [0, 1]]));
    expect(plan({ count: true, mean: many }).accuracy[0]!.mechanism).toBe('gaussian');
    expect(plan({ count: true }, { epsilon: 1 }).accuracy[0]!.mechanism).toBe('laplace');
    expect(() => plan({ count: true, noise: 'gaussian' }, { epsilon: 1 })).toThrow(/give `delta`/);
  });

  it('releases a sum as its centred sum plus the midpoint times the count when that is more accurate', () => {
    // Three sums on [0, 10] with the count: each centred sum has half the range and they share the count.
    const centred = plan({ count: true, sum: { x: [0, 10], y: [0, 10], z: [0, 10] }, noise: 'gaussian' });
    // With the noise in proportion to sensitivity, a plain sum's sd would be 10 times the count's;
    // the centred sum's is 5 times, and with 5 times the count's noise added, sqrt(50) times.
    expect(sd(centred, 'sum(x)') / sd(centred, 'count')).toBeCloseTo(Math.sqrt(50), 2);
    // A sum of [100, 200] alone: centring needs the count, and costs more than it saves.
    const alone = plan({ sum: { x: [100, 200] }, noise: 'gaussian' });
    expect(alone.accuracy.map((a) => a.statistic)).toEqual(['sum(x)']);
    expect(sd(alone, 'sum(x)') / sd(plan({ sum: { x: [0, 200] }, noise: 'gaussian' }), 'sum(x)')).toBeCloseTo(1, 2);
  });
});

describe('partition selection (no groups declared)', () => {
  // Two groups of 300 people and one person alone in a group of her own, with 40 rows there.
  const people = [
    ...Array.from({ length: 600 }, (_, i) => ({ id: i, g: i % 2 ? 'north' : 'south', x: i % 10 })),
    ...Array.from({ length: 40 }, () => ({ id: 'alone', g: 'island', x: 5 })),
  ];
  const options = { groupBy: 'g', privacyUnit: 'id', maxGroups: 1, maxRows: 3, count: true, mean: { x: [0, 10] } };

  it('never releases a group with one unit at delta 1e-6, and always the large ones', async () => {
    const released = new Map<string, number>();
    for (let run = 0; run < 100; run++) {
      const r = await aggregate({
        epsilon: 1,
        delta: 1e-6,
        budget: createBudget({ epsilon: 1, delta: 1e-6 }),
        ...options,
        table: people,
        rng: createRng({ seed: run }),
      });
      for (const g of r.groups) released.set(g, (released.get(g) ?? 0) + 1);
      expect(r.rows.map((row) => row.group)).toEqual(r.groups);
    }
    expect(Object.fromEntries(released)).toEqual({ north: 100, south: 100 });
  });

  it('takes its threshold from public inputs only, and charges the budget for the selection', async () => {
    const plan = planAggregate({ epsilon: 1, delta: 1e-6, ...options });
    expect(plan.groups).toBeUndefined();
    expect(plan.threshold).toBeGreaterThan(1);
    expect(plan.privacy.form).toBe('partition-selection');
    expect(plan.privacy.epsilon(1e-6)).toBeLessThanOrEqual(1);
    const budget = createBudget({ epsilon: 1, delta: 1e-6 });
    const r = await aggregate({ epsilon: 1, delta: 1e-6, budget, ...options, table: people.slice(0, 300) });
    expect(r.threshold).toBe(plan.threshold);
    expect(budget.spent.epsilon).toBeLessThanOrEqual(1);
    expect(restoreBudget(JSON.parse(JSON.stringify(budget))).spent).toEqual(budget.spent);
    expect(() => planAggregate({ epsilon: 1, ...options })).toThrow(/needs `delta`/);
  });
});

describe('the budget', () => {
  it('is charged before any row is read, and a refused call reads nothing', async () => {
    let reads = 0;
    const rows = new Proxy([{ g: 0, x: 1 }], {
      get(target, key, receiver) {
        if (key !== 'length' && typeof key !== 'symbol') reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const budget = createBudget({ epsilon: 1, delta: 1e-6 });
    await aggregate({ epsilon: 0.9, delta: 1e-6, budget, ...spec, groups: [0], table: rows });
    const used = reads;
    expect(used).toBeGreaterThan(0);
    await expect(aggregate({ epsilon: 0.9, delta: 1e-6, budget, ...spec, groups: [0], table: rows })).rejects.toThrow(/exceed the budget/);
    expect(reads).toBe(used);
    expect(budget.releases).toBe(1);
  });

  it('takes its target as flat options and the budget as an optional one: without a budget it releases at its target and charges nothing', async () => {
    const r = await aggregate({ epsilon: 1, delta: 1e-6, ...spec, groups: [0], table: [{ g: 0, x: 1 }], rng: createRng({ seed: 'no budget' }) });
    expect(r.privacy.epsilon(1e-6)).toBeLessThanOrEqual(1);
    await expect(aggregate({ delta: 1e-6, ...spec, groups: [0], table: [] } as never)).rejects.toThrow(TypeError);
    await expect(aggregate({ epsilon: 1, privacy: { epsilon: 1 }, ...spec, groups: [0], table: [] } as never)).rejects.toThrow(/unknown option `privacy`/);
  });

  it('returns frozen results: a caller cannot rewrite a released figure, its interval or the plan', async () => {
    const r = await aggregate({ epsilon: 1, delta: 1e-6, budget: createBudget({ epsilon: 1, delta: 1e-6 }), ...spec, groups: [0], table: [{ g: 0, x: 1 }] });
    const count = r.rows[0]!.count as { value: number };
    expect(() => {
      count.value = 1e9;
    }).toThrow(TypeError);
    expect(() => (r.rows as unknown[]).push({})).toThrow(TypeError);
    expect(() => {
      (r.accuracy[0] as { sd: number }).sd = 0;
    }).toThrow(TypeError);
    expect(Object.isFrozen(r) && Object.isFrozen(r.table[0]) && Object.isFrozen(r.groups)).toBe(true);
  });

  it('changes nothing when the call is refused for its options', async () => {
    const budget = createBudget({ epsilon: 1, delta: 1e-6 });
    await expect(aggregate({ epsilon: 0.5, delta: 1e-6, budget, ...spec, sum: { x: [1, 0] }, table: [] })).rejects.toThrow(RangeError);
    await expect(aggregate({ epsilon: 0.5, budget, ...spec, noise: 'gaussian', table: [] })).rejects.toThrow(/give `delta`/);
    await expect(aggregate({ epsilon: 0.5, budget: { spend() {} } as never, ...spec, table: [] })).rejects.toThrow(/createBudget/);
    await expect(aggregate({ epsilon: 0.5, delta: 1e-6, budget, ...spec, table: '/nonexistent/people.csv' })).rejects.toThrow();
    expect(budget.releases).toBe(0);
  });
});

describe('privacy', () => {
  it('passes the empirical audit on a worst-case neighbour (a unit at every bound), and catches noise 5% too small', () => {
    const options = { ...spec, groups: [0, 1, 2], privacyUnit: 'id', maxRows: 2, maxGroups: 2, table: [] };
    const s = readSpec(options);
    const plan = planOf(s, readAggregateTarget({ epsilon: 1, delta: 1e-3 }));
    const base = Array.from({ length: 60 }, (_, i) => ({ id: i, g: i % 3, x: (i * 37) % 10 }));
    const heavy = Array.from({ length: 30 }, (_, i) => ({ id: 'heavy', g: i % 3, x: 1e9 }));
    const before = releaseVector(memoryRun(base, s, plan.layout).totals, 3, plan);
    const after = releaseVector(memoryRun([...base, ...heavy], s, plan.layout).totals, 3, plan);
    const shift = after.map((x, i) => x - before[i]!);
    // Every group's vector has the mechanism's noise.
    const scales = new Float64Array(after.length);
    plan.layout.blocks.forEach((b, k) => {
      for (let g = 0; g < 3; g++) scales.fill(plan.sd[k]!, g * plan.length + plan.offsets[k]!, g * plan.length + plan.offsets[k]! + b.size);
    });
    const releases = 200_000;
    const tiled = new Float64Array(scales.length * releases).map((_, i) => scales[i % scales.length]!);
    const noise = gaussianNoise(tiled.length, tiled, { rng: createRng({ seed: 'aggregate-audit' }) });
    for (const eps of [0.5, 1, 2]) {
      const claim = plan.privacy.delta(eps);
      const { delta, se } = estimateDelta(gaussianLosses(noise, scales, shift), eps);
      expect(delta - 5 * se, `eps ${eps}`).toBeLessThanOrEqual(claim);
    }
    const under = estimateDelta(
      gaussianLosses(
        noise.map((x) => x * 0.95),
        scales.map((x) => x * 0.95),
        shift,
      ),
      1,
    );
    expect(under.delta - 5 * under.se).toBeGreaterThan(plan.privacy.delta(1));
  });

  it('returns nothing but noisy values that depends on the data (add or remove a unit)', async () => {
    const options = { ...spec, groups: [0, 1], privacyUnit: 'id', quantile: { x: { bounds: [0, 10], q: [0.5] } } };
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: i % 13, g: i % 2, x: (i * 7) % 11 }));
    const run = (table: typeof rows) => aggregate({ epsilon: 1, delta: 1e-6, budget: createBudget({ epsilon: 1, delta: 1e-6 }), ...options, table });
    const public_ = (r: Awaited<ReturnType<typeof aggregate>>) => ({
      accuracy: r.accuracy,
      curves: [1e-9, 1e-6].map((d) => r.privacy.epsilon(d)),
      unit: r.unit,
      groups: r.groups,
      keys: r.rows.map((row) => Object.keys(row)),
      // A mean's, a variance's and a standard deviation's sd come from the noisy values (the delta method); a quantile has none.
      lines: r.table.map((l) => [l.group, l.statistic, l.column, l.at, ['mean', 'variance', 'stddev', 'quantile'].includes(l.statistic) ? 'noisy' : l.sd]),
    });
    const a = public_(await run(rows));
    expect(public_(await run(rows.filter((r) => r.id !== 3)))).toEqual(a);
    expect(public_(await run([...rows, { id: 99, g: 1, x: 50 }]))).toEqual(a);
    expect(planAggregate({ epsilon: 1, delta: 1e-6, ...options }).accuracy).toEqual(a.accuracy);
  });
});

describe('units: the number of distinct privacy units per group', () => {
  it('counts people, not rows, after bounding (each in at most maxGroups groups)', async () => {
    // 40 people with 3 rows in a and 2 in b, 10 more with 5 rows in b only.
    const table = [
      ...Array.from({ length: 40 }, (_, p) => [...Array(3).fill({ id: p, g: 'a' }), ...Array(2).fill({ id: p, g: 'b' })]).flat(),
      ...Array.from({ length: 10 }, (_, p) => Array(5).fill({ id: 100 + p, g: 'b' })).flat(),
    ];
    const options = { table, privacyUnit: 'id', groupBy: 'g', groups: ['a', 'b'], maxRows: 5, units: true, count: true, rng: createRng({ seed: 'units' }) };
    const r = await aggregate({ epsilon: 1e3, budget: createBudget({ epsilon: 1e4 }), ...options });
    expect(r.rows.map((row) => Math.round(row.units!.value))).toEqual([40, 50]);
    expect(r.rows.map((row) => Math.round(row.count!.value))).toEqual([120, 130]);
    const one = await aggregate({ epsilon: 1e3, budget: createBudget({ epsilon: 1e4 }), ...options, maxGroups: 1 });
    expect(Math.round(one.rows[0]!.units!.value) + Math.round(one.rows[1]!.units!.value)).toBe(50);
    expect(r.accuracy.map((line) => line.statistic)).toContain('units');
  });

  it('with groups selected privately, is the draw that selected the group: never below the threshold', async () => {
    // 300 groups of 9 units each, near the threshold (9.3): a second, independent draw would put about
    // half of the released ones below it (and release the coordinate twice).
    const table = Array.from({ length: 300 * 9 }, (_, i) => ({ id: i, g: `g${Math.floor(i / 9)}` }));
    const r = await aggregate({
      epsilon: 1,
      delta: 1e-3,
      budget: createBudget({ epsilon: 1, delta: 1e-3 }),
      table,
      privacyUnit: 'id',
      groupBy: 'g',
      maxGroups: 1,
      units: true,
      rng: createRng({ seed: 'selected units' }),
    });
    expect(r.threshold).toBeGreaterThan(8);
    expect(r.threshold).toBeLessThan(11);
    expect(r.groups.length).toBeGreaterThan(30);
    expect(r.groups.length).toBeLessThan(270);
    for (const row of r.rows) expect(row.units!.value).toBeGreaterThanOrEqual(r.threshold!);
  });
});

describe('integerCounts: counts as whole numbers at least 0, by post-processing', () => {
  it('rounds each count into the whole numbers of its interval, which holds every count the interval held', async () => {
    const table = Array.from({ length: 600 }, (_, i) => ({ id: i % 200, g: ['a', 'b', 'c', 'empty'][i % 3], x: i % 10 }));
    const options = {
      table,
      privacyUnit: 'id',
      groupBy: 'g',
      groups: ['a', 'b', 'c', 'empty'],
      maxRows: 3,
      count: true,
      units: true,
      histogram: { x: { bins: [0, 5, 10] } },
    } as const;
    const privacy = { epsilon: 0.5 };
    const runs = await Promise.all(
      [false, true].map((integerCounts) =>
        aggregate({ ...privacy, budget: createBudget({ epsilon: 1 }), ...options, integerCounts, rng: createRng({ seed: 'whole counts' }) }),
      ),
    );
    const [plain, whole] = runs.map((r) => r.table.filter((line) => line.statistic !== 'mean'));
    expect(whole!.length).toBe(plain!.length);
    let negative = 0;
    whole!.forEach((w, i) => {
      const p = plain![i]!;
      expect(
        [w.value, w.low, w.high].every((x) => Number.isInteger(x) && x >= 0),
        `${w.group} ${w.statistic}`,
      ).toBe(true);
      expect(w.low <= w.value && w.value <= w.high).toBe(true);
      // Every whole number t >= 0 in the noisy interval is in the whole one.
      for (let t = Math.max(0, Math.ceil(p.low)); t <= p.high; t++) expect(w.low <= t && t <= w.high).toBe(true);
      if (p.value - p.low >= 1.5) expect(Math.abs(w.value - Math.max(0, p.value))).toBeLessThanOrEqual(0.5);
      if (p.value < 0) negative++;
    });
    expect(negative).toBeGreaterThan(0); // the empty group's figures were below 0 without it
  });
});
