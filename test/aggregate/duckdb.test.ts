// The DuckDB engine (src/aggregate/duckdb.ts, running the SQL of sql.ts) against the in-memory
// one, on a real DuckDB: the same totals from CSV, Parquet, NDJSON and a table on the caller's
// connection.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutOf } from '../../src/aggregate/layout.js';
import { readSpec } from '../../src/aggregate/spec.js';
import { expectWithheld } from '../helpers.js';
import { engineRun, expectOneRowPerUnit, memoryRun, ONE_ROW, people, STATISTICS, threeRowsPerUnit } from './engine-cases.js';

const dir = mkdtempSync(join(tmpdir(), 'dpnoise-duckdb-'));
const rows = people(7, 2000, 2000);
const csv = join(dir, 'people.csv');
writeFileSync(csv, `id,region,age,income\n${rows.map((r) => `${r.id},${r.region ?? ''},${r.age},${r.income}`).join('\n')}\n`);
const ndjson = join(dir, 'people.json');
writeFileSync(ndjson, rows.map((r) => JSON.stringify(r)).join('\n'));

const options = { ...STATISTICS, table: csv };

let instance: DuckDBInstance;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  await c.run(`CREATE TABLE people AS SELECT * FROM '${csv}'`);
  await c.run(`COPY people TO '${join(dir, 'people.parquet')}' (FORMAT parquet)`);
});
afterAll(() => instance.closeSync());

async function totalsOf(table: unknown, extra: object = {}) {
  return (await engineRun(readSpec({ ...options, ...extra, table }))).totals;
}

describe('the DuckDB engine', () => {
  const spec = readSpec({ ...options, table: rows });
  const expected = memoryRun(rows, spec, layoutOf(spec, false)).totals.map((t) => Array.from(t));

  it.each(['people.csv', 'people.parquet', 'people.json'])('gives the in-memory totals exactly from %s', async (file) => {
    const totals = await totalsOf(join(dir, file));
    expect(totals.map((t) => Array.from(t))).toEqual(expected);
  });

  it('finds the same groups and totals as the in-memory engine when groups are selected (no NULL group)', async () => {
    const selecting = readSpec({ ...options, groups: undefined, privacyUnit: 'id', maxGroups: 1, table: rows });
    const layout = layoutOf(selecting, false);
    const inMemory = memoryRun(rows, selecting, layout);
    const inDuckDB = await engineRun({ ...selecting, source: csv }, layout);
    expect(inDuckDB.groups).toEqual(["b'x", 'east', 'north']);
    expect(inDuckDB.groups).toEqual(inMemory.groups);
    expect(inDuckDB.totals.map((t) => Array.from(t))).toEqual(inMemory.totals.map((t) => Array.from(t)));
  });

  it("reads a table on the caller's connection, and leaves no table behind", async () => {
    const connection = await instance.connect();
    const totals = await totalsOf({ connection, table: 'people' });
    expect(totals.map((t) => Array.from(t))).toEqual(expected);
    const tables = (await connection.runAndReadAll("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'dpnoise%'")).getRowObjects();
    expect(tables).toEqual([]);
  });

  it('bounds contributions in SQL as in JavaScript: at most maxRows rows in at most maxGroups groups', async () => {
    const connection = await instance.connect();
    await connection.run(
      `CREATE OR REPLACE TABLE heavy AS SELECT 'one' AS id, ['north', 'east', 'b''x'][(i % 3) + 1] AS region, 200.0 AS age, 1e6 AS income FROM range(1000) t(i)`,
    );
    const extra = { privacyUnit: 'id', maxRows: 2, maxGroups: 2 };
    const totals = await totalsOf({ connection, table: 'heavy' }, extra);
    const count = totals[0]!;
    expect(Array.from(count).reduce((a, b) => a + b, 0)).toBe(4);
    expect(Array.from(count).filter((c) => c > 0).length).toBe(2);
    expect(Array.from(totals[1]!).reduce((a, b) => a + b, 0)).toBe(400); // age clipped to 100
  });

  it.each(['rows', 'groups'] as const)(
    'keeps one row per unit, uniformly at random and afresh each run, every value from that one row (%s)',
    async (spread) => {
      const file = join(dir, `three-${spread}.csv`);
      writeFileSync(
        file,
        `id,region,age,income\n${threeRowsPerUnit(spread)
          .map((r) => `${r.id},${r.region},${r.age},${r.income}`)
          .join('\n')}\n`,
      );
      const spec = readSpec({ ...ONE_ROW, ...(spread === 'groups' ? { maxGroups: 1 } : {}), table: file });
      const layout = layoutOf(spec, false);
      const runs = [(await engineRun(spec, layout)).totals, (await engineRun(spec, layout)).totals];
      for (const totals of runs) expectOneRowPerUnit(spread, totals, layout);
      expect(runs[1]).not.toEqual(runs[0]); // drawn afresh: two runs keeping the same rows would be a fixed choice
    },
  );

  it('bounds contributions within a memory limit far below the rows (an aggregation DuckDB spills; its window held them all)', async () => {
    const small = await DuckDBInstance.create(':memory:', { memory_limit: '64MB', threads: '2', temp_directory: join(dir, 'spill') });
    try {
      const connection = await small.connect();
      await connection.run(
        'CREATE TABLE wide AS SELECT i % 1000000 AS id, 1 AS region, hash(i) % 100 AS age, hash(i + 1) % 500000 AS income, hash(i + 2) % 60 AS hours FROM range(3000000) t(i)',
      );
      const spec = readSpec({
        privacyUnit: 'id',
        groupBy: 'region',
        groups: ['1'],
        count: true,
        sum: { age: [0, 100], income: [0, 500000], hours: [0, 60] },
        table: { connection, table: 'wide' },
      });
      const { totals } = await engineRun(spec);
      expect(totals[0]![0]).toBe(1e6); // one row per unit
    } finally {
      small.closeSync();
    }
  });

  it('refuses a spec naming a column the table lacks, before reading any row; of a database table, whose names are its schema, it suggests a close one', async () => {
    await expect(totalsOf(csv, { sum: { salary: [0, 1] } })).rejects.toThrow(/no column "salary" \(it has 4 columns, not named here/);
    const connection = await instance.connect();
    await expect(totalsOf({ connection, table: 'people' }, { sum: { incme: [0, 1] } })).rejects.toThrow(
      'dpnoise: the table has no column "incme" (did you mean "income"?).',
    );
    await expect(totalsOf({ connection, table: 'people' }, { sum: { salary: [0, 1] } })).rejects.toThrow('dpnoise: the table has no column "salary".');
  });

  it('refuses a connection of a @duckdb/node-api before 1.2.1-alpha.17 (results without getRowObjectsJS), saying so, before reading', async () => {
    const queries: string[] = [];
    const old = {
      runAndReadAll: async (sql: string) => {
        queries.push(sql);
        return { columnNames: () => ['id'], getRows: () => [] };
      },
      run: async () => undefined,
    };
    await expect(totalsOf({ connection: old, table: 'people' })).rejects.toThrow(
      'dpnoise: this @duckdb/node-api is older than 1.2.1-alpha.17, the first release dpnoise can use (its results have no getRowObjectsJS); update it with `npm install @duckdb/node-api@latest`.',
    );
    expect(queries).toEqual(['SELECT 1']);
  });

  it('never names the columns it found: a file without a header row would show its first row of data', async () => {
    const headless = join(dir, 'headless.csv');
    writeFileSync(headless, `SECRET-4242,north,abc\n${Array.from({ length: 50 }, (_, i) => `${i},south,${i}`).join('\n')}\n`);
    await expectWithheld(() => totalsOf(headless), TypeError, ['no column'], ['SECRET', '4242', 'abc']);
  });

  it("refuses a NULL or non-numeric value, or drops its row with invalid: 'drop'", async () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'id,region,age,income\n1,north,30,100\n2,north,,200\n3,north,abc,300\n');
    await expect(totalsOf(bad)).rejects.toThrow(/invalid: 'drop'/);
    const totals = await totalsOf(bad, { invalid: 'drop' });
    expect(totals[0]![0]).toBe(1);
  });

  it('a non-numeric or NULL cell of a table is refused without quoting it or its row', async () => {
    const connection = await instance.connect();
    await connection.run(
      "CREATE OR REPLACE TABLE texts AS SELECT * FROM (VALUES (1, 'north', '30', '100'), (2, 'north', 'John Smith', '200'), (3, 'north', NULL, '1961-04-12')) v(id, region, age, income)",
    );
    await expectWithheld(() => totalsOf({ connection, table: 'texts' }), RangeError, ["invalid: 'drop'"], ['John', 'Smith', '1961']);
  });

  it("a cell DuckDB's reader cannot convert (its type sniffed from earlier rows) is refused without quoting it or its line", async () => {
    const late = join(dir, 'late.csv');
    writeFileSync(
      late,
      `id,region,age,income\n${Array.from({ length: 30000 }, (_, i) => `${i},north,${i % 90},${i % 1000}`).join('\n')}\n30000,north,40,John Smith\n`,
    );
    await expectWithheld(() => totalsOf(late), Error, ['dpnoise: '], ['John', 'Smith', '30000,north']);
  });

  it("a row a file's reader cannot read (invalid UTF-8, malformed JSON) is invalid: refused after the charge without quoting it, or dropped", async () => {
    const csv = join(dir, 'bad-bytes.csv');
    writeFileSync(
      csv,
      Buffer.concat([Buffer.from('id,region,age,income\n1,north,40,SECRET-4242\n2,south,30,7'), Buffer.from([0xff]), Buffer.from('\n3,north,50,6\n')]),
    );
    const json = join(dir, 'bad.ndjson');
    writeFileSync(json, '{"id":1,"region":"north","age":40,"income":5}\n{"id":2,"region":"SECRET-4242\\x","age":30,"income":4}\n');
    for (const file of [csv, json]) {
      await expectWithheld(() => totalsOf(file), RangeError, ["invalid: 'drop'"], ['SECRET', '4242', '1,north', 'byte']);
      const totals = await totalsOf(file, { invalid: 'drop', groups: ['north', 'south'] });
      expect(Array.from(totals[0]!)).toEqual([1, 0]); // north's readable row; south's is left out
    }
  });

  it('releases nothing but noise from an empty table (with its header)', async () => {
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, 'id,region,age,income\n');
    const totals = await totalsOf(empty, { invalid: 'drop' });
    expect(totals.every((t) => t.every((x) => x === 0))).toBe(true);
  });

  it('matches declared groups by value, the same on every engine: a CSV column reading 1.0 and a Parquet DOUBLE release groups [1, 2] with their rows', async () => {
    const file = join(dir, 'sexes.csv');
    writeFileSync(file, 'id,sex,age\n1,1.0,10\n2,2.0,20\n3,2,30\n4,,40\n5,x,50\n');
    const connection = await instance.connect();
    await connection.run(`CREATE TABLE sexes AS SELECT id, TRY_CAST(sex AS DOUBLE) AS sex, age FROM read_csv('${file}', all_varchar = true)`);
    await connection.run(`COPY sexes TO '${join(dir, 'sexes.parquet')}' (FORMAT parquet)`);
    const memory = [
      { id: 1, sex: 1, age: 10 },
      { id: 2, sex: '2.0', age: 20 },
      { id: 3, sex: 2, age: 30 },
    ];
    for (const groups of [
      [1, 2],
      ['1', '2'],
    ]) {
      const spec = { groupBy: 'sex', groups, count: true, mean: { age: [0, 100] } };
      const want = memoryRun(memory, readSpec({ ...spec, table: memory }), layoutOf(readSpec({ ...spec, table: memory }), false));
      expect(Array.from(want.totals[0]!)).toEqual([1, 2]);
      for (const table of [file, join(dir, 'sexes.parquet'), { connection, table: 'sexes' }]) {
        const got = await engineRun(readSpec({ ...spec, table }));
        expect([table, got.groups, got.totals.map((t) => Array.from(t))]).toEqual([table, want.groups, want.totals.map((t) => Array.from(t))]);
      }
    }
    // Selected, a column of numbers labels its groups as JavaScript writes the numbers.
    const selected = readSpec({ groupBy: 'sex', count: true, table: join(dir, 'sexes.parquet') });
    expect((await engineRun(selected)).groups).toEqual(['1', '2']);
    // Text groups cannot match a column of numbers: refused before anything is spent.
    const text = readSpec({ groupBy: 'sex', groups: ['male', 'female'], count: true, table: { connection, table: 'sexes' } });
    await expect(engineRun(text)).rejects.toThrow(/must all be numbers/);
  });

  it("turns DuckDB's progress tracking on, for onProgress, on the caller's connection as on its own", async () => {
    const connection = await instance.connect();
    await connection.run('SET enable_progress_bar = false');
    const spec = readSpec({ ...options, table: { connection, table: 'people' }, onProgress: () => {} });
    await engineRun(spec);
    expect((await connection.runAndReadAll("SELECT current_setting('enable_progress_bar') AS on")).getRowObjectsJS()).toEqual([{ on: true }]);
  });

  it("reads a table named as the query's own tables used to be (dpnoise_groups), not the query's", async () => {
    const connection = await instance.connect();
    await connection.run(
      "CREATE TABLE dpnoise_groups AS SELECT * FROM (VALUES ('1', 'north', '10'), ('2', 'east', '20'), ('3', 'east', '30')) v(id, region, age)",
    );
    const spec = readSpec({ groupBy: 'region', groups: ['north', 'east'], count: true, table: { connection, table: 'dpnoise_groups' } });
    expect(Array.from((await engineRun(spec)).totals[0]!)).toEqual([1, 2]);
  });

  it('reads only the local file it is given: no URL, no glob, nothing but the file (no other file, no extension)', async () => {
    await expect(totalsOf('https://example.com/people.csv')).rejects.toThrow(/must be a local file/);
    await expect(totalsOf('s3://bucket/people.parquet')).rejects.toThrow(/must be a local file/);
    await expect(totalsOf(join(dir, '*.csv'))).rejects.toThrow(/glob pattern/);
    await expect(totalsOf(join(dir, 'missing.csv'))).rejects.toThrow(/must be a file that exists/);
    await expect(totalsOf(join(dir, 'people.xlsx'))).rejects.toThrow(/CSV, TSV, Parquet or NDJSON/);
  });
});
