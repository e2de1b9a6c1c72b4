// Opens the engine a spec's source needs (engine.ts): DuckDB for files and DuckDB connections
// (duckdb.ts), DuckDB-Wasm for its connections in a browser (duckdb-wasm.ts), PostgreSQL for pg clients, pools and connection strings (postgres.ts); each an
// optional peer dependency, loaded on first use. The source's columns are checked against the
// spec before any row is read.
import { describe } from '../core/validate.js';
import { openDuckDB } from './duckdb.js';
import { isDuckDBWasmConnection, openDuckDBWasm } from './duckdb-wasm.js';
import { type Column, DIALECT } from './dialect.js';
import type { Engine } from './engine.js';
import { openPostgres } from './postgres.js';
import { type Spec, valueColumns } from './spec.js';
import { fromClause } from './sql.js';

/** A DuckDB connection (`DuckDBConnection` of @duckdb/node-api) by what dpnoise calls of it. */
const isDuckDBConnection = (c: unknown): boolean => typeof (c as { runAndReadAll?: unknown })?.runAndReadAll === 'function';
/** A pg Client or Pool by what dpnoise calls of it (DuckDB-Wasm's connection has a `query` too). */
const isPostgresClient = (c: unknown): boolean => typeof (c as { query?: unknown })?.query === 'function' && !isDuckDBWasmConnection(c);

/**
 * Refuses a spec naming columns the source does not have. The names the source gives are not
 * shown: DuckDB takes a CSV file's first row as its header when it looks like one, data or not.
 */
function checkColumns(spec: Spec, available: readonly Column[]): void {
  const names = available.map((c) => c.name);
  const needed = [spec.unit, spec.groupBy, ...valueColumns(spec)].filter((c): c is string => c !== undefined);
  const missing = needed.filter((c) => !names.includes(c));
  if (missing.length > 0) {
    throw new TypeError(
      `dpnoise: the table has no column ${missing.map((c) => JSON.stringify(c)).join(', ')} (it has ${names.length} columns, not named here: a file without a header row would show its first row of data).`,
    );
  }
}

/**
 * The engine for a spec's source, opened and checked against the spec (its columns exist), and
 * the source's columns; `close` when done.
 */
export async function openEngine(spec: Spec): Promise<{ engine: Engine; columns: Column[] }> {
  const source = spec.source as string | { connection?: unknown; postgres?: string };
  let engine: Engine;
  if (typeof source === 'string' || isDuckDBConnection(source.connection)) engine = await openDuckDB(source as string | { connection: unknown });
  else if (isDuckDBWasmConnection(source.connection)) engine = openDuckDBWasm(source.connection);
  else if (source.postgres !== undefined || isPostgresClient(source.connection)) engine = await openPostgres(source);
  else
    throw new TypeError(
      `dpnoise: \`table.connection\` must be a DuckDB connection (from @duckdb/node-api or @duckdb/duckdb-wasm) or a PostgreSQL client or pool (from pg); got ${describe(source.connection)}.`,
    );
  try {
    const columns = await engine.columns(fromClause(spec, DIALECT[engine.dialect]));
    checkColumns(spec, columns);
    return { engine, columns };
  } catch (error) {
    await engine.close();
    throw error;
  }
}
