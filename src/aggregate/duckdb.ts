// The DuckDB engine: the clipping, contribution bounding and grouped totals run as SQL in DuckDB
// (out of core, on every core), and only the totals come back. The SQL follows the in-memory
// engine's rules exactly (rows.ts, totals.ts); DuckDB (`@duckdb/node-api`) is an optional peer
// dependency, loaded on first use.
import { describe } from '../core/validate.js';
import { LEAVES, type Layout, type Measure } from './layout.js';
import { type Spec, valueColumns } from './spec.js';
import { emptyTotals, sumQuantum, type Totals } from './totals.js';

/** What dpnoise uses of a DuckDB connection (`DuckDBConnection` of @duckdb/node-api). */
interface Connection {
  runAndReadAll(sql: string): Promise<{ getRowObjectsJS(): Record<string, unknown>[]; columnNames(): string[] }>;
  run(sql: string): Promise<unknown>;
  /** DuckDB's estimate of the running query's progress (percentage -1 when it has none). */
  readonly progress?: { readonly percentage: number };
}

/** Runs `work`, reporting the connection's progress to `onProgress` every 250 ms meanwhile (DuckDB's progress tracking turned on first, by duckdbTotals). */
async function reporting<T>(connection: Connection, onProgress: ((fraction: number) => void) | undefined, work: () => Promise<T>): Promise<T> {
  if (onProgress === undefined) return work();
  const timer = setInterval(() => {
    const percentage = connection.progress?.percentage ?? -1;
    if (percentage >= 0) onProgress(percentage / 100);
  }, 250);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

interface DuckDBModule {
  DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<Connection & { closeSync?(): void }>; closeSync?(): void }> };
}

/** @duckdb/node-api, or an error that says how to get it. */
async function loadDuckDB(): Promise<DuckDBModule> {
  try {
    // A specifier in a variable: bundlers for the browser leave it alone (rows in memory need no engine).
    const specifier = '@duckdb/node-api';
    return (await import(/* @vite-ignore */ specifier)) as DuckDBModule;
  } catch {
    throw new Error('dpnoise: aggregates over files and DuckDB tables need the package @duckdb/node-api; install it with `npm install @duckdb/node-api`.');
  }
}

const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
const text = (value: string) => `'${value.replaceAll("'", "''")}'`;
/** A double as SQL, exactly: the shortest decimal that reads back as it, parsed as a DOUBLE. */
const double = (x: number) => `CAST(${text(String(x))} AS DOUBLE)`;

/** The FROM clause of a source: a file DuckDB reads by its extension, or a table of the connection. */
function fromClause(spec: Spec): string {
  if (typeof spec.source === 'string') return text(spec.source);
  const { table } = spec.source as { table: string };
  return table.split('.').map(identifier).join('.');
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

/** The columns of a source, to check the spec's before anything else is read. */
async function columnsOf(connection: Connection, from: string): Promise<string[]> {
  const reader = await connection.runAndReadAll(`SELECT * FROM ${from} LIMIT 0`);
  return reader.columnNames();
}

/** Refuses a spec naming columns the source does not have (its schema, not its data). */
function checkColumns(spec: Spec, available: readonly string[]): void {
  const needed = [spec.unit, spec.groupBy, ...valueColumns(spec)].filter((c): c is string => c !== undefined);
  const missing = needed.filter((c) => !available.includes(c));
  if (missing.length > 0) {
    throw new TypeError(
      `dpnoise: the table has no column ${missing.map((c) => JSON.stringify(c)).join(', ')}; its columns are ${available.map((c) => JSON.stringify(c)).join(', ')}.`,
    );
  }
}

/** An open DuckDB connection for a spec's source, checked against the spec; `close` when done. */
export async function openSource(spec: Spec): Promise<{ connection: Connection; close(): void }> {
  let connection: Connection;
  let close = () => {};
  if (typeof spec.source === 'string') {
    const { DuckDBInstance } = await loadDuckDB();
    const instance = await DuckDBInstance.create(':memory:');
    const c = await instance.connect();
    connection = c;
    close = () => {
      c.closeSync?.();
      instance.closeSync?.();
    };
  } else {
    const given = (spec.source as { connection: unknown }).connection;
    if (typeof (given as Connection).runAndReadAll !== 'function') {
      throw new TypeError(`dpnoise: \`table.connection\` must be a DuckDB connection (from @duckdb/node-api's instance.connect()); got ${describe(given)}.`);
    }
    connection = given as Connection;
  }
  try {
    checkColumns(spec, await columnsOf(connection, fromClause(spec)));
  } catch (error) {
    close();
    throw error;
  }
  return { connection, close };
}

/** The SQL of the declared groups as a table (key, gi), joined to the source's group column. */
function groupsSql(groups: readonly string[]): string {
  return `SELECT * FROM (VALUES ${groups.map((g, i) => `(${text(g)}, ${i})`).join(', ')}) v(k, gi)`;
}

/**
 * The SQL of the source's rows with their group `gi` (a declared group's index, through the table
 * `groups` of groupsSql; or, when groups are selected, the group's value as text), their values,
 * and whether any is invalid (`bad`). Rows without a group (or not in a declared one) are left out.
 */
function declaredSql(spec: Spec, groups: string): string {
  const columns = valueColumns(spec);
  const values = columns.map((c, i) => `, TRY_CAST(s.${identifier(c)} AS DOUBLE) AS v${i}`).join('');
  const unit = spec.unit === undefined ? 'NULL' : `s.${identifier(spec.unit)}`;
  const key = spec.groupBy === undefined ? '' : `CAST(s.${identifier(spec.groupBy)} AS VARCHAR)`;
  const join = spec.groupBy === undefined || spec.groups === undefined ? '' : ` JOIN ${groups} d ON ${key} = d.k`;
  const group = spec.groupBy === undefined ? '0' : spec.groups === undefined ? key : 'd.gi';
  const invalid = [...(spec.unit === undefined ? [] : ['u IS NULL']), ...columns.map((_, i) => `v${i} IS NULL OR NOT isfinite(v${i})`)];
  const bad = invalid.length === 0 ? 'false' : invalid.map((c) => `(${c})`).join(' OR ');
  return `SELECT *, ${bad} AS bad FROM (SELECT ${unit} AS u, ${group} AS gi${values} FROM ${fromClause(spec)} s${join}) WHERE gi IS NOT NULL`;
}

/**
 * The SQL of the rows in declared groups within the contribution bounds (uniformly random rows
 * per unit and group, then groups per unit), in one pass over the source. Invalid rows stay, in
 * window partitions of their own and flagged `bad`, so that the same pass tells whether there
 * are any; no statistic counts them.
 */
function keptSql(spec: Spec, groups: string): string {
  const declared = `(${declaredSql(spec, groups)})`;
  if (spec.unit === undefined) return `SELECT * FROM ${declared}`;
  const perGroup = `SELECT * FROM ${declared} QUALIFY row_number() OVER (PARTITION BY u, gi, bad ORDER BY random()) <= ${spec.maxRows}`;
  if (spec.groups !== undefined && spec.maxGroups >= spec.groups.length) return perGroup;
  return `WITH per_group AS (${perGroup}),
    unit_groups AS (SELECT u, gi FROM (SELECT DISTINCT u, gi FROM per_group WHERE NOT bad) QUALIFY row_number() OVER (PARTITION BY u ORDER BY random()) <= ${spec.maxGroups})
    SELECT p.* FROM per_group p LEFT JOIN unit_groups g ON p.u = g.u AND p.gi = g.gi WHERE p.bad OR g.u IS NOT NULL`;
}

/** The SQL of each per-group total (not bins or leaves), over kept rows with valid values (`v0`, ...: the columns' indices). */
/** (`unit`: whether rows have a privacy unit; without one each row is its own.) */
function scalarsSql(layout: Layout, column: (name: string) => string, unit: boolean): string[] {
  const scalars: string[] = [];
  layout.measures.forEach((m, k) => {
    if (m.kind === 'count') scalars.push(`CAST(count(*) FILTER (WHERE NOT bad) AS DOUBLE) AS m${k}`);
    else if (m.kind === 'units') scalars.push(`CAST(${unit ? 'count(DISTINCT u)' : 'count(*)'} FILTER (WHERE NOT bad) AS DOUBLE) AS m${k}`);
    else if (m.kind === 'sum') {
      // Each term is at most 2^25 quanta: BIGINT; DuckDB sums BIGINTs into a HUGEINT, exactly.
      const term = `CAST(floor((${clipped(column(m.column), m.lower, m.upper)} - ${double(m.shift)}) / ${double(sumQuantum(m))} + 0.5) AS BIGINT)`;
      scalars.push(`CAST(sum(${term}) FILTER (WHERE NOT bad) AS VARCHAR) AS m${k}`);
    } else if (m.kind === 'clipped') {
      const x = column(m.column);
      scalars.push(`CAST(count(*) FILTER (WHERE NOT bad AND (${x} < ${double(m.lower)} OR ${x} > ${double(m.upper)})) AS DOUBLE) AS m${k}`);
    }
  });
  return scalars;
}

const INVALID =
  "dpnoise: a row has a NULL, missing or non-numeric value in a column used (or in the privacy unit); clean the data first or pass `invalid: 'drop'` (the error reveals that such a row exists).";

/**
 * The totals of the spec's source, computed in DuckDB in one pass over the source: one query
 * when every measure is a per-group total; with bins or quantile leaves, the kept rows go to a
 * temporary table first, so that every count reads the same random selection. The groups are the
 * declared ones, or when groups are selected every group with a kept valid row (in sorted order).
 */
export async function duckdbTotals(connection: Connection, spec: Spec, layout: Layout): Promise<{ groups: readonly string[]; totals: Totals }> {
  const columns = valueColumns(spec);
  const column = (name: string) => `v${columns.indexOf(name)}`;
  const name = `dpnoise_${crypto.randomUUID().replaceAll('-', '')}`;
  const groupsTable = identifier(`${name}_groups`);
  const kept = identifier(`${name}_kept`);
  const cellMeasures = [...layout.measures.entries()].filter(([, m]) => m.kind === 'bins' || m.kind === 'leaves');
  try {
    if (spec.groups !== undefined) await connection.run(`CREATE TEMPORARY TABLE ${groupsTable} AS ${groupsSql(spec.groups)}`);
    // DuckDB tracks progress only with its progress bar on (printing it is a separate setting).
    if (spec.onProgress) await connection.run('SET enable_progress_bar = true; SET enable_progress_bar_print = false');
    let from = `(${keptSql(spec, groupsTable)})`;
    if (cellMeasures.length > 0) {
      await reporting(connection, spec.onProgress, () => connection.run(`CREATE TEMPORARY TABLE ${kept} AS ${keptSql(spec, groupsTable)}`));
      from = kept;
    }
    const scalars = scalarsSql(layout, column, spec.unit !== undefined);
    const totalsSql = `SELECT gi, bool_or(bad) AS bad, count(*) FILTER (WHERE NOT bad) AS valid, ${scalars.join(', ')} FROM ${from} GROUP BY gi`;
    const rows = (await reporting(connection, spec.onProgress, () => connection.runAndReadAll(totalsSql))).getRowObjectsJS();
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
      const sql = `SELECT gi, ${cellSql(m, column((m as { column: string }).column))} AS cell, CAST(count(*) AS DOUBLE) AS n FROM ${kept} WHERE NOT bad GROUP BY ALL`;
      for (const row of (await connection.runAndReadAll(sql)).getRowObjectsJS()) {
        const g = index.get(String(row.gi));
        if (g !== undefined) totals[k]![g * cells + Number(row.cell)] = Number(row.n);
      }
    }
    return { groups, totals };
  } finally {
    await connection.run(`DROP TABLE IF EXISTS ${groupsTable}; DROP TABLE IF EXISTS ${kept}`);
  }
}
