// Opens the engine a spec's source needs (engine.ts): DuckDB for files and DuckDB connections
// (duckdb.ts), DuckDB-Wasm for its connections in a browser (duckdb-wasm.ts), PostgreSQL for pg clients, pools and connection strings (postgres.ts), ClickHouse for a server's
// URL (clickhouse.ts, needing no package); each an
// optional peer dependency, loaded on first use. The source's columns are checked against the
// spec before any row is read.
import { describe } from '../core/validate.js';
import { openClickHouse } from './clickhouse.js';
import { openDuckDB } from './duckdb.js';
import { isDuckDBWasmConnection, openDuckDBWasm } from './duckdb-wasm.js';
import type { Column } from './dialect.js';
import { type ArqueroTableLike, type ArrowTableLike, columnarColumns, refuseDecimals } from './columnar.js';
import type { Engine } from './engine.js';
import { openPostgres } from './postgres.js';
import { type Spec, valueColumns } from './spec.js';

/** A DuckDB connection (`DuckDBConnection` of @duckdb/node-api) by what dpnoise calls of it. */
const isDuckDBConnection = (c: unknown): boolean => typeof (c as { runAndReadAll?: unknown })?.runAndReadAll === 'function';
/** A pg Client or Pool by what dpnoise calls of it (DuckDB-Wasm's connection has a `query` too). */
const isPostgresClient = (c: unknown): boolean => typeof (c as { query?: unknown })?.query === 'function' && !isDuckDBWasmConnection(c);

/** Every column the spec reads: the unit, the groups' and the values'. */
const neededColumns = (spec: Spec): string[] => [...new Set([spec.unit, spec.groupBy, ...valueColumns(spec)].filter((c): c is string => c !== undefined))];

/** The edit distance of two names (insertions, deletions, substitutions), case aside. */
function distance(a: string, b: string): number {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[y.length]!;
}

/** ' (did you mean "age"?)' for the one name within two edits of `name`, if there is exactly one. */
function didYouMean(name: string, names: readonly string[]): string {
  const near = names.filter((n) => distance(n, name) <= 2);
  return near.length === 1 ? ` (did you mean ${JSON.stringify(near[0])}?)` : '';
}

/**
 * Refuses a spec naming columns the source does not have, or declared groups that cannot match
 * their column: text groups on a column of numbers (values.ts). A database table's column names
 * are its schema, and a close one is suggested; a file's are not shown: a file without a header
 * row would show its first row of data.
 */
function checkColumns(spec: Spec, available: readonly Column[], schema: boolean): void {
  const names = available.map((c) => c.name);
  const missing = neededColumns(spec).filter((c) => !names.includes(c));
  if (missing.length > 0) {
    const which = missing.map((c) => JSON.stringify(c) + (schema ? didYouMean(c, names) : '')).join(', ');
    throw new TypeError(
      schema
        ? `dpnoise: the table has no column ${which}.`
        : `dpnoise: the table has no column ${which} (it has ${names.length} columns, not named here: a file without a header row would show its first row of data).`,
    );
  }
  const type = available.find((c) => c.name === spec.groupBy)?.type;
  if (spec.groups !== undefined && spec.groupNumbers === undefined && (type === 'number' || type === 'decimal'))
    throw new TypeError(
      `dpnoise: \`groups\` must all be numbers (or texts of numbers) to match the column ${JSON.stringify(spec.groupBy)}, which holds numbers; got ${spec.groups.map((g) => JSON.stringify(g)).join(', ')}.`,
    );
}

/**
 * Refuses a spec an Arrow or Arquero table cannot answer, from its schema alone: columns it does
 * not have (a near name suggested: its column names are public, as a database table's), or Decimal
 * columns.
 */
export function checkColumnar(spec: Spec, table: ArrowTableLike | ArqueroTableLike): void {
  const columns = columnarColumns(table);
  checkColumns(spec, columns, true);
  refuseDecimals(columns, neededColumns(spec));
}

/**
 * The engine for a spec's source, opened and checked against the spec (its columns exist), and
 * the source's columns; `close` when done.
 */
export async function openEngine(spec: Spec): Promise<{ engine: Engine; columns: Column[] }> {
  const source = spec.source as string | { connection?: unknown; postgres?: string; clickhouse?: string; table: string };
  let engine: Engine;
  if (typeof source === 'string' || isDuckDBConnection(source.connection))
    engine = await openDuckDB(source as string | { connection: unknown; table: string }, neededColumns(spec));
  else if (source.clickhouse !== undefined) engine = await openClickHouse({ clickhouse: source.clickhouse, table: source.table });
  else if (isDuckDBWasmConnection(source.connection)) engine = openDuckDBWasm(source.connection, source.table);
  else if (source.postgres !== undefined || isPostgresClient(source.connection)) engine = await openPostgres(source);
  else
    throw new TypeError(
      `dpnoise: \`table.connection\` must be a DuckDB connection (from @duckdb/node-api or @duckdb/duckdb-wasm) or a PostgreSQL client or pool (from pg); got ${describe(source.connection)}.`,
    );
  try {
    const columns = await engine.columns();
    checkColumns(spec, columns, typeof source !== 'string');
    return { engine, columns };
  } catch (error) {
    await engine.close();
    throw error;
  }
}
