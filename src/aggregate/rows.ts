// The in-memory engine: totals of JavaScript row objects, with the same clipping, contribution
// bounding and exact sums as the SQL the DuckDB engine runs. Rows are read through their own
// properties only (an inherited Object.prototype.income is never a value).
import { describeKind } from '../core/validate.js';
import { binOf, clip, LEAVES, type Layout, leafOf } from './layout.js';
import { type Spec, valueColumns } from './spec.js';
import { emptyTotals, quantaOf, sumQuantum, type Totals } from './totals.js';

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

const own = (row: object, key: string): unknown => (Object.hasOwn(row, key) ? (row as Record<string, unknown>)[key] : undefined);

/** A key for a unit or group value: strings and finite numbers, told apart by type. */
function keyOf(value: unknown): string | undefined {
  if (typeof value === 'string') return `s${value}`;
  if (typeof value === 'number' && Number.isFinite(value)) return `n${value}`;
  if (typeof value === 'bigint') return `n${value}`;
  return undefined;
}

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

/**
 * The totals of `rows` under the spec's clipping and contribution bounds, for the declared groups,
 * or when groups are selected, for every group with a kept row (in sorted order).
 */
export function rowTotals(rows: readonly unknown[], spec: Spec, layout: Layout): { groups: readonly string[]; totals: Totals } {
  const columns = valueColumns(spec);
  const declared = spec.groups === undefined ? undefined : new Set(spec.groups);
  // Rows per unit, per group key: each row's values, read once.
  const units = new Map<string, Map<string, number[][]>>();
  let rowNumber = 0;
  for (const row of rows) {
    const where = `table[${rowNumber}]`;
    rowNumber++;
    if (typeof row !== 'object' || row === null) throw new TypeError(`dpnoise: \`${where}\` must be a row object; got ${describeKind(row)}.`);
    let group = 'all';
    if (spec.groupBy !== undefined) {
      const g = own(row, spec.groupBy);
      if (!(typeof g === 'string' || (typeof g === 'number' && Number.isFinite(g)))) continue; // no group: not released
      group = String(g);
      if (declared && !declared.has(group)) continue; // not a declared group: not released
    }
    const values = columns.map((c) => own(row, c));
    const unit = spec.unit === undefined ? `r${rowNumber}` : keyOf(own(row, spec.unit));
    if (unit === undefined || !values.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      if (spec.invalid === 'drop') continue;
      const what = unit === undefined ? `the privacy unit \`${spec.unit}\`` : 'a value column';
      throw new RangeError(
        `dpnoise: a row has no finite number in ${what}; clean the data first or pass \`invalid: 'drop'\` (the error reveals that such a row exists).`,
      );
    }
    const byGroup = units.get(unit) ?? new Map<string, number[][]>();
    units.set(unit, byGroup);
    const list = byGroup.get(group) ?? [];
    byGroup.set(group, list);
    list.push(values as number[]);
  }

  // Contribution bounding: at most maxGroups groups per unit, maxRows rows per group, at random.
  const below = uniformBelow();
  const kept: Array<[group: string, rows: number[][]]> = [];
  for (const byGroup of units.values()) {
    for (const group of sample([...byGroup.keys()], spec.maxGroups, below)) kept.push([group, sample(byGroup.get(group)!, spec.maxRows, below)]);
  }
  const groups = spec.groups ?? [...new Set(kept.map(([group]) => group))].sort();
  const index = new Map(groups.map((g, i) => [g, i]));
  const totals = emptyTotals(layout.measures, groups.length);
  const sums = layout.measures.map((m, k) => (m.kind === 'sum' ? Array.from(totals[k]!, () => new ExactSum()) : []));
  const columnOf = new Map(columns.map((c, i) => [c, i]));
  for (const [key, keptRows] of kept) {
    const group = index.get(key)!;
    layout.measures.forEach((m, k) => {
      if (m.kind === 'units') bump(totals[k]!, group); // each unit once per group it is kept in
    });
    for (const values of keptRows) {
      layout.measures.forEach((m, k) => {
        const cells = totals[k]!;
        if (m.kind === 'units') return;
        if (m.kind === 'count') {
          bump(cells, group);
          return;
        }
        const x = values[columnOf.get(m.column)!]!;
        if (m.kind === 'sum') sums[k]![group]!.add(quantaOf(clip(x, m.lower, m.upper), m.shift, sumQuantum(m)));
        else if (m.kind === 'bins') bump(cells, group * (m.edges.length - 1) + binOf(clip(x, m.edges[0]!, m.edges.at(-1)!), m.edges));
        else if (m.kind === 'leaves') bump(cells, group * LEAVES + leafOf(clip(x, m.lower, m.upper), m.lower, m.upper));
        else if (x < m.lower || x > m.upper) bump(cells, group);
      });
    }
  }
  layout.measures.forEach((m, k) => {
    if (m.kind !== 'sum') return;
    sums[k]!.forEach((s, g) => {
      totals[k]![g] = s.value(sumQuantum(m));
    });
  });
  return { groups, totals };
}
