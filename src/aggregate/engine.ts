// What an engine is to the aggregate's SQL (sql.ts): DuckDB (duckdb.ts) and PostgreSQL
// (postgres.ts) each give one; source.ts opens the one a spec's source needs.

/** The SQL dialect an engine speaks, where the two differ (sql.ts). */
export type Dialect = 'duckdb' | 'postgres';

/** A column of the source: its name, and whether the engine stores it as a number (not text). */
export interface Column {
  readonly name: string;
  readonly numeric: boolean;
}

/** What the aggregate's SQL needs of an engine. */
export interface Engine {
  readonly dialect: Dialect;
  /** The columns of a FROM clause's source (its schema, not its data). */
  columns(from: string): Promise<Column[]>;
  /** Runs statements that return nothing. */
  run(sql: string): Promise<void>;
  /** Runs a query and returns its rows as objects. */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  /** The engine's estimate of the running query's progress in [0, 1], or -1 (DuckDB only). */
  progress?(): number;
  /** Turns progress tracking on, where the engine has it. */
  trackProgress?(): Promise<void>;
  /** Frees what was opened for this aggregate (not a connection of the caller's). */
  close(): Promise<void>;
}
