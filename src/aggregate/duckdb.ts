// The DuckDB engine (engine.ts): files DuckDB reads (CSV, TSV, Parquet, NDJSON; files.ts) on an
// in-memory instance of its own that can read that one file and nothing else (no other file, no
// URL, no extension loaded), or a table on the caller's connection; out of core and on every
// core. DuckDB (`@duckdb/node-api`) is an optional peer dependency, loaded on first use.
import type { Column, ColumnType } from './dialect.js';
import { DIALECT, tableName } from './dialect.js';
import { dataRows, type Engine, readingData } from './engine.js';
import { csvSource, type FileSource, fileSource, formatOf, localFile } from './files.js';

/** What dpnoise uses of a DuckDB connection (`DuckDBConnection` of @duckdb/node-api). */
interface Connection {
  runAndReadAll(sql: string): Promise<{ getRowObjectsJS(): Record<string, unknown>[] }>;
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
 * to no other range (test/install.long.test.ts), so the minimum is checked here, on a result.
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

/** DuckDB's type names of numbers (integers, floats, decimals): read as numbers; VARCHAR as text. */
const NUMBER_TYPES = /^(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|DECIMAL\(\d+,\s*\d+\))$/;

/** A DuckDB type name as a column type. */
export const columnType = (name: string): ColumnType => (NUMBER_TYPES.test(name) ? 'number' : name === 'VARCHAR' ? 'text' : 'other');

/** The columns of a FROM clause, from DESCRIBE (its schema: no row is read). */
export async function describedColumns(rows: (sql: string) => Promise<Record<string, unknown>[]>, from: string): Promise<Column[]> {
  return readingData(`the columns of ${from}`, async () =>
    (await rows(`DESCRIBE SELECT * FROM ${from}`)).map((r) => ({ name: String(r.column_name), type: columnType(String(r.column_type)) })),
  );
}

/** DuckDB tracks progress only with its progress bar on (printing it is a separate setting). */
const PROGRESS = 'SET enable_progress_bar = true; SET enable_progress_bar_print = false';

/**
 * A connection to a new in-memory instance that can read the file at `path` and nothing else:
 * external access off but for that file, and no extension installed or loaded (DuckDB would
 * fetch httpfs for a URL).
 */
async function confinedTo(path: string): Promise<{ connection: Connection; close: () => void }> {
  const { DuckDBInstance } = await loadDuckDB();
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  const close = () => {
    c.closeSync?.();
    instance.closeSync?.();
  };
  try {
    await checkVersion(c);
    await c.run(
      `${PROGRESS}; SET autoinstall_known_extensions = false; SET autoload_known_extensions = false; SET allowed_paths = [${DIALECT.duckdb.text(path)}]; SET enable_external_access = false; SET lock_configuration = true`,
    );
  } catch (error) {
    close();
    throw error;
  }
  return { connection: c, close };
}

/** The rows of a query on a connection, as objects. */
const rowsOf = (connection: Connection) => async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS();

/**
 * The engine of a connection, reading `from` with `columns`; `unread` counts the rows its reader
 * left out (as `n`). A connection of dpnoise's own is `closed` with it, and tracks progress from
 * the start (its configuration is locked).
 */
function engineOf(connection: Connection, from: string, columns: () => Promise<Column[]>, close?: () => void, unread?: string): Engine {
  const rows = rowsOf(connection);
  return {
    dialect: 'duckdb',
    from,
    columns,
    rows,
    progress: () => {
      const percentage = connection.progress?.percentage ?? -1;
      return percentage >= 0 ? percentage / 100 : -1;
    },
    trackProgress: async () => {
      if (close === undefined) await connection.run(PROGRESS);
    },
    unreadRows: unread === undefined ? undefined : async () => Number((await readingData('the rows', () => rows(unread)))[0]?.n ?? 0) > 0,
    close: async () => close?.(),
  };
}

/**
 * A DuckDB engine over a file, reading its `needed` columns (on an instance of its own, closed
 * with it), or over a table on the caller's connection (left open).
 */
export async function openDuckDB(source: string | { connection: unknown; table: string }, needed: readonly string[]): Promise<Engine> {
  if (typeof source !== 'string') {
    const connection = source.connection as Connection;
    await checkVersion(connection);
    const from = tableName(source.table, DIALECT.duckdb);
    return engineOf(connection, from, () => describedColumns(rowsOf(connection), from));
  }
  const file = await fileSource(source, needed);
  const { connection, close } = await confinedTo(file.path);
  if ('parquet' in file) return engineOf(connection, file.parquet, () => describedColumns(rowsOf(connection), file.parquet), close);
  const text = file as FileSource;
  return engineOf(connection, text.from, async () => text.columns, close, text.unread);
}

/**
 * The rows of a CSV file (a warehouse's result), every value as text and an empty field as NULL
 * (but the group's, `gi`, which is never NULL: an empty one is the group ''), read by DuckDB on an
 * instance of its own. A line that is not a record of the header's fields is refused: a genuine
 * result has none.
 */
export async function readTextTable(path: string): Promise<Record<string, unknown>[]> {
  if (formatOf(path) !== 'csv') throw new TypeError(`dpnoise: the aggregated table must be a CSV file; got ${JSON.stringify(path)}.`);
  const file = await csvSource(await localFile(path), 'csv');
  const names = file.columns.map((c) => c.name);
  const { connection, close } = await confinedTo(file.path);
  const engine = engineOf(connection, file.from, async () => file.columns, close, file.unread);
  try {
    const select = names.map((n) => (n === 'gi' ? `COALESCE(gi, '') AS gi` : DIALECT.duckdb.identifier(n))).join(', ');
    const rows = await dataRows(engine, `SELECT ${select} FROM ${file.from}`);
    if (await engine.unreadRows!())
      throw new RangeError('dpnoise: the aggregated table has a line that is not a record of its header: it was not made by this plan.');
    return rows;
  } finally {
    await engine.close();
  }
}
