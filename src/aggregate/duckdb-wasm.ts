// The DuckDB-Wasm engine (engine.ts): a table on the caller's `AsyncDuckDBConnection` of
// @duckdb/duckdb-wasm, in a browser or a worker, where a file the user picks is read in the page
// and never uploaded. The caller brings the connection, so dpnoise imports nothing of DuckDB-Wasm;
// the SQL is DuckDB's (sql.ts). Results come back as Apache Arrow tables, read row by row.
import { DIALECT, tableName } from './dialect.js';
import { describedColumns } from './duckdb.js';
import type { Engine } from './engine.js';

/** What dpnoise uses of an `AsyncDuckDBConnection`. */
interface WasmConnection {
  query(sql: string): Promise<{ toArray(): Array<{ toJSON(): Record<string, unknown> }> }>;
}

/** Whether `c` is an `AsyncDuckDBConnection` of @duckdb/duckdb-wasm, by what dpnoise calls of it and what sets it apart from a pg client. */
export const isDuckDBWasmConnection = (c: unknown): boolean =>
  typeof (c as { query?: unknown })?.query === 'function' && typeof (c as { insertArrowTable?: unknown })?.insertArrowTable === 'function';

/** A DuckDB-Wasm engine on the caller's connection (left open), reading `table`. */
export function openDuckDBWasm(connection: unknown, table: string): Engine {
  const c = connection as WasmConnection;
  const rows = async (sql: string) => (await c.query(sql)).toArray().map((row) => row.toJSON());
  const from = tableName(table, DIALECT.duckdb);
  return { dialect: 'duckdb', from, columns: () => describedColumns(rows, from), rows, close: async () => {} };
}
