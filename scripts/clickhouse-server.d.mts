// Types of clickhouse-server.mjs, for the tests.
export function clickhouseBinary(): string | undefined;
export function runClickHouse(url: string, sql: string, body?: Uint8Array): Promise<string>;
export interface ClickHouseCluster {
  readonly servers: ReadonlyArray<{ readonly url: string; readonly pid: number; readonly dir: string }>;
  readonly url: string;
  stop(): void;
}
export function startClickHouse(bin: string, count?: number, settings?: Record<string, number | string>): Promise<ClickHouseCluster>;
export function insertRows(url: string, table: string, types: readonly string[], rows: ReadonlyArray<readonly unknown[]>): Promise<void>;
