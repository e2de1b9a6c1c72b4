// What the engine tests (duckdb.test.ts, postgres.test.ts) share: the rows, the statistics asked
// for, and a run of a spec through its engine (src/aggregate/source.ts and sql.ts).
import { layoutOf } from '../../src/aggregate/layout.js';
import { openEngine } from '../../src/aggregate/source.js';
import type { Spec } from '../../src/aggregate/spec.js';
import { engineTotals } from '../../src/aggregate/sql.js';
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
  sum: { age: [0, 100], income: [0, 500000] },
  mean: { age: [0, 100] },
  quantile: { income: { bounds: [0, 700000], q: 0.5 } },
  histogram: { age: { bins: [0, 18, 65, 100] } },
  diagnostics: true,
};

/** The groups and totals of a spec, from its engine. */
export async function engineRun(spec: Spec, layout = layoutOf(spec, false)) {
  const { engine, columns } = await openEngine(spec);
  try {
    return await engineTotals(engine, columns, spec, layout);
  } finally {
    await engine.close();
  }
}

/** Totals as plain arrays, to compare. */
export const plain = (totals: readonly Float64Array[]) => totals.map((t) => Array.from(t));
