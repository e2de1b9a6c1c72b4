// What an engine is to the aggregate's SQL (sql.ts): DuckDB (duckdb.ts), PostgreSQL (postgres.ts)
// and ClickHouse (clickhouse.ts) each give one; source.ts opens the one a spec's source needs.
import type { Column } from './dialect.js';

/** What the aggregate's SQL needs of an engine. */
export interface Engine {
  /** The dialect it speaks (dialect.ts). */
  readonly dialect: 'duckdb' | 'postgres' | 'clickhouse';
  /** The FROM clause of the source: a table, or a file's reader (files.ts). */
  readonly from: string;
  /** The source's columns (its schema, not its data). */
  columns(): Promise<Column[]>;
  /** Runs a query and returns its rows as objects. */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  /** The engine's estimate of the running query's progress in [0, 1], or -1 (DuckDB only). */
  progress?(): number;
  /** Turns progress tracking on, where the engine has it. */
  trackProgress?(): Promise<void>;
  /** Whether the source had rows its reader could not read (left out of the query: invalid rows). */
  unreadRows?(): Promise<boolean>;
  /** Frees what was opened for this aggregate (not a connection of the caller's). */
  close(): Promise<void>;
}

/** DuckDB's "Conversion Error" and the like, PostgreSQL's SQLSTATE, or ClickHouse's code: the class of a failure, never its data. */
function failureKind(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^ClickHouse [0-9]+$/.test(code)) return `${code}`.replace(' ', ' code ');
  return /^[A-Z][A-Za-z ]* Error(?=:)/.exec(message)?.[0] ?? (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? `SQLSTATE ${code}` : 'an error');
}

/**
 * Runs a step in which the engine reads the data, or a source's schema. The engine's own message
 * can quote a value or a whole line (DuckDB's CSV reader does), so it is replaced by one naming
 * only the failure's class.
 */
export async function readingData<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new Error(
      `dpnoise: the engine failed reading ${what} (${failureKind(error)}); its message is withheld, as it can quote the data. Check the source and its columns.`,
    );
  }
}

/** The rows of a query over the data (readingData). */
export const dataRows = (engine: Engine, sql: string): Promise<Record<string, unknown>[]> => readingData('the rows', () => engine.rows(sql));
