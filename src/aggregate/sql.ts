// The SQL of an aggregate (docs/aggregates.md, "Engines"): one query that clips, bounds
// contributions and totals each group, following the in-memory engine's rules exactly (rows.ts,
// totals.ts), rendered in each dialect (dialect.ts). dpnoise runs it on DuckDB and PostgreSQL and
// prints it for the warehouses; its result rows (a few per group) are read back here into totals,
// the same way whichever engine produced them.
import { type Column, type ColumnType, type Dialect, DIALECT } from './dialect.js';
import { dataRows, type Engine } from './engine.js';
import { cellMeasures, cellSql, resultColumns } from './columns.js';
import { clickhouseQuery } from './clickhouse-sql.js';
import { LEAVES, type Layout, type Measure, perRowOf } from './layout.js';
import { type Spec, valueColumns } from './spec.js';
import { emptyTotals, type GroupTotals, sumQuantum } from './totals.js';
import { isNumberText, keyOf } from './values.js';

/** Runs `work`, reporting the engine's progress to `onProgress` every 250 ms meanwhile. */
async function reporting<T>(engine: Engine, onProgress: ((fraction: number) => void) | undefined, work: () => Promise<T>): Promise<T> {
  if (onProgress === undefined || engine.progress === undefined) return work();
  const progress = engine.progress;
  const timer = setInterval(() => {
    const fraction = progress();
    if (fraction >= 0) onProgress(fraction);
  }, 250);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** The names a query gives its own tables, unique to it (a plan's identifier, or drawn afresh), so that none can be a user's table it reads. */
export function queryNames(suffix: string): { groups: string; perGroup: string } {
  return { groups: `dpnoise_groups_${suffix}`, perGroup: `dpnoise_per_group_${suffix}` };
}

/** A column as text (its own text, or its cast to the dialect's string). */
const asText = (x: string, type: ColumnType, dialect: Dialect) => (type === 'text' ? x : `CAST(${x} AS ${dialect.string})`);

/**
 * The query, in `dialect`, over a source with `columns` (their types decide how a value is read;
 * a warehouse's query is written without them), reading `from` (a table, or a file's reader).
 * `planId` is written in every result row, so that a result can be matched to the plan it was
 * made under; `suffix` names the query's own tables (queryNames). One pass: the rows in declared
 * groups with their values and `bad` flag; per unit and group up to maxRows of them, drawn by the
 * dialect's random() (then up to maxGroups groups per unit, the same way; keepAtMost); each row's
 * cell for every bin and quantile measure (-1 for invalid rows); and the totals per group, and per
 * group and cell, in one aggregation by GROUPING SETS, so that every total reads the same random
 * choice of rows.
 */
export function aggregateQuery(spec: Spec, layout: Layout, dialect: Dialect, columns: readonly Column[], from: string, planId: string, suffix: string): string {
  if (dialect.name === 'clickhouse') return clickhouseQuery(spec, layout, columns, from, planId);
  const { identifier, text } = dialect;
  const double = (x: number) => `CAST(${text(String(x))} AS ${dialect.double})`;
  // NaN fails the upper test in every dialect (IEEE comparisons, or NaN sorting above every number).
  const infinity = (sign: string) => `CAST(${text(sign + dialect.infinity)} AS ${dialect.double})`;
  const finite = (v: string) => `(${v} > ${infinity('-')} AND ${v} < ${infinity('')})`;
  const clipped = (v: string, lower: number, upper: number) => `LEAST(GREATEST(${v}, ${double(lower)}), ${double(upper)})`;
  const names = valueColumns(spec);
  const v = (name: string) => `v${names.indexOf(name)}`;
  const typeOf = (name: string): ColumnType => columns.find((c) => c.name === name)?.type ?? 'unknown';
  const cell = (name: string) => `s.${identifier(name)}`;
  const tables = queryNames(suffix);

  // The rows in groups: unit u, group gi (a declared group's index, or when groups are selected its value: a finite number, or text), values v0, v1, ..., and `bad`.
  const values = names.map((name, i) => `, ${dialect.number(cell(name), typeOf(name))} AS v${i}`).join('');
  const unit = spec.unit === undefined ? 'NULL' : cell(spec.unit);
  const ctes: string[] = [];
  let group = '0';
  let join = '';
  if (spec.groupBy !== undefined) {
    const type = typeOf(spec.groupBy);
    const byValue = spec.groups === undefined ? type === 'number' || type === 'decimal' : spec.groupNumbers !== undefined;
    const read = dialect.number(cell(spec.groupBy), type);
    // Adding zero makes -0 the group 0, as in JavaScript.
    const key = byValue
      ? spec.groups === undefined
        ? `CASE WHEN ${finite(read)} THEN ${read} + ${double(0)} END`
        : read
      : asText(cell(spec.groupBy), type, dialect);
    if (spec.groups === undefined) group = key;
    else {
      const literals = spec.groupNumbers?.map(double) ?? spec.groups.map(text);
      ctes.push(`${tables.groups} AS (${dialect.values(literals.map((k, i) => [k, i] as const))})`);
      join = ` JOIN ${tables.groups} d ON ${key} = d.k`;
      group = 'd.gi';
    }
  }
  const invalid = [...(spec.unit === undefined ? [] : ['u IS NULL']), ...names.map((_, i) => `v${i} IS NULL OR NOT ${finite(`v${i}`)}`)];
  const bad = invalid.length === 0 ? 'false' : invalid.map((c) => `(${c})`).join(' OR ');
  // Subqueries, not CTEs, wherever a part is read once: PostgreSQL materializes a CTE that calls
  // random(), which cost a third more time on 1e7 rows (bench/RESULTS.md, "Aggregates").
  const rows = `(SELECT *, ${bad} AS bad FROM (SELECT ${unit} AS u, ${group} AS gi${values} FROM ${from} s${join}) r WHERE gi IS NOT NULL)`;

  // Contribution bounding: uniformly random rows per unit and group, then groups per unit; invalid
  // rows in partitions of their own, so that they never displace a valid row. When they are
  // counted (a `dropped` measure) a unit's groups are chosen among all of its groups, valid or not.
  const all = ['u', 'gi', ...names.map((_, i) => `v${i}`), 'bad'];
  const dropping = layout.measures.some((m) => m.kind === 'dropped');
  let kept = rows;
  if (spec.unit !== undefined) {
    const perGroup = keepAtMost(spec.maxRows, ['u', 'gi', 'bad'], all, rows, dialect);
    kept = perGroup;
    if (spec.groups === undefined || spec.maxGroups < spec.groups.length) {
      if (spec.maxRows === 1 && !dropping) {
        // A unit has one row per group (and flag) now: keeping maxGroups of its rows keeps maxGroups of its groups.
        kept = keepAtMost(spec.maxGroups, ['u', 'bad'], all, perGroup, dialect);
      } else {
        // Read twice (for the groups per unit, and for the rows kept), so a CTE: one random choice for both.
        ctes.push(`${tables.perGroup} AS ${perGroup}`);
        const unitGroups = keepAtMost(
          spec.maxGroups,
          ['u'],
          ['u', 'gi'],
          `(SELECT DISTINCT u, gi FROM ${tables.perGroup} WHERE ${dropping ? 'u IS NOT NULL' : 'NOT bad'})`,
          dialect,
        );
        kept = `(SELECT ${all.map((c) => `p.${c}`).join(', ')} FROM ${tables.perGroup} p LEFT JOIN ${unitGroups} g ON p.u = g.u AND p.gi = g.gi WHERE ${dropping ? '' : 'p.bad OR '}g.u IS NOT NULL)`;
      }
    }
  }

  // Each kept row's cell for every bin and quantile measure, -1 for an invalid row.
  const cells = cellMeasures(layout).map(
    ([, m], j) =>
      `, CASE WHEN bad THEN -1 ELSE ${cellSql(m, v((m as { column: string }).column), double, clipped, (x) => `CAST(${x} AS ${dialect.bigint})`, 'LEAST')} END AS c${j}`,
  );
  const withCells = `(SELECT *${cells.join('')} FROM ${kept} k)`;

  // Each result column's expression, by name; resultColumns gives their order.
  const whenValid = (then: string, extra = '') => `CASE WHEN NOT bad${extra} THEN ${then} END`;
  const expressions = new Map<string, string>([
    ['plan', text(planId)],
    ['gi', 'gi'],
    ['bad', 'max(CASE WHEN bad THEN 1 ELSE 0 END)'],
    ['valid', `count(${whenValid('1')})`],
  ]);
  for (const j of cellMeasures(layout).keys()) expressions.set(`c${j}`, `c${j}`);
  layout.measures.forEach((m, k) => {
    if (m.kind === 'count') expressions.set(`m${k}`, `CAST(count(${whenValid('1')}) AS ${dialect.double})`);
    else if (m.kind === 'units')
      expressions.set(`m${k}`, `CAST(${spec.unit === undefined ? `count(${whenValid('1')})` : `count(DISTINCT ${whenValid('u')})`} AS ${dialect.double})`);
    else if (m.kind === 'sum') {
      // Each term is at most 2^25 quanta: a BIGINT; the engines sum BIGINTs exactly (HUGEINT, NUMERIC, INT64 within 2^63).
      const term = `CAST(floor((${clipped(v(m.column), m.lower, m.upper)} - ${double(m.shift)}) / ${double(sumQuantum(m))} + 0.5) AS ${dialect.bigint})`;
      expressions.set(`m${k}`, `CAST(sum(${whenValid(term)}) AS ${dialect.string})`);
    } else if (m.kind === 'squares') {
      // (c - shift) (c - shift) - r^2/2 in quanta (totals.ts, squareQuantaOf): a product, which every engine rounds alike.
      const d = `(${clipped(v(m.column), m.lower, m.upper)} - ${double(m.shift)})`;
      const term = `CAST(floor((${d} * ${d} - ${double(perRowOf(m))}) / ${double(sumQuantum(m))} + 0.5) AS ${dialect.bigint})`;
      expressions.set(`m${k}`, `CAST(sum(${whenValid(term)}) AS ${dialect.string})`);
    } else if (m.kind === 'dropped') {
      expressions.set(`m${k}`, `CAST(count(CASE WHEN bad${spec.unit === undefined ? '' : ' AND u IS NOT NULL'} THEN 1 END) AS ${dialect.double})`);
    } else if (m.kind === 'clipped') {
      const x = v(m.column);
      expressions.set(`m${k}`, `CAST(count(${whenValid('1', ` AND (${x} < ${double(m.lower)} OR ${x} > ${double(m.upper)})`)}) AS ${dialect.double})`);
    }
  });
  const select = resultColumns(layout).map((name) => {
    const expression = expressions.get(name);
    if (expression === undefined) throw new Error(`dpnoise: internal error: no SQL for the result column ${name}.`);
    return expression === name ? name : `${expression} AS ${name}`;
  });
  const cellColumns = cellMeasures(layout).map((_, j) => `c${j}`);
  const groupBy = cellColumns.length === 0 ? 'gi' : `GROUPING SETS ((gi), ${cellColumns.map((c) => `(gi, ${c})`).join(', ')})`;
  return `${ctes.length > 0 ? `WITH ${ctes.join(',\n')}\n` : ''}SELECT ${select.join(', ')}\nFROM ${withCells} c GROUP BY ${groupBy}`;
}

/**
 * At most `k` rows of the relation `from` per value of the `partition` columns, drawn uniformly at
 * random afresh on every run, with its `columns`. For k = 1, where the dialect has arg_min, an
 * aggregation keeps the row of least random key: every column is read at that one row (the key is
 * a column of a subquery, drawn once per row), and engines spill an aggregation to disk where DuckDB
 * 1.5's window held every row in memory (docs/aggregates.md, "Engines"). Otherwise row_number()
 * over a random order.
 */
function keepAtMost(k: number, partition: readonly string[], columns: readonly string[], from: string, dialect: Dialect): string {
  const by = partition.join(', ');
  if (k === 1 && dialect.argMin !== undefined) {
    const select = columns.map((c) => (partition.includes(c) ? c : `${dialect.argMin!(c, 'rk')} AS ${c}`));
    return `(SELECT ${select.join(', ')} FROM (SELECT *, ${dialect.random} AS rk FROM ${from} x) y GROUP BY ${by})`;
  }
  return `(SELECT ${columns.join(', ')} FROM (SELECT *, row_number() OVER (PARTITION BY ${by} ORDER BY ${dialect.random}) AS pick FROM ${from} x) p WHERE pick <= ${k})`;
}

const INVALID =
  "dpnoise: a row has a NULL, missing or non-numeric value in a column used (or in the privacy unit), or could not be read; clean the data first or pass `invalid: 'drop'` (the error reveals that such a row exists).";

const isNull = (x: unknown) => x === null || x === undefined || x === '';

/** A refusal of a result that this plan's query did not make, naming no value. */
const notMade = (what: string) => new RangeError(`dpnoise: the aggregated table has ${what}: it was not made by this plan.`);

/**
 * A whole number as an engine or a warehouse writes a total (an integer of any size as text, a
 * safe integer, '1000.0' or '1e+06'), exactly; 0 for NULL; undefined for anything else.
 */
function wholeOf(x: unknown): bigint | undefined {
  if (isNull(x)) return 0n;
  if (typeof x === 'bigint') return x;
  if (typeof x === 'string' && /^[ \t]*[-+]?[0-9]+[ \t]*$/.test(x)) return BigInt(x.trim());
  const n = typeof x === 'number' ? x : typeof x === 'string' && isNumberText(x) ? Number(x) : NaN;
  return Number.isSafeInteger(n) ? BigInt(n) : undefined;
}

/** A measure's cell count (bins, or the quantile tree's leaves). */
const cellCount = (m: Measure): number => (m.kind === 'bins' ? m.edges.length - 1 : LEAVES);

/**
 * One group of a result, its values read exactly: its totals (m0, m1, ... and valid), its cell
 * rows, each as its cell's index among all cell measures' cells (cellBase) and its number of valid
 * rows, and whether any of its rows held invalid ones.
 */
interface ResultGroup {
  total: { readonly measures: readonly bigint[]; readonly valid: bigint } | undefined;
  readonly cells: number[];
  readonly counts: bigint[];
  bad: boolean;
}

/** Where each cell measure's cells start in a group's cell index (its cell -1, of invalid rows, included). */
const cellBase = (layout: Layout) => {
  let base = 0;
  return cellMeasures(layout).map(([, m]) => {
    const at = base;
    base += cellCount(m) + 1;
    return at;
  });
};

/**
 * The result rows by group, every value of every row read once and checked, naming none: refuses
 * another plan's rows (their `plan` column) or columns, a group that is NULL or that the plan
 * never declared, a cell outside its measure, a total, count or flag that is not a whole number,
 * and a group or cell given twice. A genuine result passes whatever the data, so these checks run
 * before the charge; whether a row was invalid is read after it (totalsOfResult).
 */
export function readResultRows(rows: readonly unknown[], spec: Spec, layout: Layout, planId: string): Map<string, ResultGroup> {
  const cells = cellMeasures(layout);
  const base = cellBase(layout);
  const totals = layout.measures.map((_, k) => `m${k}`);
  const columns = resultColumns(layout);
  const groups = new Map<string, ResultGroup>();
  const whole = (x: unknown): bigint => {
    const n = wholeOf(x);
    if (n === undefined) throw notMade('a total that is not a whole number');
    return n;
  };
  for (const value of rows) {
    if (typeof value !== 'object' || value === null) throw notMade('a row that is not an object');
    const row = value as Record<string, unknown>;
    let count = 0;
    for (const _ in row) count++;
    if (count !== columns.length || !columns.every((c) => Object.hasOwn(row, c)))
      throw new RangeError(`dpnoise: the result's columns must be those of the plan's query (${columns.join(', ')}); got ${Object.keys(row).join(', ')}.`);
    if (row.plan !== planId) throw new RangeError("dpnoise: the aggregated table was not made by this plan (its `plan` column differs): rerun the plan's SQL.");
    const gi = row.gi;
    let label: string | undefined;
    if (spec.groups !== undefined) {
      const g = Number(gi);
      if (!(typeof gi === 'string' || typeof gi === 'number') || !(Number.isInteger(g) && g >= 0 && g < spec.groups.length && String(g) === String(gi)))
        throw new RangeError('dpnoise: the aggregated table has a group the plan never declared.');
      label = String(g);
    } else label = keyOf(gi);
    if (label === undefined) throw notMade('a group that is NULL');
    let cell = -1;
    cells.forEach(([, m], j) => {
      const c = row[`c${j}`];
      if (isNull(c)) return;
      const at = Number(c); // -1 for invalid rows
      if (!(wholeOf(c) !== undefined && at >= -1 && at < cellCount(m))) throw notMade('a cell outside its measure');
      if (cell >= 0) throw notMade('a row of two cells');
      cell = base[j]! + at + 1;
    });
    const valid = whole(row.valid);
    const bad = whole(row.bad);
    if (!(bad === 0n || bad === 1n)) throw notMade('a total that is not a whole number');
    const measures = totals.map((t) => whole(row[t]));
    const group = groups.get(label) ?? { total: undefined, cells: [], counts: [], bad: false };
    groups.set(label, group);
    group.bad ||= bad === 1n;
    if (cell < 0) {
      if (group.total !== undefined) throw notMade('a group given twice');
      group.total = { measures, valid };
    } else {
      group.cells.push(cell);
      group.counts.push(valid);
    }
  }
  for (const group of groups.values()) {
    const sorted = Float64Array.from(group.cells).sort();
    if (sorted.some((c, i) => i > 0 && c === sorted[i - 1])) throw notMade('a cell given twice');
  }
  return groups;
}

/**
 * The groups and totals of a result read by readResultRows (from an engine, or from a file of a
 * warehouse's result: then every value may be text, and NULL an empty string). Refuses invalid
 * rows unless `invalid: 'drop'`, naming no value: after the charge. The groups are the declared
 * ones, or when groups are selected every group with a kept valid row (in sorted order); their
 * totals are made when asked for.
 */
export function totalsOfResult(byGroup: ReadonlyMap<string, ResultGroup>, spec: Spec, layout: Layout): GroupTotals {
  const cells = cellMeasures(layout);
  const base = cellBase(layout);
  if (spec.invalid === 'error' && [...byGroup.values()].some((r) => r.bad)) throw new RangeError(INVALID);
  const declared = spec.groups !== undefined;
  const groups = spec.groups ?? [...byGroup.keys()].filter((g) => (byGroup.get(g)!.total?.valid ?? 0n) > 0n).sort();
  const resultOf = (g: number) => byGroup.get(declared ? String(g) : groups[g]!);
  const units = layout.measures.findIndex((m) => m.kind === 'units');
  return {
    groups,
    units: () => Float64Array.from(groups, (_, g) => Number(resultOf(g)?.total?.measures[units] ?? 0n)),
    totalsOf: (indices) => {
      const totals = emptyTotals(layout.measures, indices.length);
      indices.forEach((index, at) => {
        const result = resultOf(index);
        if (result === undefined) return; // a declared group with no row
        layout.measures.forEach((m, k) => {
          const x = Number(result.total?.measures[k] ?? 0n);
          if (m.kind === 'sum' || m.kind === 'squares') totals[k]![at] = x * sumQuantum(m);
          else if (m.kind === 'count' || m.kind === 'clipped' || m.kind === 'units' || m.kind === 'dropped') totals[k]![at] = x;
        });
        result.cells.forEach((index, i) => {
          let j = base.length - 1;
          while (base[j]! > index) j--;
          const [k, m] = cells[j]!;
          const cell = index - base[j]! - 1;
          if (cell >= 0) totals[k]![at * cellCount(m) + cell] = Number(result.counts[i]!); // cell -1: invalid rows
        });
      });
      return totals;
    },
  };
}

/** A suffix for a query's own tables, drawn afresh (queryNames). */
function freshSuffix(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The totals of the engine's source, computed in one query (aggregateQuery) over its `columns`
 * (source.ts, openEngine); with `invalid: 'error'`, refused if its reader left a row out.
 */
export async function engineTotals(engine: Engine, columns: readonly Column[], spec: Spec, layout: Layout): Promise<GroupTotals> {
  const dialect = DIALECT[engine.dialect];
  const planId = 'engine';
  const sql = aggregateQuery(spec, layout, dialect, columns, engine.from, planId, freshSuffix());
  if (spec.onProgress) await engine.trackProgress?.();
  const rows = await reporting(engine, spec.onProgress, () => dataRows(engine, sql));
  const found = totalsOfResult(readResultRows(rows, spec, layout, planId), spec, layout);
  if (spec.invalid === 'error' && (await engine.unreadRows?.())) throw new RangeError(INVALID);
  return found;
}
