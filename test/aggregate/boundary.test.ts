// The engine boundary as an attacker meets it (docs/aggregates.md, "Engines"): one hostile row
// added to a table, on every engine (rows in memory, CSV, Parquet and NDJSON files, a DuckDB
// table, PostgreSQL, ClickHouse over two shards), never decides whether a charged release happens. With `invalid: 'drop'` the
// call releases, the row dropped or counted by the one rule every engine follows, and the engines'
// totals equal those of the in-memory engine on the same rows; or it fails before anything is
// spent. Never after.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClickHouseCluster, clickhouseBinary, insertRows, runClickHouse, startClickHouse } from '../../scripts/clickhouse-server.mjs';
import { type PostgresServer, postgresBinaries, startPostgres } from '../../scripts/postgres-server.mjs';
import { aggregate } from '../../src/aggregate/index.js';
import { layoutOf } from '../../src/aggregate/layout.js';
import { readSpec } from '../../src/aggregate/spec.js';
import { createBudget } from '../../src/index.js';
import { engineRun, plain, memoryRun } from './engine-cases.js';

const dir = mkdtempSync(join(tmpdir(), 'dpnoise-boundary-'));
const bin = postgresBinaries();
const clickhouse = clickhouseBinary();

/** The table's rows as text (as a CSV file holds them): unit, group, value. */
type TextRow = readonly [id: string | null, g: string | null, x: string | null];
// One row per unit, so that the totals do not depend on which rows are kept.
const BASE: TextRow[] = Array.from({ length: 40 }, (_, i) => [String(i), i % 2 === 0 ? 'a' : 'b', String((i * 7.25) % 100)]);

/** Hostile rows every engine can hold as text, counted (under the one number rule of values.ts) or dropped; a unit of its own but for the units written otherwise. */
const TEXT_ROWS: ReadonlyArray<readonly [name: string, row: TextRow]> = [
  ['NaN', ['99', 'a', 'NaN']],
  ['Infinity', ['99', 'a', 'Infinity']],
  ['-inf', ['99', 'a', '-inf']],
  ['an overflowing 1e400', ['99', 'a', '1e400']],
  ['an overflowing -1e400', ['99', 'b', '-1e400']],
  ['an underflowing 1e-400', ['99', 'a', '1e-400']],
  ['a number of 131073 digits', ['99', 'a', `1${'0'.repeat(131072)}`]],
  ['an exponent of 5 digits', ['99', 'a', '1e-99999']],
  ['spaces around a number', ['99', 'a', ' 5 ']],
  ['an exponent', ['99', 'b', '5e0']],
  ['a sign and no integer part', ['99', 'b', '+.5']],
  ['hexadecimal', ['99', 'a', '0x10']],
  ['digit separators', ['99', 'a', '1_000']],
  ['a word', ['99', 'a', 'true']],
  ['no value', ['99', 'a', null]],
  ['an undeclared group', ['99', 'zzz', '5']],
  ['an empty group', ['99', '', '5']],
  ['no group', ['99', null, '5']],
  ['a unit 5 written 5.0', ['5.0', 'b', '5']],
  ['a unit 5 written with a space', [' 5', 'b', '5']],
  ['no unit', [null, 'a', '5']],
];

const SPEC = {
  privacyUnit: 'id',
  groupBy: 'g',
  count: true,
  mean: { x: [0, 100] },
  quantile: { x: { bounds: [0, 100], q: 0.5 } },
  invalid: 'drop' as const,
  diagnostics: true, // rows dropped, per group
};
const DECLARED = { ...SPEC, groups: ['a', 'b'] };
const SELECTED = { ...SPEC, maxGroups: 1 };
const PRIVACY = { epsilon: 1, delta: 1e-6 };

const csvField = (v: string | null) => (v === null ? '' : /[",\n\r]/.test(v) || v === '' ? `"${v.replaceAll('"', '""')}"` : v);
const csvOf = (rows: readonly TextRow[]) => `id,g,x\n${rows.map((r) => r.map(csvField).join(',')).join('\n')}\n`;
const ndjsonOf = (rows: readonly TextRow[]) => `${rows.map(([id, g, x]) => JSON.stringify({ id, g, x })).join('\n')}\n`;
const objectsOf = (rows: readonly TextRow[]) => rows.map(([id, g, x]) => ({ id, g, x }));

/** The in-memory totals of `rows` (the reference every engine must give). */
function memoryTotals(rows: readonly object[], options: object) {
  const spec = readSpec({ ...options, table: rows });
  return memoryRun(rows, spec, layoutOf(spec, false));
}

/**
 * Releases `table` under `options` against a fresh budget: it must either release, or fail with
 * nothing spent. Returns whether it released.
 */
async function releasesOrSpendsNothing(table: unknown, options: object): Promise<boolean> {
  const budget = createBudget(PRIVACY);
  try {
    await aggregate({ ...PRIVACY, budget, ...options, table } as never);
    return true;
  } catch (error) {
    expect({ error: String(error), spent: budget.spent.epsilon }).toEqual({ error: String(error), spent: 0 });
    return false;
  }
}

let instance: DuckDBInstance;
let connection: Awaited<ReturnType<DuckDBInstance['connect']>>;
let server: PostgresServer | undefined;
let client: pg.Client | undefined;
let cluster: ClickHouseCluster | undefined;
beforeAll(async () => {
  if (clickhouse) cluster = await startClickHouse(clickhouse);
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  if (bin) {
    server = startPostgres(bin);
    client = new pg.Client({ host: server.host, port: server.port, user: server.user, database: 'postgres' });
    await client.connect();
  }
}, 120_000);
afterAll(async () => {
  instance?.closeSync();
  await client?.end();
  server?.stop();
  cluster?.stop();
});

let tables = 0;
/** The rows as a text table in DuckDB, and as a Parquet file of it. */
async function duckdbTable(rows: readonly TextRow[]): Promise<{ table: string; parquet: string }> {
  const table = `t${tables++}`;
  await connection.run(`CREATE TABLE ${table} (id VARCHAR, g VARCHAR, x VARCHAR)`);
  const appender = await connection.createAppender(table);
  for (const [id, g, x] of rows) {
    for (const v of [id, g, x]) v === null ? appender.appendNull() : appender.appendVarchar(v);
    appender.endRow();
  }
  appender.closeSync();
  const parquet = join(dir, `${table}.parquet`);
  await connection.run(`COPY ${table} TO '${parquet}' (FORMAT parquet)`);
  return { table, parquet };
}

/** The rows as a text table in PostgreSQL. */
async function postgresTable(rows: readonly TextRow[]): Promise<string> {
  const table = `t${tables++}`;
  await client!.query(`CREATE TABLE ${table} (id text, g text, x text)`);
  await client!.query(`INSERT INTO ${table} SELECT * FROM unnest($1::text[], $2::text[], $3::text[])`, [
    rows.map((r) => r[0]),
    rows.map((r) => r[1]),
    rows.map((r) => r[2]),
  ]);
  return table;
}

/** The rows as a text table on each of ClickHouse's two shards (alternate rows), and a Distributed table over them. */
async function clickhouseTable(rows: readonly TextRow[]): Promise<string> {
  const table = `t${tables++}`;
  const servers = cluster!.servers;
  await Promise.all(
    servers.map((s) =>
      runClickHouse(s.url, `CREATE TABLE ${table}_local (id Nullable(String), g Nullable(String), x Nullable(String)) ENGINE = MergeTree ORDER BY tuple()`),
    ),
  );
  await runClickHouse(cluster!.url, `CREATE TABLE ${table} AS ${table}_local ENGINE = Distributed(dpnoise, default, ${table}_local, rand())`);
  for (const [shard, s] of servers.entries()) {
    const mine = rows.filter((_, i) => i % servers.length === shard);
    if (mine.length > 0) await insertRows(s.url, `${table}_local`, ['Nullable(String)', 'Nullable(String)', 'Nullable(String)'], mine);
  }
  return table;
}

/** Every source of `rows`: in memory, CSV, NDJSON, Parquet, a DuckDB table, PostgreSQL, ClickHouse. */
async function sourcesOf(name: string, rows: readonly TextRow[]): Promise<Array<[string, unknown]>> {
  const file = join(dir, name.replace(/[^a-z0-9]+/gi, '-'));
  writeFileSync(`${file}.csv`, csvOf(rows));
  writeFileSync(`${file}.ndjson`, ndjsonOf(rows));
  const { table, parquet } = await duckdbTable(rows);
  const sources: Array<[string, unknown]> = [
    ['memory', objectsOf(rows)],
    ['csv', `${file}.csv`],
    ['ndjson', `${file}.ndjson`],
    ['parquet', parquet],
    ['duckdb', { connection, table }],
  ];
  if (client) sources.push(['postgres', { connection: client, table: await postgresTable(rows) }]);
  if (cluster) sources.push(['clickhouse', { clickhouse: cluster.url, table: await clickhouseTable(rows) }]);
  return sources;
}

describe.each([
  ['declared', DECLARED],
  ['selected', SELECTED],
] as const)('one hostile row, groups %s', (_, options) => {
  it.each(TEXT_ROWS)('%s: every engine releases with the totals of the in-memory engine', async (name, row) => {
    const rows = [...BASE.slice(0, 20), row, ...BASE.slice(20)];
    const want = memoryTotals(objectsOf(rows), options);
    for (const [engine, table] of await sourcesOf(`${name}-${options === DECLARED ? 'd' : 's'}`, rows)) {
      expect([engine, await releasesOrSpendsNothing(table, options)]).toEqual([engine, true]);
      const got = engine === 'memory' ? want : await engineRun(readSpec({ ...options, table }));
      expect([engine, got.groups, plain(got.totals)]).toEqual([engine, want.groups, plain(want.totals)]);
    }
  });
});

/**
 * Rows only a file can hold: bytes that are not UTF-8, a ragged line, a line that is not JSON, are
 * left out by the reader; a readable line with a missing or nested value is an invalid row of its
 * group (counted as dropped). Each with the row as memory holds it, or null where the reader
 * leaves it out. The CSV file has a first column no statistic reads (a reader that skipped it
 * failed on a row it rejects).
 */
type FileRow = readonly [line: Buffer, memory: Record<string, unknown> | null];
const FILE_ROWS: ReadonlyArray<readonly [name: string, csv: FileRow, ndjson: FileRow]> = [
  [
    'bytes that are not UTF-8',
    [Buffer.concat([Buffer.from('-,99,a,5'), Buffer.from([0xff, 0xfe])]), null],
    [Buffer.concat([Buffer.from('{"id":"99","g":"a","x":"5'), Buffer.from([0xff]), Buffer.from('"}')]), null],
  ],
  ['an extra field', [Buffer.from('-,99,a,5,6'), null], [Buffer.from('{"id":"99","g":"a","x":"5"} {"y":6}'), null]],
  ['a missing field', [Buffer.from('-,99,a'), null], [Buffer.from('{"id":"99","g":"a"}'), { id: '99', g: 'a' }]],
  ['a line that is not a record', [Buffer.from('-,"99,a,5'), null], [Buffer.from('{"id":"99","g":"a","x":'), null]],
  ['a line of 3 MB', [Buffer.from(`-,99,a,${'5'.repeat(3e6)}`), null], [Buffer.from(`{"id":"99","g":"a","x":"${'5'.repeat(3e6)}"}`), null]],
  [
    'a nested value',
    [Buffer.from('-,99,a,"{""x"": 5}"'), { id: '99', g: 'a', x: '{"x": 5}' }],
    [Buffer.from('{"id":"99","g":"a","x":{"v":5}}'), { id: '99', g: 'a', x: '{"v":5}' }],
  ],
];

describe('a file with one row its reader may not read', () => {
  it.each(FILE_ROWS)('%s: the row is left out, or dropped as invalid, on CSV and NDJSON, before anything decides on it', async (name, csv, ndjson) => {
    const file = join(dir, `file-${name.replace(/[^a-z0-9]+/gi, '-')}`);
    const around = (header: string, rows: string[], line: Buffer) =>
      Buffer.concat([Buffer.from(`${header}${rows.slice(0, 20).join('\n')}\n`), line, Buffer.from(`\n${rows.slice(20).join('\n')}\n`)]);
    const csvRows = BASE.map((r) => `-,${r.map(csvField).join(',')}`);
    writeFileSync(`${file}.csv`, around('note,id,g,x\n', csvRows, csv[0]));
    writeFileSync(`${file}.ndjson`, around('', ndjsonOf(BASE).trim().split('\n'), ndjson[0]));
    for (const options of [DECLARED, SELECTED]) {
      for (const [table, [, row]] of [
        [`${file}.csv`, csv],
        [`${file}.ndjson`, ndjson],
      ] as const) {
        expect([table, await releasesOrSpendsNothing(table, options)]).toEqual([table, true]);
        // An unbalanced quote joins the lines up to the next quote into one record: that record is left out too.
        if (name === 'a line that is not a record' && table.endsWith('.csv')) continue;
        const want = memoryTotals([...objectsOf(BASE), ...(row === null ? [] : [row])], options);
        const got = await engineRun(readSpec({ ...options, table }));
        expect([table, got.groups, plain(got.totals)]).toEqual([table, want.groups, plain(want.totals)]);
      }
    }
  });
});

describe('typed columns', () => {
  it('a DOUBLE (DuckDB, ClickHouse) holding NaN or Infinity, or a NUMERIC holding 1e131071, 1e-400 or NaN, is invalid or read as its nearest double, never an error', async () => {
    const typed = `t${tables++}`;
    await connection.run(
      `CREATE TABLE ${typed} AS SELECT id, g, CAST(x AS DOUBLE) AS x FROM (VALUES ('1', 'a', '5'), ('2', 'a', 'NaN'), ('3', 'b', 'Infinity'), ('4', 'b', '-Infinity'), ('5', 'a', '7.5')) v(id, g, x)`,
    );
    // The same rows in memory, as text: the invalid ones are dropped (and counted) alike.
    const memory = objectsOf([
      ['1', 'a', '5'],
      ['2', 'a', 'NaN'],
      ['3', 'b', 'Infinity'],
      ['4', 'b', '-Infinity'],
      ['5', 'a', '7.5'],
    ]);
    const want = memoryTotals(memory, DECLARED);
    const got = await engineRun(readSpec({ ...DECLARED, table: { connection, table: typed } }));
    expect(plain(got.totals)).toEqual(plain(want.totals));
    if (cluster) {
      // A Float64 holding NaN or Infinity in ClickHouse: invalid, as in DuckDB.
      await runClickHouse(cluster.url, `CREATE TABLE ${typed} (id String, g String, x Float64) ENGINE = MergeTree ORDER BY tuple()`);
      await runClickHouse(cluster.url, `INSERT INTO ${typed} VALUES ('1', 'a', 5), ('2', 'a', nan), ('3', 'b', inf), ('4', 'b', -inf), ('5', 'a', 7.5)`);
      const inClickHouse = await engineRun(readSpec({ ...DECLARED, table: { clickhouse: cluster.url, table: typed } }));
      expect(plain(inClickHouse.totals)).toEqual(plain(want.totals));
    }
    if (!client) return;
    await client.query(`CREATE TABLE ${typed} (id text, g text, x numeric, y float8)`);
    await client.query(
      `INSERT INTO ${typed} VALUES ('1', 'a', 5, 5), ('2', 'a', CAST('1${'0'.repeat(131071)}' AS numeric), 'NaN'), ('3', 'b', 1e-400, 'Infinity'), ('4', 'b', 'NaN', '-Infinity'), ('5', 'a', 7.5, 7.5)`,
    );
    const decimals = objectsOf([
      ['1', 'a', '5'],
      ['2', 'a', `1e${131071}`],
      ['3', 'b', '0'],
      ['4', 'b', 'NaN'],
      ['5', 'a', '7.5'],
    ]);
    for (const [column, rows] of [
      ['x', decimals],
      ['y', memory],
    ] as const) {
      const options = { ...DECLARED, mean: { [column]: [0, 100] }, quantile: { [column]: { bounds: [0, 100], q: 0.5 } } };
      const spec = readSpec({ ...options, table: { connection: client, table: typed } });
      expect(await releasesOrSpendsNothing({ connection: client, table: typed }, options)).toBe(true);
      const reference = memoryTotals(
        rows.map(({ id, g, x }) => ({ id, g, [column]: x })),
        options,
      );
      expect(plain((await engineRun(spec)).totals)).toEqual(plain(reference.totals));
    }
  });
});
