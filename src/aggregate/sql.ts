// The SQL of an aggregate (docs/aggregates.md, "Engines"): the clipping, contribution bounding and
// grouped totals, following the in-memory engine's rules exactly (rows.ts, totals.ts), in one
// rendering that DuckDB and PostgreSQL both run; the dialects differ only in how a value becomes
// a number. Only the totals come back to JavaScript.
import type { Column, Dialect, Engine } from './engine.js';
import { LEAVES, type Layout, type Measure } from './layout.js';
import { type Spec, valueColumns } from './spec.js';
import { emptyTotals, sumQuantum, type Totals } from './totals.js';

/** The quoted SQL identifier of a name. */
const identifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;
/** A SQL string literal. */
const text = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** The FROM clause of a source: a file DuckDB reads by its extension, or a table (schema.table allowed). */
export function fromClause(spec: Spec): string {
  if (typeof spec.source === 'string') return text(spec.source);
  const { table } = spec.source as { table: string };
  return table.split('.').map(identifier).join('.');
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

/** A double as SQL, exactly: the shortest decimal that reads back as it, parsed as a FLOAT8. */
const double = (x: number) => `CAST(${text(String(x))} AS FLOAT8)`;
/** Whether a FLOAT8 is finite (NaN sorts above every number in both engines, so it fails the upper test). */
const finite = (v: string) => `(${v} > ${double(-Infinity)} AND ${v} < ${double(Infinity)})`;
/** A decimal number written as text, its exponent at most 4 digits (so PostgreSQL's NUMERIC takes it). */
const DECIMAL = String.raw`'^\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]{1,4})?\s*$'`;

/**
 * A value column as a FLOAT8, NULL where it is not a number: DuckDB's TRY_CAST; in PostgreSQL a
 * number column cast, and a text column's decimal text through NUMERIC (NULL beyond the doubles).
 * No value can make the SQL fail, so no engine error can quote one.
 */
function numberSql(dialect: Dialect, column: Column): string {
  const c = `s.${identifier(column.name)}`;
  if (dialect === 'duckdb') return `TRY_CAST(${c} AS FLOAT8)`;
  if (column.numeric) return `CAST(${c} AS FLOAT8)`;
  // Nested CASEs, not AND: PostgreSQL may evaluate AND's operands in any order, and a cast of
  // non-numeric text fails with a message that quotes the (private) text.
  const t = `CAST(${c} AS TEXT)`;
  const n = `CAST(${t} AS NUMERIC)`;
  return `CASE WHEN ${t} ~ ${DECIMAL} THEN (CASE WHEN abs(${n}) < 1e308 THEN CAST(${n} AS FLOAT8) END) END`;
}

function clipped(column: string, lower: number, upper: number): string {
  return `LEAST(GREATEST(${column}, ${double(lower)}), ${double(upper)})`;
}

/** The SQL of a measure's value per kept row (its cell for bins and leaves). */
function cellSql(m: Measure, column: string): string {
  if (m.kind === 'bins') {
    const x = clipped(column, m.edges[0]!, m.edges.at(-1)!);
    const inner = m.edges.slice(1, -1).map((e) => `CAST(${x} >= ${double(e)} AS INTEGER)`);
    return inner.length === 0 ? '0' : inner.join(' + ');
  }
  if (m.kind === 'leaves') {
    const x = clipped(column, m.lower, m.upper);
    return `LEAST(${LEAVES - 1}, CAST(floor(((${x} - ${double(m.lower)}) / (${double(m.upper)} - ${double(m.lower)})) * ${LEAVES}) AS BIGINT))`;
  }
  throw new Error(`dpnoise: internal error: no cells for a ${m.kind} measure.`);
}

/** The SQL of the declared groups as a table (k, gi), joined to the source's group column. */
function groupsSql(groups: readonly string[]): string {
  return `SELECT * FROM (VALUES ${groups.map((g, i) => `(${text(g)}, ${i})`).join(', ')}) v(k, gi)`;
}

/** The columns of every row the SQL below carries: the unit, the group, the values v0, v1, ... and `bad`. */
const rowColumns = (spec: Spec) => ['u', 'gi', ...valueColumns(spec).map((_, i) => `v${i}`), 'bad'].join(', ');

/**
 * The SQL of the source's rows with their group `gi` (a declared group's index, through the table
 * `groups` of groupsSql; or, when groups are selected, the group's value as text), their values,
 * and whether any is invalid (`bad`). Rows without a group (or not in a declared one) are left out.
 */
function declaredSql(spec: Spec, dialect: Dialect, columns: readonly Column[], groups: string): string {
  const names = valueColumns(spec);
  const values = names.map((name, i) => `, ${numberSql(dialect, columns.find((c) => c.name === name)!)} AS v${i}`).join('');
  const unit = spec.unit === undefined ? 'NULL' : `s.${identifier(spec.unit)}`;
  const key = spec.groupBy === undefined ? '' : `CAST(s.${identifier(spec.groupBy)} AS VARCHAR)`;
  const join = spec.groupBy === undefined || spec.groups === undefined ? '' : ` JOIN ${groups} d ON ${key} = d.k`;
  const group = spec.groupBy === undefined ? '0' : spec.groups === undefined ? key : 'd.gi';
  const invalid = [...(spec.unit === undefined ? [] : ['u IS NULL']), ...names.map((_, i) => `v${i} IS NULL OR NOT ${finite(`v${i}`)}`)];
  const bad = invalid.length === 0 ? 'false' : invalid.map((c) => `(${c})`).join(' OR ');
  return `SELECT *, ${bad} AS bad FROM (SELECT ${unit} AS u, ${group} AS gi${values} FROM ${fromClause(spec)} s${join}) r WHERE gi IS NOT NULL`;
}

/**
 * The SQL of the rows in declared groups within the contribution bounds (uniformly random rows
 * per unit and group, then groups per unit, drawn by the engine's random() afresh each run), in
 * one pass over the source. Invalid rows stay, in window partitions of their own and flagged
 * `bad`, so that the same pass tells whether there are any; no statistic counts them.
 */
function keptSql(spec: Spec, dialect: Dialect, columns: readonly Column[], groups: string): string {
  const declared = `(${declaredSql(spec, dialect, columns, groups)})`;
  if (spec.unit === undefined) return `SELECT * FROM ${declared} d`;
  const all = rowColumns(spec);
  const perGroup = `SELECT ${all} FROM (SELECT *, row_number() OVER (PARTITION BY u, gi, bad ORDER BY random()) AS pick FROM ${declared} d) p WHERE pick <= ${spec.maxRows}`;
  if (spec.groups !== undefined && spec.maxGroups >= spec.groups.length) return perGroup;
  const unitGroups = `SELECT u, gi FROM (SELECT u, gi, row_number() OVER (PARTITION BY u ORDER BY random()) AS pick FROM (SELECT DISTINCT u, gi FROM per_group WHERE NOT bad) a) b WHERE pick <= ${spec.maxGroups}`;
  return `WITH per_group AS (${perGroup}), unit_groups AS (${unitGroups})
    SELECT ${all
      .split(', ')
      .map((c) => `p.${c}`)
      .join(', ')} FROM per_group p LEFT JOIN unit_groups g ON p.u = g.u AND p.gi = g.gi WHERE p.bad OR g.u IS NOT NULL`;
}

/** The SQL of each per-group total (not bins or leaves), over kept rows with valid values (`v0`, ...: the columns' indices). */
/** (`unit`: whether rows have a privacy unit; without one each row is its own.) */
function scalarsSql(layout: Layout, column: (name: string) => string, unit: boolean): string[] {
  const scalars: string[] = [];
  layout.measures.forEach((m, k) => {
    if (m.kind === 'count') scalars.push(`CAST(count(*) FILTER (WHERE NOT bad) AS FLOAT8) AS m${k}`);
    else if (m.kind === 'units') scalars.push(`CAST(${unit ? 'count(DISTINCT u)' : 'count(*)'} FILTER (WHERE NOT bad) AS FLOAT8) AS m${k}`);
    else if (m.kind === 'sum') {
      // Each term is at most 2^25 quanta: a BIGINT; DuckDB sums BIGINTs into a HUGEINT and PostgreSQL into a NUMERIC, exactly.
      const term = `CAST(floor((${clipped(column(m.column), m.lower, m.upper)} - ${double(m.shift)}) / ${double(sumQuantum(m))} + 0.5) AS BIGINT)`;
      scalars.push(`CAST(sum(${term}) FILTER (WHERE NOT bad) AS VARCHAR) AS m${k}`);
    } else if (m.kind === 'clipped') {
      const x = column(m.column);
      scalars.push(`CAST(count(*) FILTER (WHERE NOT bad AND (${x} < ${double(m.lower)} OR ${x} > ${double(m.upper)})) AS FLOAT8) AS m${k}`);
    }
  });
  return scalars;
}

const INVALID =
  "dpnoise: a row has a NULL, missing or non-numeric value in a column used (or in the privacy unit); clean the data first or pass `invalid: 'drop'` (the error reveals that such a row exists).";

/**
 * The totals of the spec's source, computed by the engine in one pass over the source: one query
 * when every measure is a per-group total; with bins or quantile leaves, the kept rows go to a
 * temporary table first, so that every count reads the same random selection. The groups are the
 * declared ones, or when groups are selected every group with a kept valid row (in sorted order).
 * `columns` are the source's (engine.ts, openEngine).
 */
export async function engineTotals(
  engine: Engine,
  columns: readonly Column[],
  spec: Spec,
  layout: Layout,
): Promise<{ groups: readonly string[]; totals: Totals }> {
  const names = valueColumns(spec);
  const column = (name: string) => `v${names.indexOf(name)}`;
  const name = `dpnoise_${crypto.randomUUID().replaceAll('-', '')}`;
  const groupsTable = identifier(`${name}_groups`);
  const kept = identifier(`${name}_kept`);
  const cellMeasures = [...layout.measures.entries()].filter(([, m]) => m.kind === 'bins' || m.kind === 'leaves');
  const keep = () => keptSql(spec, engine.dialect, columns, groupsTable);
  try {
    if (spec.groups !== undefined) await engine.run(`CREATE TEMPORARY TABLE ${groupsTable} AS ${groupsSql(spec.groups)}`);
    if (spec.onProgress) await engine.trackProgress?.();
    let from = `(${keep()}) k`;
    if (cellMeasures.length > 0) {
      await reporting(engine, spec.onProgress, () => engine.run(`CREATE TEMPORARY TABLE ${kept} AS ${keep()}`));
      from = kept;
    }
    const scalars = scalarsSql(layout, column, spec.unit !== undefined);
    const totalsSql = `SELECT gi, bool_or(bad) AS bad, count(*) FILTER (WHERE NOT bad) AS valid, ${scalars.join(', ')} FROM ${from} GROUP BY gi`;
    const rows = await reporting(engine, spec.onProgress, () => engine.rows(totalsSql));
    if (spec.invalid === 'error' && rows.some((row) => row.bad === true)) throw new RangeError(INVALID);
    const groups = spec.groups ?? rows.flatMap((row) => (Number(row.valid) > 0 ? [String(row.gi)] : [])).sort();
    const index = new Map(spec.groups === undefined ? groups.map((g, i) => [g, i]) : groups.map((_, i) => [String(i), i]));
    const totals = emptyTotals(layout.measures, groups.length);
    for (const row of rows) {
      const g = index.get(String(row.gi));
      if (g === undefined) continue;
      layout.measures.forEach((m, k) => {
        if (m.kind === 'sum') totals[k]![g] = row[`m${k}`] === null ? 0 : Number(BigInt(row[`m${k}`] as string)) * sumQuantum(m);
        else if (m.kind === 'count' || m.kind === 'clipped' || m.kind === 'units') totals[k]![g] = Number(row[`m${k}`]);
      });
    }
    for (const [k, m] of cellMeasures) {
      const cells = m.kind === 'bins' ? m.edges.length - 1 : LEAVES;
      const sql = `SELECT gi, ${cellSql(m, column((m as { column: string }).column))} AS cell, CAST(count(*) AS FLOAT8) AS n FROM ${kept} WHERE NOT bad GROUP BY 1, 2`;
      for (const row of await engine.rows(sql)) {
        const g = index.get(String(row.gi));
        if (g !== undefined) totals[k]![g * cells + Number(row.cell)] = Number(row.n);
      }
    }
    return { groups, totals };
  } finally {
    await engine.run(`DROP TABLE IF EXISTS ${groupsTable}; DROP TABLE IF EXISTS ${kept}`);
  }
}
