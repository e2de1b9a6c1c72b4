// The PostgreSQL engine (src/aggregate/postgres.ts, running the SQL of sql.ts) on a real server
// (scripts/postgres-server.mjs: a private one in a temporary directory): the same totals as the in-memory
// engine and as DuckDB on the same rows, through a client, a pool and a connection string;
// contribution bounds, text columns, invalid values, and bad input refused before anything is spent.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../../src/index.js';
import { aggregate, aggregateFromTotals, aggregateSql } from '../../src/aggregate/index.js';
import { layoutOf } from '../../src/aggregate/layout.js';
import { readSpec } from '../../src/aggregate/spec.js';
import { createRng } from '../../src/index.js';
import { engineRun, expectOneRowPerUnit, GROUPS, ONE_ROW, people, plain, STATISTICS, threeRowsPerUnit, memoryRun } from './engine-cases.js';
import { type PostgresServer, postgresBinaries, startPostgres } from '../../scripts/postgres-server.mjs';

const bin = postgresBinaries();
if (!bin) console.warn('test/aggregate/postgres.test.ts: no PostgreSQL under /usr/lib/postgresql (Debian package postgresql; .ci/run installs it): skipped.');

const rows = people(11, 3000, 1700); // some units have two rows
const options = STATISTICS;

describe.skipIf(!bin)('the PostgreSQL engine, on a real server', () => {
  let server: PostgresServer;
  let client: pg.Client;

  beforeAll(async () => {
    server = startPostgres(bin!);
    client = new pg.Client({ host: server.host, port: server.port, user: server.user, database: 'postgres' });
    await client.connect();
    // age a double, income an exact NUMERIC; texts a copy whose numbers are text.
    await client.query('CREATE TABLE people (id text, region text, age float8, income numeric)');
    await client.query('INSERT INTO people SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::numeric[])', [
      rows.map((r) => r.id),
      rows.map((r) => r.region),
      rows.map((r) => r.age),
      rows.map((r) => String(r.income)),
    ]);
    await client.query('CREATE TABLE texts AS SELECT id, region, CAST(age AS text) AS age, CAST(income AS text) AS income FROM people');
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    server?.stop();
  });

  const expected = (extra: object = {}) => {
    const spec = readSpec({ ...options, ...extra, table: rows });
    return memoryRun(rows, spec, layoutOf(spec, false));
  };

  it('gives the in-memory totals exactly, through a client, a pool and a connection string', async () => {
    const want = plain(expected().totals);
    expect(plain((await engineRun(readSpec({ ...options, table: { connection: client, table: 'people' } }))).totals)).toEqual(want);
    const pool = new pg.Pool({ host: server.host, port: server.port, user: server.user, database: 'postgres', max: 3 });
    try {
      expect(plain((await engineRun(readSpec({ ...options, table: { connection: pool, table: 'people' } }))).totals)).toEqual(want);
      expect(pool.idleCount).toBe(pool.totalCount); // its client went back
    } finally {
      await pool.end();
    }
    expect(plain((await engineRun(readSpec({ ...options, table: { postgres: server.url, table: 'public.people' } }))).totals)).toEqual(want);
  });

  it('gives the same totals as DuckDB on the same rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpnoise-pg-duckdb-'));
    const csv = join(dir, 'people.csv');
    writeFileSync(csv, `id,region,age,income\n${rows.map((r) => `${r.id},${r.region ?? ''},${r.age},${r.income}`).join('\n')}\n`);
    const inDuckDB = await engineRun(readSpec({ ...options, table: csv }));
    const inPostgres = await engineRun(readSpec({ ...options, table: { connection: client, table: 'people' } }));
    expect(plain(inPostgres.totals)).toEqual(plain(inDuckDB.totals));
  });

  it('reads numbers stored as text, and leaves no table behind', async () => {
    const got = await engineRun(readSpec({ ...options, table: { connection: client, table: 'texts' } }));
    expect(plain(got.totals)).toEqual(plain(expected().totals));
    const left = await client.query("SELECT relname FROM pg_class WHERE relname LIKE 'dpnoise%'");
    expect(left.rows).toEqual([]);
  });

  it('selects groups as the in-memory engine does (privacy unit, at most one group each)', async () => {
    const extra = { groups: undefined, privacyUnit: 'id', maxGroups: 1 };
    const selecting = readSpec({ ...options, ...extra, table: { connection: client, table: 'people' } });
    const layout = layoutOf(selecting, false);
    const got = await engineRun(selecting, layout);
    // Which row a unit keeps is random; the groups found and the units counted are not.
    const want = expected(extra);
    expect(got.groups).toEqual(["b'x", 'east', 'north']);
    expect(got.groups).toEqual(want.groups);
    const units = layout.measures.findIndex((m) => m.kind === 'units');
    expect(Array.from(got.totals[units]!).reduce((a, b) => a + b, 0)).toBe(new Set(rows.filter((r) => r.region !== null).map((r) => r.id)).size);
  });

  it('bounds contributions in SQL: at most maxRows rows in at most maxGroups groups, drawn afresh each run', async () => {
    await client.query(
      "CREATE TABLE heavy AS SELECT 'one' AS id, (ARRAY['north', 'east', 'b''x'])[(i % 3) + 1] AS region, 200.0 AS age, i AS income FROM generate_series(0, 999) i",
    );
    const spec = readSpec({ ...options, privacyUnit: 'id', maxRows: 2, maxGroups: 2, table: { connection: client, table: 'heavy' } });
    const runs = await Promise.all([0, 1, 2].map(async () => (await engineRun(spec)).totals));
    for (const totals of runs) {
      expect(Array.from(totals[0]!).reduce((a, b) => a + b, 0)).toBe(4);
      expect(Array.from(totals[0]!).filter((c) => c > 0).length).toBe(2);
      expect(Array.from(totals[1]!).reduce((a, b) => a + b, 0)).toBe(400); // age clipped to 100
    }
    // The rows kept are the engine's random() draw: three runs keeping the same incomes would be a fixed choice.
    const incomes = runs.map((t) => t[2]![0]! + t[2]![1]! + t[2]![2]!);
    expect(new Set(incomes).size).toBeGreaterThan(1);
  });

  it.each(['rows', 'groups'] as const)(
    'keeps one row per unit, uniformly at random and afresh each run, every value from that one row (%s)',
    async (spread) => {
      const three = threeRowsPerUnit(spread);
      await client.query(`CREATE TABLE three_${spread} (id text, region text, age float8, income float8)`);
      await client.query(`INSERT INTO three_${spread} SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::float8[])`, [
        three.map((r) => r.id),
        three.map((r) => r.region),
        three.map((r) => r.age),
        three.map((r) => r.income),
      ]);
      const spec = readSpec({ ...ONE_ROW, ...(spread === 'groups' ? { maxGroups: 1 } : {}), table: { connection: client, table: `three_${spread}` } });
      const layout = layoutOf(spec, false);
      const runs = [(await engineRun(spec, layout)).totals, (await engineRun(spec, layout)).totals];
      for (const totals of runs) expectOneRowPerUnit(spread, totals, layout);
      expect(runs[1]).not.toEqual(runs[0]); // drawn afresh: two runs keeping the same rows would be a fixed choice
    },
  );

  it("refuses a NULL or non-numeric value, or drops its row with invalid: 'drop'", async () => {
    await client.query(
      "CREATE TABLE bad AS SELECT * FROM (VALUES ('1', 'north', '30', '100'), ('2', 'north', NULL, '200'), ('3', 'north', 'abc', '300'), ('4', 'north', 'NaN', '1'), ('5', 'north', '1e999', '1'), ('6', 'north', '1e99999', '1')) v(id, region, age, income)",
    );
    const spec = (extra: object) => readSpec({ ...options, ...extra, table: { connection: client, table: 'bad' } });
    const refused = engineRun(spec({}));
    await expect(refused).rejects.toThrow(/invalid: 'drop'/);
    await expect(refused).rejects.not.toThrow(/abc/); // never the private value
    expect((await engineRun(spec({ invalid: 'drop' }))).totals[0]![0]).toBe(1);
  });

  it('refuses a wrong table, a wrong column and an unreachable server with a clear error, spending nothing', async () => {
    const budget = createBudget({ epsilon: 1, delta: 1e-6 });
    const run = (table: unknown, extra: object = {}) =>
      aggregate({ epsilon: 1, delta: 1e-6, budget, ...options, ...extra, table, rng: createRng({ seed: 1 }) } as never);
    await expect(run({ connection: client, table: 'nobody' })).rejects.toThrow(/PostgreSQL cannot read the table "nobody": relation "nobody" does not exist/);
    await expect(run({ connection: client, table: 'people' }, { sum: { salary: [0, 1] } })).rejects.toThrow(/no column "salary"/);
    const unreachable = `postgresql://${server.user}:secret-password@/postgres?host=${encodeURIComponent(join(server.host, 'nowhere'))}&port=${server.port}`;
    const refused = run({ postgres: unreachable, table: 'people' });
    await expect(refused).rejects.toThrow(/cannot connect to the PostgreSQL server of `table.postgres`/);
    await expect(refused).rejects.not.toThrow(/secret-password/);
    // A string pg cannot parse, and a socket that is not there: named as dpnoise's errors.
    for (const url of ['postgres://localhost:99999/x', `postgres://u@/db?host=${encodeURIComponent(join(server.host, 'nowhere'))}`])
      await expect(run({ postgres: url, table: 'people' })).rejects.toThrow(/^dpnoise: cannot connect to the PostgreSQL server/);
    expect(budget.spent.epsilon).toBe(0);
  });

  it('releases an aggregate end to end: the plan runs in the database, the budget is charged once', async () => {
    const budget = createBudget({ epsilon: 2, delta: 1e-6 });
    const r = await aggregate({ epsilon: 1, delta: 1e-6, budget, ...options, table: { postgres: server.url, table: 'people' }, rng: createRng({ seed: 2 }) });
    expect(r.groups).toEqual(GROUPS);
    expect(r.rows.length).toBe(3);
    // Charged once: about the release's epsilon, not twice it (the Gaussian plan with an
    // exponential-mechanism quantile spends 0.97 of 1: its factor stops at 1).
    expect(budget.spent.epsilon).toBeGreaterThan(0.95);
    expect(budget.spent.epsilon).toBeLessThanOrEqual(1);
  });

  it('runs from the command line: dpnoise aggregate --postgres URL --table people', () => {
    const cli = new URL('../../dist/cli.js', import.meta.url).pathname;
    const args = ['--postgres', server.url, '--table', 'people', '--group-by', 'region', '--groups', GROUPS.join(','), '--count', '--mean', 'age:0:100'];
    const r = spawnSync(process.execPath, [cli, 'aggregate', ...args, '--epsilon', '1', '--delta', '1e-6'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('group,statistic,column,at,value,sd,low,high,rank_sd');
    expect(lines.length).toBe(1 + 3 * 2);
  });

  it("runs aggregateSql's PostgreSQL rendering as printed, and its result releases as aggregate releases the table", async () => {
    const privacy = { epsilon: 1, delta: 1e-6 };
    const { sql, plan } = aggregateSql({ ...privacy, ...options, table: 'people', dialect: 'postgres' });
    const { rows: result } = await client.query(sql);
    const fromTotals = await aggregateFromTotals({ budget: createBudget(privacy), plan, rows: result, rng: createRng({ seed: 6 }) });
    const direct = await aggregate({
      ...privacy,
      budget: createBudget(privacy),
      ...options,
      table: { connection: client, table: 'people' },
      rng: createRng({ seed: 6 }),
    });
    expect(fromTotals.table).toEqual(direct.table);
  });

  it('injects nothing whatever the server says of backslashes: a group value cannot end its string (standard_conforming_strings off)', async () => {
    await client.query('CREATE TABLE victim (x int)');
    await client.query("CREATE TABLE slashes AS SELECT * FROM (VALUES ('1', 'a\\', '10'), ('2', 'b', '20')) v(id, region, age)");
    // The attack of the review: a group ending in a backslash, then one that closes the VALUES and drops a table.
    const attack = ['a\\', ', 0)) v(k, gi)) SELECT 1; DROP TABLE victim; WITH dpnoise_groups AS (SELECT * FROM (VALUES (', ', 0)) v(k, gi)) -- '];
    const own = new pg.Client({ host: server.host, port: server.port, user: server.user, database: 'postgres' });
    await own.connect();
    try {
      await own.query('SET standard_conforming_strings = off');
      const spec = { groupBy: 'region', groups: attack, count: true, mean: { age: [0, 100] } };
      const r = await aggregate({
        epsilon: 1,
        budget: createBudget({ epsilon: 1 }),
        ...spec,
        table: { connection: own, table: 'slashes' },
        rng: createRng({ seed: 3 }),
      });
      expect(r.groups).toEqual(attack);
      const totals = (await engineRun(readSpec({ ...spec, table: { connection: own, table: 'slashes' } }))).totals;
      expect(Array.from(totals[0]!)).toEqual([1, 0, 0]); // the group 'a\\' matches its row
      // The printed query holds under the same setting.
      const { sql } = aggregateSql({ epsilon: 1, ...spec, table: 'slashes', dialect: 'postgres' });
      expect((await own.query(sql)).rows.length).toBeGreaterThan(0);
    } finally {
      await own.end();
    }
    expect((await client.query("SELECT count(*) AS n FROM pg_class WHERE relname = 'victim'")).rows[0].n).toBe('1');
  });

  it("reads a table named as the query's own tables used to be (dpnoise_groups), not a table of the query", async () => {
    await client.query(
      "CREATE TABLE dpnoise_groups AS SELECT * FROM (VALUES ('1', 'north', '10'), ('2', 'east', '20'), ('3', 'east', '30')) v(id, region, age)",
    );
    const spec = readSpec({ groupBy: 'region', groups: ['north', 'east'], count: true, table: { connection: client, table: 'dpnoise_groups' } });
    expect(Array.from((await engineRun(spec)).totals[0]!)).toEqual([1, 2]);
  });

  it('matches numeric groups by value on a NUMERIC column, and refuses text groups there before anything is spent', async () => {
    await client.query("CREATE TABLE sexes AS SELECT * FROM (VALUES ('1', 1.0, '10'), ('2', 2.00, '20'), ('3', 2, '30')) v(id, sex, age)");
    await client.query('ALTER TABLE sexes ALTER COLUMN sex TYPE numeric');
    const spec = (groups: unknown[]) => readSpec({ groupBy: 'sex', groups, count: true, table: { connection: client, table: 'sexes' } });
    expect(Array.from((await engineRun(spec([1, 2]))).totals[0]!)).toEqual([1, 2]);
    expect(Array.from((await engineRun(spec(['1', '2.0']))).totals[0]!)).toEqual([1, 2]);
    const budget = createBudget({ epsilon: 1 });
    await expect(
      aggregate({ epsilon: 1, budget, groupBy: 'sex', groups: ['male', 'female'], count: true, table: { connection: client, table: 'sexes' } }),
    ).rejects.toThrow(/`groups` must all be numbers \(or texts of numbers\) to match the column "sex"/);
    expect(budget.spent.epsilon).toBe(0);
  });
  it('finds bounds written private in the database as memory does, from the same seed (docs/aggregates.md, "Bounds found privately")', async () => {
    const spec = {
      epsilon: 1,
      privacyUnit: 'id',
      maxRows: 2,
      groupBy: 'region',
      groups: GROUPS,
      count: true,
      mean: { age: 'private' },
      sum: { income: [0, 'private'] },
    } as const;
    const inPostgres = await aggregate({ ...spec, table: { connection: client, table: 'people' }, rng: createRng({ seed: 'private bounds' }) });
    const inMemory = await aggregate({ ...spec, table: rows, rng: createRng({ seed: 'private bounds' }) });
    expect(inPostgres.privateBounds!.bounds).toEqual(inMemory.privateBounds!.bounds);
    expect(inPostgres.rows).toEqual(inMemory.rows);
  });
});
