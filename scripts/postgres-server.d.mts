// Types of postgres-server.mjs, for the tests.
export interface PostgresServer {
  /** The socket directory: pg's `host`. */
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** A connection string for the server's `postgres` database. */
  readonly url: string;
  /** The server's data directory. */
  readonly dataDirectory: string;
  stop(): void;
}
export function postgresBinaries(): string | undefined;
export function startPostgres(bin: string): PostgresServer;
