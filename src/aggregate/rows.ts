// The in-memory engine: totals of a table in memory (row objects, an Arrow or an Arquero table,
// read column by column: columnar.ts), with the same reading of values (values.ts), clipping,
// contribution bounding and exact sums as the SQL the engines run.
import { memo } from '../core/memo.js';
import type { ColumnReader } from './columnar.js';
import { binOf, clip, LEAVES, type Layout, leafOf } from './layout.js';
import { type Spec, valueColumns } from './spec.js';
import { emptyTotals, type GroupTotals, quantaOf, squareQuantaOf, sumQuantum, type Totals } from './totals.js';
import { keyOf, readNumber } from './values.js';

/** Uniform integers below n from the platform CSPRNG, by rejection (no modulo bias). */
function uniformBelow(): (n: number) => number {
  const words = new Uint32Array(256);
  let next = words.length;
  return (n) => {
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      if (next === words.length) {
        crypto.getRandomValues(words);
        next = 0;
      }
      const w = words[next++]!;
      if (w < limit) return w % n;
    }
  };
}

/** `keep` items of `list` chosen uniformly at random (a partial Fisher-Yates shuffle, in place). */
function sample<T>(list: T[], keep: number, below: (n: number) => number): T[] {
  if (list.length <= keep) return list;
  for (let i = 0; i < keep; i++) {
    const j = i + below(list.length - i);
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list.slice(0, keep);
}

/**
 * The group of a row's group value, by the rule of values.ts: the index of the declared group it
 * matches (by value when the groups are numbers, else by text), or its key when groups are
 * selected; undefined for no group.
 */
function grouper(spec: Spec): (value: unknown) => string | undefined {
  if (spec.groups === undefined) return keyOf;
  const labels = spec.groups;
  if (spec.groupNumbers !== undefined) {
    const byNumber = new Map(spec.groupNumbers.map((x, i) => [x, labels[i]!]));
    return (value) => {
      const x = readNumber(value);
      return x === undefined ? undefined : byNumber.get(x);
    };
  }
  const declared = new Set(labels);
  return (value) => {
    const key = keyOf(value);
    return key !== undefined && declared.has(key) ? key : undefined;
  };
}

/**
 * A unit's rows in one group: each valid row's values, and how many invalid rows. Without a privacy
 * unit, all of a group's rows, each its own unit: `units` of them (those with a valid row).
 */
interface UnitRows {
  readonly rows: number[][];
  invalid: number;
  readonly units?: 'rows';
}

/** How many units an entry stands for in its group: each unit with a kept valid row, once. */
const unitCount = (u: UnitRows): number => (u.units === 'rows' ? u.rows.length : u.rows.length > 0 ? 1 : 0);

/** Sums of integer quanta, exact beyond 2^53: a double while it is safe, moved into a BigInt before it is not. */
class ExactSum {
  private small = 0;
  private big = 0n;
  add(quanta: number): void {
    this.small += quanta;
    if (Math.abs(this.small) > 2 ** 52) {
      this.big += BigInt(this.small);
      this.small = 0;
    }
  }
  value(q: number): number {
    return Number(this.big + BigInt(this.small)) * q;
  }
}

const bump = (cells: Float64Array, i: number) => {
  cells[i] = cells[i]! + 1;
};

/** The error for a row with no finite number in `what` (under `invalid: 'error'`). */
const invalidRow = (what: string) =>
  new RangeError(
    `dpnoise: a row has no finite number in ${what}; clean the data first or pass \`invalid: 'drop'\` (the error reveals that such a row exists).`,
  );

/**
 * The groups of a table's rows and their totals under the spec's clipping and contribution bounds:
 * the declared groups, or when groups are selected, every group with a kept row (in sorted order).
 */
export function rowTotals(table: ColumnReader, spec: Spec, layout: Layout): GroupTotals {
  const columns = valueColumns(spec);
  const groupOf = grouper(spec);
  const groupValue = spec.groupBy === undefined ? undefined : table.column(spec.groupBy);
  const unitValue = spec.unit === undefined ? undefined : table.column(spec.unit);
  const valuesIn = columns.map((c) => table.column(c));
  // Invalid rows with a unit are counted when a `dropped` measure asks: they take part in the bounding, as in SQL.
  const dropping = layout.measures.some((m) => m.kind === 'dropped');
  // Rows per unit, per group key: each valid row's values, read once, and the number of invalid rows.
  const units = new Map<string, Map<string, UnitRows>>();
  // Without a unit each row is its own, whose one row in one group every bound keeps: it goes
  // straight to its group's kept rows, all in one entry, with nothing drawn at random.
  const kept = new Map<string, UnitRows[]>(); // per group, each unit's kept rows
  const rowsOf = (group: string) => memo(kept, group, (): UnitRows[] => [{ rows: [], invalid: 0, units: 'rows' }])[0]!;
  for (let i = 0; i < table.rows; i++) {
    const group = groupValue === undefined ? 'all' : groupOf(groupValue(i));
    if (group === undefined) continue; // no group, or not a declared one: not released
    const values = valuesIn.map((value) => readNumber(value(i)));
    const valid = values.every((v) => v !== undefined);
    if (unitValue === undefined) {
      if (!valid && spec.invalid === 'error') throw invalidRow('a value column');
      if (valid) rowsOf(group).rows.push(values as number[]);
      else if (dropping) rowsOf(group).invalid++;
      continue;
    }
    const unit = keyOf(unitValue(i));
    if (unit === undefined || !valid) {
      if (spec.invalid === 'error') throw invalidRow(unit === undefined ? `the privacy unit \`${spec.unit}\`` : 'a value column');
      if (unit === undefined || !dropping) continue;
    }
    const byGroup = units.get(unit) ?? new Map<string, UnitRows>();
    units.set(unit, byGroup);
    const list = byGroup.get(group) ?? { rows: [], invalid: 0 };
    byGroup.set(group, list);
    if (valid) list.rows.push(values as number[]);
    else list.invalid++;
  }

  // Contribution bounding: at most maxGroups groups per unit, maxRows valid rows (and maxRows invalid ones) per group, at random.
  const below = uniformBelow();
  for (const byGroup of units.values()) {
    for (const group of sample([...byGroup.keys()], spec.maxGroups, below)) {
      const list = kept.get(group) ?? [];
      kept.set(group, list);
      const { rows: valid, invalid } = byGroup.get(group)!;
      list.push({ rows: sample(valid, spec.maxRows, below), invalid: Math.min(invalid, spec.maxRows) });
    }
  }
  // A unit counts in a group where it has a kept valid row; a selected group is one with such a unit.
  const unitsIn = (group: string) => kept.get(group)?.reduce((sum, u) => sum + unitCount(u), 0) ?? 0;
  const groups = spec.groups ?? [...kept.keys()].filter((g) => unitsIn(g) > 0).sort();
  const columnOf = new Map(columns.map((c, i) => [c, i]));
  return {
    groups,
    units: () => Float64Array.from(groups, unitsIn),
    totalsOf: (indices) => {
      const totals = emptyTotals(layout.measures, indices.length);
      indices.forEach((index, at) => {
        addGroup(totals, at, kept.get(groups[index]!) ?? [], layout, columnOf);
      });
      return totals;
    },
  };
}

/** Adds one group's kept rows (per unit) to the totals' group `at`. */
function addGroup(totals: Totals, at: number, byUnit: readonly UnitRows[], layout: Layout, columnOf: ReadonlyMap<string, number>): void {
  const sums = layout.measures.map((m) => (m.kind === 'sum' || m.kind === 'squares' ? new ExactSum() : undefined));
  for (const unit of byUnit) {
    const { rows: keptRows, invalid } = unit;
    layout.measures.forEach((m, k) => {
      if (m.kind === 'units') totals[k]![at] = totals[k]![at]! + unitCount(unit); // each unit once per group it is kept in
      if (m.kind === 'dropped') totals[k]![at] = totals[k]![at]! + invalid;
    });
    for (const values of keptRows) {
      layout.measures.forEach((m, k) => {
        const cells = totals[k]!;
        if (m.kind === 'units' || m.kind === 'dropped') return;
        if (m.kind === 'count') {
          bump(cells, at);
          return;
        }
        const x = values[columnOf.get(m.column)!]!;
        if (m.kind === 'sum') sums[k]!.add(quantaOf(clip(x, m.lower, m.upper), m.shift, sumQuantum(m)));
        else if (m.kind === 'squares') sums[k]!.add(squareQuantaOf(clip(x, m.lower, m.upper), m));
        else if (m.kind === 'bins') bump(cells, at * (m.edges.length - 1) + binOf(clip(x, m.edges[0]!, m.edges.at(-1)!), m.edges));
        else if (m.kind === 'leaves') bump(cells, at * LEAVES + leafOf(clip(x, m.lower, m.upper), m.lower, m.upper));
        else if (x < m.lower || x > m.upper) bump(cells, at);
      });
    }
  }
  layout.measures.forEach((m, k) => {
    if (m.kind === 'sum' || m.kind === 'squares') totals[k]![at] = sums[k]!.value(sumQuantum(m));
  });
}
