// What the engine tests (duckdb.test.ts, postgres.test.ts) share: the rows, the statistics asked
// for, and a run of a spec through its engine (src/aggregate/source.ts and sql.ts).
import { expect } from 'vitest';
import { type Layout, layoutOf } from '../../src/aggregate/layout.js';
import { openEngine } from '../../src/aggregate/source.js';
import type { Spec } from '../../src/aggregate/spec.js';
import { rowTotals } from '../../src/aggregate/rows.js';
import { objectReader } from '../../src/aggregate/columnar.js';
import { engineTotals } from '../../src/aggregate/sql.js';
import type { GroupTotals } from '../../src/aggregate/totals.js';
import { lcg } from '../helpers.js';

// Group 'b''s apostrophe and a NULL group check the SQL's quoting and filtering.
export const GROUPS = ['north', "b'x", 'east'];

/** `length` seeded rows, unit `p${i % units}`, every tenth without a group. */
export function people(seed: number, length: number, units: number) {
  const random = lcg(seed);
  return Array.from({ length }, (_, i) => ({
    id: `p${i % units}`,
    region: i % 10 === 9 ? null : GROUPS[i % 3]!,
    age: Math.round(random() * 12000) / 100 - 10,
    income: Math.round(random() * 7e7) / 100,
  }));
}

/** Every kind of statistic, over the declared groups. */
export const STATISTICS = {
  groupBy: 'region',
  groups: GROUPS,
  count: true,
  units: true,
  sum: { age: [0, 100], income: [0, 500000] },
  mean: { age: [0, 100] },
  variance: { age: [0, 100], income: [0, 500000] },
  quantile: { income: { bounds: [0, 700000], q: 0.5 } },
  histogram: { age: { bins: [0, 18, 65, 100] } },
  diagnostics: true,
};

/** Every group an engine found, with its totals. */
export const everyGroup = (found: GroupTotals) => ({ groups: found.groups, totals: found.totalsOf(found.groups.map((_, g) => g)) });

/** The groups and totals of a spec, from its engine. */
export async function engineRun(spec: Spec, layout = layoutOf(spec, false)) {
  const { engine, columns } = await openEngine(spec);
  try {
    return everyGroup(await engineTotals(engine, columns, spec, layout));
  } finally {
    await engine.close();
  }
}

/** The groups and totals of rows in memory (the reference of every engine). */
export const memoryRun = (rows: readonly unknown[], spec: Spec, layout: Layout) => everyGroup(rowTotals(objectReader(rows), spec, layout));

/** Totals as plain arrays, to compare. */
export const plain = (totals: readonly Float64Array[]) => totals.map((t) => Array.from(t));

/**
 * The random choice of rows, tested through its totals: 3000 units of three rows each, ages 10,
 * 50 and 90 with income 1000 x age. `spread: 'rows'` puts a unit's rows in one group (kept by
 * maxRows 1), `'groups'` one in each group (kept by maxGroups 1, ages 10, 50, 90 in GROUPS' order).
 */
export function threeRowsPerUnit(spread: 'rows' | 'groups') {
  return Array.from({ length: 9000 }, (_, i) => {
    const age = [10, 50, 90][i % 3]!;
    return { id: `u${Math.floor(i / 3)}`, region: spread === 'rows' ? GROUPS[0]! : GROUPS[i % 3]!, age, income: 1000 * age };
  });
}

/** The spec run on threeRowsPerUnit: one row per unit kept. */
export const ONE_ROW = {
  privacyUnit: 'id',
  groupBy: 'region',
  groups: GROUPS,
  count: true,
  sum: { age: [0, 100], income: [0, 100000] },
  histogram: { age: { bins: [0, 30, 70, 100] } },
};

/**
 * Checks the totals of ONE_ROW (with maxGroups 1 for 'groups') on threeRowsPerUnit(spread): one
 * row per unit; every value of it from one row (income 1000 x age in every group, and for 'groups'
 * each group only its own age); and a uniform choice: chi-square of the kept ages (rows) or groups
 * (groups) against 1000 each, below 27.6 (2 degrees of freedom, level 1e-6); a choice always of the
 * first row, or of the least age, gives 6000.
 */
export function expectOneRowPerUnit(spread: 'rows' | 'groups', totals: readonly Float64Array[], layout: Layout) {
  const at = (kind: string, column?: string) =>
    layout.measures.findIndex((m) => m.kind === kind && (column === undefined || (m as { column?: string }).column === column));
  const count = Array.from(totals[at('count')]!);
  const age = Array.from(totals[at('sum', 'age')]!);
  const income = Array.from(totals[at('sum', 'income')]!);
  const bins = Array.from(totals[at('bins', 'age')]!);
  expect(count.reduce((a, b) => a + b, 0)).toBe(3000);
  expect(income).toEqual(age.map((a) => 1000 * a));
  const kept = spread === 'rows' ? bins.slice(0, 3) : count;
  if (spread === 'rows') expect(count).toEqual([3000, 0, 0]);
  else expect(bins).toEqual([count[0], 0, 0, 0, count[1], 0, 0, 0, count[2]]);
  const chiSquare = kept.reduce((s, n) => s + (n - 1000) ** 2 / 1000, 0);
  expect(chiSquare).toBeLessThan(27.6);
}
