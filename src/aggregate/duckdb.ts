// The DuckDB engine (engine.ts): files DuckDB reads by their extension (CSV, Parquet, NDJSON) on
// an in-memory instance of its own, or a table on the caller's connection; out of core and on every
// core. DuckDB (`@duckdb/node-api`) is an optional peer dependency, loaded on first use.
import { type Column, DIALECT } from './dialect.js';
import { dataRows, type Engine, readingData } from './engine.js';

/** What dpnoise uses of a DuckDB connection (`DuckDBConnection` of @duckdb/node-api). */
interface Connection {
  runAndReadAll(sql: string): Promise<{ getRowObjectsJS(): Record<string, unknown>[]; columnNames(): string[] }>;
  run(sql: string): Promise<unknown>;
  /** DuckDB's estimate of the running query's progress (percentage -1 when it has none). */
  readonly progress?: { readonly percentage: number };
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

/**
 * The first release of @duckdb/node-api with all that dpnoise uses (results' getRowObjectsJS).
 * package.json's peer range is "*", as every release is a prerelease (1.5.6-r.1) that npm matches
 * to no other range (test/install.test.ts), so the minimum is checked here, on a result.
 */
const FIRST_DUCKDB = '1.2.1-alpha.17';

/** Refuses a connection of a @duckdb/node-api older than FIRST_DUCKDB (before reading any data, whose errors are withheld). */
async function checkVersion(connection: Connection): Promise<void> {
  if (typeof (await connection.runAndReadAll('SELECT 1')).getRowObjectsJS !== 'function') {
    throw new Error(
      `dpnoise: this @duckdb/node-api is older than ${FIRST_DUCKDB}, the first release dpnoise can use (its results have no getRowObjectsJS); update it with \`npm install @duckdb/node-api@latest\`.`,
    );
  }
}

/** A DuckDB engine over a file (on an instance of its own, closed with it) or the caller's connection (left open). */
export async function openDuckDB(source: string | { connection: unknown }): Promise<Engine> {
  let connection: Connection;
  let close = () => {};
  if (typeof source === 'string') {
    const { DuckDBInstance } = await loadDuckDB();
    const instance = await DuckDBInstance.create(':memory:');
    const c = await instance.connect();
    connection = c;
    close = () => {
      c.closeSync?.();
      instance.closeSync?.();
    };
  } else {
    connection = source.connection as Connection;
  }
  try {
    await checkVersion(connection);
  } catch (error) {
    close();
    throw error;
  }
  return {
    dialect: 'duckdb',
    // TRY_CAST reads text and numbers alike, so the columns' types do not matter here.
    columns: (from): Promise<Column[]> =>
      readingData(`the columns of ${from}`, async () =>
        (await connection.runAndReadAll(`SELECT * FROM ${from} LIMIT 0`)).columnNames().map((name) => ({ name, numeric: false })),
      ),
    rows: async (sql) => (await connection.runAndReadAll(sql)).getRowObjectsJS(),
    progress: () => {
      const percentage = connection.progress?.percentage ?? -1;
      return percentage >= 0 ? percentage / 100 : -1;
    },
    // DuckDB tracks progress only with its progress bar on (printing it is a separate setting).
    trackProgress: async () => {
      await connection.run('SET enable_progress_bar = true; SET enable_progress_bar_print = false');
    },
    close: async () => close(),
  };
}

/**
 * The rows of a CSV file (a warehouse's result), every value as text and an empty field as NULL,
 * read by DuckDB on an instance of its own.
 */
export async function readTextTable(path: string): Promise<Record<string, unknown>[]> {
  const engine = await openDuckDB(path);
  try {
    return await dataRows(engine, `SELECT * FROM read_csv(${DIALECT.duckdb.text(path)}, all_varchar = true, header = true)`);
  } finally {
    await engine.close();
  }
}
