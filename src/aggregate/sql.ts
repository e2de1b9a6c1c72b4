// The SQL of an aggregate (docs/aggregates.md, "Engines"): one query that clips, bounds
// contributions and totals each group, following the in-memory engine's rules exactly (rows.ts,
// totals.ts), rendered in each dialect (dialect.ts). dpnoise runs it on DuckDB and PostgreSQL and
// prints it for the warehouses; its result rows (a few per group) are read back here into totals,
// the same way whichever engine produced them.
import { type Column, type Dialect, DIALECT } from './dialect.js';
import { dataRows, type Engine } from './engine.js';
import { LEAVES, type Layout, type Measure } from './layout.js';
import { type Spec, valueColumns } from './spec.js';
import { emptyTotals, sumQuantum, type Totals } from './totals.js';

/** A table name (schema.table allowed), each part quoted in the dialect. */
export const tableName = (table: string, dialect: Dialect): string => table.split('.').map(dialect.identifier).join('.');

/** The FROM clause of a source: a file DuckDB reads by its extension, or a table (schema.table allowed). */
export function fromClause(spec: Spec, dialect: Dialect): string {
  if (typeof spec.source === 'string') return dialect.text(spec.source);
  return tableName((spec.source as { table: string }).table, dialect);
}

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

/** The cell measures (bins and quantile leaves), with their layout index: each is a column c0, c1, ... of the result. */
const cellMeasures = (layout: Layout) => [...layout.measures.entries()].filter(([, m]) => m.kind === 'bins' || m.kind === 'leaves');

/** The names of the query's result columns, in order. */
export function resultColumns(layout: Layout): string[] {
  const scalars = [...layout.measures.entries()].filter(([, m]) => m.kind !== 'bins' && m.kind !== 'leaves').map(([k]) => `m${k}`);
  return ['plan', 'gi', ...cellMeasures(layout).map((_, j) => `c${j}`), 'bad', 'valid', ...scalars];
}

/**
 * The query, in `dialect`, over a source with `columns` (for PostgreSQL's casts; names alone
 * elsewhere), reading `from` (fromClause). `planId` is written in every result row, so that a
 * result can be matched to the plan it was made under. One pass: the rows in declared groups with
 * their values and `bad` flag; per unit and group up to maxRows of them, drawn by the dialect's
 * random() (then up to maxGroups groups per unit, the same way; keepAtMost); each row's cell for
 * every bin and quantile measure (-1 for invalid rows); and the totals per group, and per group
 * and cell, in one aggregation by GROUPING SETS, so that every total reads the same random choice
 * of rows.
 */
export function aggregateQuery(spec: Spec, layout: Layout, dialect: Dialect, columns: readonly Column[], from: string, planId: string): string {
  const { identifier, text } = dialect;
  const double = (x: number) => `CAST(${text(String(x))} AS ${dialect.double})`;
  // NaN fails the upper test in every dialect (IEEE comparisons, or NaN sorting above every number).
  const infinity = (sign: string) => `CAST(${text(sign + dialect.infinity)} AS ${dialect.double})`;
  const finite = (v: string) => `(${v} > ${infinity('-')} AND ${v} < ${infinity('')})`;
  const clipped = (v: string, lower: number, upper: number) => `LEAST(GREATEST(${v}, ${double(lower)}), ${double(upper)})`;
  const names = valueColumns(spec);
  const v = (name: string) => `v${names.indexOf(name)}`;

  // The rows in declared groups: unit u, group gi (a declared group's index, or when groups are selected its value as text), values v0, v1, ..., and `bad`.
  const values = names.map((name, i) => `, ${dialect.number(columns.find((c) => c.name === name) ?? { name, numeric: false })} AS v${i}`).join('');
  const unit = spec.unit === undefined ? 'NULL' : `s.${identifier(spec.unit)}`;
  const key = spec.groupBy === undefined ? '' : `CAST(s.${identifier(spec.groupBy)} AS ${dialect.string})`;
  const declaredGroups = spec.groupBy !== undefined && spec.groups !== undefined;
  const join = declaredGroups ? ` JOIN dpnoise_groups d ON ${key} = d.k` : '';
  const group = spec.groupBy === undefined ? '0' : declaredGroups ? 'd.gi' : key;
  const invalid = [...(spec.unit === undefined ? [] : ['u IS NULL']), ...names.map((_, i) => `v${i} IS NULL OR NOT ${finite(`v${i}`)}`)];
  const bad = invalid.length === 0 ? 'false' : invalid.map((c) => `(${c})`).join(' OR ');
  // Subqueries, not CTEs, wherever a part is read once: PostgreSQL materializes a CTE that calls
  // random(), which cost a third more time on 1e7 rows (bench/RESULTS.md, "Aggregates").
  const ctes = declaredGroups ? [`dpnoise_groups AS (${dialect.values(spec.groups!.map((g, i) => [g, i] as const))})`] : [];
  const rows = `(SELECT *, ${bad} AS bad FROM (SELECT ${unit} AS u, ${group} AS gi${values} FROM ${from} s${join}) r WHERE gi IS NOT NULL)`;

  // Contribution bounding: uniformly random rows per unit and group, then groups per unit; invalid rows in partitions of their own.
  const all = ['u', 'gi', ...names.map((_, i) => `v${i}`), 'bad'];
  let kept = rows;
  if (spec.unit !== undefined) {
    const perGroup = keepAtMost(spec.maxRows, ['u', 'gi', 'bad'], all, rows, dialect);
    kept = perGroup;
    if (spec.groups === undefined || spec.maxGroups < spec.groups.length) {
      if (spec.maxRows === 1) {
        // A unit has one row per group (and flag) now: keeping maxGroups of its rows keeps maxGroups of its groups.
        kept = keepAtMost(spec.maxGroups, ['u', 'bad'], all, perGroup, dialect);
      } else {
        // Read twice (for the groups per unit, and for the rows kept), so a CTE: one random choice for both.
        ctes.push(`dpnoise_per_group AS ${perGroup}`);
        const unitGroups = keepAtMost(spec.maxGroups, ['u'], ['u', 'gi'], '(SELECT DISTINCT u, gi FROM dpnoise_per_group WHERE NOT bad)', dialect);
        kept = `(SELECT ${all.map((c) => `p.${c}`).join(', ')} FROM dpnoise_per_group p LEFT JOIN ${unitGroups} g ON p.u = g.u AND p.gi = g.gi WHERE p.bad OR g.u IS NOT NULL)`;
      }
    }
  }

  // Each kept row's cell for every bin and quantile measure, -1 for an invalid row.
  const cells = cellMeasures(layout).map(
    ([, m], j) => `, CASE WHEN bad THEN -1 ELSE ${cellSql(m, v((m as { column: string }).column), double, clipped, dialect)} END AS c${j}`,
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

/** The SQL of a bin or quantile leaf measure's cell of a valid row. */
function cellSql(m: Measure, column: string, double: (x: number) => string, clipped: (v: string, l: number, u: number) => string, dialect: Dialect): string {
  if (m.kind === 'bins') {
    const x = clipped(column, m.edges[0]!, m.edges.at(-1)!);
    const inner = m.edges.slice(1, -1).map((e) => `CASE WHEN ${x} >= ${double(e)} THEN 1 ELSE 0 END`);
    return inner.length === 0 ? '0' : inner.join(' + ');
  }
  if (m.kind === 'leaves') {
    const x = clipped(column, m.lower, m.upper);
    return `LEAST(${LEAVES - 1}, CAST(floor(((${x} - ${double(m.lower)}) / (${double(m.upper)} - ${double(m.lower)})) * ${LEAVES}) AS ${dialect.bigint}))`;
  }
  throw new Error(`dpnoise: internal error: no cells for a ${m.kind} measure.`);
}

const INVALID =
  "dpnoise: a row has a NULL, missing or non-numeric value in a column used (or in the privacy unit); clean the data first or pass `invalid: 'drop'` (the error reveals that such a row exists).";

const isNull = (x: unknown) => x === null || x === undefined || x === '';

const NOT_WHOLE = 'dpnoise: the aggregated table has a total that is not a whole number: it was not made by this plan.';

/** A sum's total in quanta, exactly (0 for NULL); anything but an integer is refused naming no value (BigInt's own error quotes it). */
function quanta(x: unknown): bigint {
  if (isNull(x)) return 0n;
  if (typeof x === 'bigint') return x;
  if ((typeof x === 'number' && Number.isInteger(x)) || (typeof x === 'string' && /^\s*[+-]?\d+\s*$/.test(x))) return BigInt(x);
  throw new RangeError(NOT_WHOLE);
}

/** A count's total (the query writes it as a double, e.g. 1000.0; 0 for NULL). */
function whole(x: unknown): number {
  const n = isNull(x) ? 0 : Number(x);
  if (!Number.isInteger(n)) throw new RangeError(NOT_WHOLE);
  return n;
}

/** A measure's cell count (bins, or the quantile tree's leaves). */
const cellCount = (m: Measure): number => (m.kind === 'bins' ? m.edges.length - 1 : LEAVES);

/**
 * Refuses result rows this plan did not make, naming no value: another plan's (their `plan`
 * column), a group the plan never declared, a cell outside its measure. Their structure only:
 * whether a row is valid, and its totals, are read later (totalsFromRows).
 */
export function checkResultRows(rows: readonly Record<string, unknown>[], spec: Spec, layout: Layout, planId: string): void {
  const cells = cellMeasures(layout);
  for (const row of rows) {
    if (row.plan !== planId) throw new RangeError("dpnoise: the aggregated table was not made by this plan (its `plan` column differs): rerun the plan's SQL.");
    if (spec.groups !== undefined) {
      const g = Number(row.gi);
      if (!(Number.isInteger(g) && g >= 0 && g < spec.groups.length && String(g) === String(row.gi)))
        throw new RangeError('dpnoise: the aggregated table has a group the plan never declared.');
    }
    cells.forEach(([, m], j) => {
      const c = row[`c${j}`];
      if (isNull(c)) return;
      const cell = Number(c); // -1 for an invalid row
      if (!(Number.isInteger(cell) && cell >= -1 && cell < cellCount(m)))
        throw new RangeError('dpnoise: the aggregated table has a cell outside its measure: it was not made by this plan.');
    });
  }
}

/**
 * The groups and totals of the query's result rows (from an engine, or read from a file of a
 * warehouse's result: then every value may be text, and NULL an empty string), checked first
 * (checkResultRows). Refuses, naming no value, a total that is not a whole number, and invalid
 * rows unless `invalid: 'drop'`. The groups are the declared ones, or when groups are selected
 * every group with a kept valid row (in sorted order).
 */
export function totalsFromRows(
  rows: readonly Record<string, unknown>[],
  spec: Spec,
  layout: Layout,
  planId: string,
): { groups: readonly string[]; totals: Totals } {
  checkResultRows(rows, spec, layout, planId);
  const cells = cellMeasures(layout);
  const isTotal = (row: Record<string, unknown>) => cells.every((_, j) => isNull(row[`c${j}`]));
  if (spec.invalid === 'error' && rows.some((row) => Number(row.bad) > 0)) throw new RangeError(INVALID);
  const groups = spec.groups ?? rows.flatMap((row) => (isTotal(row) && Number(row.valid) > 0 ? [String(row.gi)] : [])).sort();
  const index = new Map(spec.groups === undefined ? groups.map((g, i) => [g, i]) : groups.map((_, i) => [String(i), i]));
  const totals = emptyTotals(layout.measures, groups.length);
  for (const row of rows) {
    const g = index.get(String(row.gi));
    if (g === undefined) continue; // a selected group with no valid row
    if (isTotal(row)) {
      layout.measures.forEach((m, k) => {
        const x = row[`m${k}`];
        if (m.kind === 'sum') totals[k]![g] = Number(quanta(x)) * sumQuantum(m);
        else if (m.kind === 'count' || m.kind === 'clipped' || m.kind === 'units') totals[k]![g] = whole(x);
      });
      continue;
    }
    cells.forEach(([k, m], j) => {
      const cell = Number(row[`c${j}`]);
      if (isNull(row[`c${j}`]) || cell === -1) return; // another measure's row, or invalid rows
      totals[k]![g * cellCount(m) + cell] = Number(row.valid);
    });
  }
  return { groups, totals };
}

/**
 * The totals of the spec's source, computed by the engine in one query (aggregateQuery) over its
 * `columns` (source.ts, openEngine).
 */
export async function engineTotals(
  engine: Engine,
  columns: readonly Column[],
  spec: Spec,
  layout: Layout,
): Promise<{ groups: readonly string[]; totals: Totals }> {
  const dialect = DIALECT[engine.dialect];
  const planId = 'engine';
  const sql = aggregateQuery(spec, layout, dialect, columns, fromClause(spec, dialect), planId);
  if (spec.onProgress) await engine.trackProgress?.();
  const rows = await reporting(engine, spec.onProgress, () => dataRows(engine, sql));
  return totalsFromRows(rows, spec, layout, planId);
}
