// What an engine is to the aggregate's SQL (sql.ts): DuckDB (duckdb.ts) and PostgreSQL
// (postgres.ts) each give one; source.ts opens the one a spec's source needs.
import type { Column } from './dialect.js';

/** What the aggregate's SQL needs of an engine. */
export interface Engine {
  /** The dialect it speaks (dialect.ts). */
  readonly dialect: 'duckdb' | 'postgres';
  /** The columns of a FROM clause's source (its schema, not its data). */
  columns(from: string): Promise<Column[]>;
  /** Runs a query and returns its rows as objects. */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  /** The engine's estimate of the running query's progress in [0, 1], or -1 (DuckDB only). */
  progress?(): number;
  /** Turns progress tracking on, where the engine has it. */
  trackProgress?(): Promise<void>;
  /** Frees what was opened for this aggregate (not a connection of the caller's). */
  close(): Promise<void>;
}
