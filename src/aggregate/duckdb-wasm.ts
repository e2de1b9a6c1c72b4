// The DuckDB-Wasm engine (engine.ts): a table on the caller's `AsyncDuckDBConnection` of
// @duckdb/duckdb-wasm, in a browser or a worker, where a file the user picks is read in the page
// and never uploaded. The caller brings the connection, so dpnoise imports nothing of DuckDB-Wasm;
// the SQL is DuckDB's (sql.ts). Results come back as Apache Arrow tables, read row by row.
import type { Column } from './dialect.js';
import { type Engine, readingData } from './engine.js';

/** What dpnoise uses of an `AsyncDuckDBConnection`. */
interface WasmConnection {
  query(sql: string): Promise<{ toArray(): Array<{ toJSON(): Record<string, unknown> }>; schema: { fields: Array<{ name: string }> } }>;
}

/** Whether `c` is an `AsyncDuckDBConnection` of @duckdb/duckdb-wasm, by what dpnoise calls of it and what sets it apart from a pg client. */
export const isDuckDBWasmConnection = (c: unknown): boolean =>
  typeof (c as { query?: unknown })?.query === 'function' && typeof (c as { insertArrowTable?: unknown })?.insertArrowTable === 'function';

/** A DuckDB-Wasm engine on the caller's connection (left open). */
export function openDuckDBWasm(connection: unknown): Engine {
  const c = connection as WasmConnection;
  return {
    dialect: 'duckdb',
    columns: (from): Promise<Column[]> =>
      readingData(`the columns of ${from}`, async () =>
        (await c.query(`SELECT * FROM ${from} LIMIT 0`)).schema.fields.map((f) => ({ name: f.name, numeric: false })),
      ),
    rows: async (sql) => (await c.query(sql)).toArray().map((row) => row.toJSON()),
    close: async () => {},
  };
}
