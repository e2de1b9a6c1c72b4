// The ClickHouse engine (src/aggregate/clickhouse.ts, running the SQL of clickhouse-sql.ts) on a
// real two-shard cluster (scripts/clickhouse-server.mjs: two private servers on loopback ports, a
// MergeTree table on each and a Distributed table over both): the same totals as the in-memory
// engine however the rows are sharded; contribution bounds holding for a unit whose rows are on
// both shards; text columns, invalid values, quoting, and bad input refused before anything is spent.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClickHouseCluster, clickhouseBinary, insertRows, runClickHouse, startClickHouse } from '../../scripts/clickhouse-server.mjs';
import { readTextTable } from '../../src/aggregate/duckdb.js';
import { aggregate, aggregateFromTotals, aggregateSql } from '../../src/aggregate/index.js';
import { layoutOf } from '../../src/aggregate/layout.js';
import { readSpec } from '../../src/aggregate/spec.js';
import { createBudget, createRng } from '../../src/index.js';
import { engineRun, expectOneRowPerUnit, GROUPS, memoryRun, ONE_ROW, people, plain, STATISTICS, threeRowsPerUnit } from './engine-cases.js';

const bin = clickhouseBinary();
if (!bin) console.warn('test/aggregate/clickhouse.test.ts: no clickhouse-server (Debian package clickhouse-server; .ci/run installs it): skipped.');

const rows = people(11, 3000, 1700); // some units have two rows
const options = STATISTICS;
const TYPES = ['Nullable(String)', 'Nullable(String)', 'Float64', 'Float64'];
const asArrays = (rs: ReadonlyArray<{ id: string; region: string | null; age: number; income: number }>) => rs.map((r) => [r.id, r.region, r.age, r.income]);

describe.skipIf(!bin)('the ClickHouse engine, on a real two-shard cluster', () => {
  let cluster: ClickHouseCluster;
  let url: string;
  /** Runs DDL on every server. */
  const everywhere = (sql: string) => Promise.all(cluster.servers.map((s) => runClickHouse(s.url, sql)));
  /**
   * A table `name` of `columns` on both shards (`name`_local) and a Distributed table `name`
   * over them; `split(row, i)` is the shard of each row (0 or 1), inserted into that shard's
   * own table: the Distributed table's sharding key is never what placed them.
   */
  async function shardedTable(name: string, columns: string, types: readonly string[], data: ReadonlyArray<readonly unknown[]>, split: (i: number) => number) {
    await everywhere(`CREATE TABLE ${name}_local (${columns}) ENGINE = MergeTree ORDER BY tuple()`);
    await runClickHouse(url, `CREATE TABLE ${name} AS ${name}_local ENGINE = Distributed(dpnoise, default, ${name}_local, rand())`);
    for (const shard of [0, 1]) {
      const mine = data.filter((_, i) => split(i) === shard);
      if (mine.length > 0) await insertRows(cluster.servers[shard]!.url, `${name}_local`, types, mine);
    }
  }

  beforeAll(async () => {
    cluster = await startClickHouse(bin!);
    url = cluster.url;
    const columns = 'id Nullable(String), region Nullable(String), age Float64, income Float64';
    // Alternate rows on alternate shards: a unit with two rows has one on each.
    await shardedTable('people', columns, TYPES, asArrays(rows), (i) => i % 2);
    // Every row of a unit on one shard (the unit's hash), as a Distributed table sharded by the unit places them.
    await shardedTable('by_unit', columns, TYPES, asArrays(rows), (i) => Number(rows[i]!.id.slice(1)) % 2);
    await runClickHouse(
      url,
      'CREATE TABLE texts ENGINE = MergeTree ORDER BY tuple() AS SELECT id, region, toString(age) AS age, toString(income) AS income FROM people',
    );
  }, 120_000);
  afterAll(() => cluster?.stop());

  const expected = (extra: object = {}) => {
    const spec = readSpec({ ...options, ...extra, table: rows });
    return memoryRun(rows, spec, layoutOf(spec, false));
  };
  const table = (name: string) => ({ clickhouse: url, table: name });

  it('gives the in-memory totals exactly on the Distributed table, a unit-sharded one, and one shard alone', async () => {
    const want = plain(expected().totals);
    expect(plain((await engineRun(readSpec({ ...options, table: table('people') }))).totals)).toEqual(want);
    expect(plain((await engineRun(readSpec({ ...options, table: table('default.by_unit') }))).totals)).toEqual(want);
    const half = rows.filter((_, i) => i % 2 === 0);
    const spec = readSpec({ ...options, table: half });
    const alone = await engineRun(readSpec({ ...options, table: table('people_local') }));
    expect(plain(alone.totals)).toEqual(plain(memoryRun(half, spec, layoutOf(spec, false)).totals));
  });

  it('counts units alone (no value column), each once, though its rows are on both shards', async () => {
    const spec = readSpec({ privacyUnit: 'id', groupBy: 'region', maxGroups: 1, count: true, table: table('people') });
    const got = await engineRun(spec);
    expect(Array.from(got.totals[0]!).reduce((a, b) => a + b, 0)).toBe(new Set(rows.filter((r) => r.region !== null).map((r) => r.id)).size);
  });

  it('reads numbers stored as text by the one rule', async () => {
    const got = await engineRun(readSpec({ ...options, table: table('texts') }));
    expect(plain(got.totals)).toEqual(plain(expected().totals));
  });

  it('selects groups as the in-memory engine does (privacy unit, at most one group each), units on both shards', async () => {
    const extra = { groups: undefined, privacyUnit: 'id', maxGroups: 1 };
    const selecting = readSpec({ ...options, ...extra, table: table('people') });
    const layout = layoutOf(selecting, false);
    const got = await engineRun(selecting, layout);
    const want = expected(extra);
    expect(got.groups).toEqual(["b'x", 'east', 'north']);
    expect(got.groups).toEqual(want.groups);
    const units = layout.measures.findIndex((m) => m.kind === 'units');
    // One group per unit: each unit counted once, though its two rows are on two shards.
    expect(Array.from(got.totals[units]!).reduce((a, b) => a + b, 0)).toBe(new Set(rows.filter((r) => r.region !== null).map((r) => r.id)).size);
  });

  it('bounds a unit whose rows are on both shards: at most maxRows rows in at most maxGroups groups, drawn afresh each run', async () => {
    // 1000 rows of one unit, alternating shards and groups; age 200 (clipped to 100), income i.
    const heavy = Array.from({ length: 1000 }, (_, i) => ['one', GROUPS[i % 3]!, 200, i]);
    await shardedTable('heavy', 'id Nullable(String), region Nullable(String), age Float64, income Float64', TYPES, heavy, (i) => i % 2);
    for (const [maxRows, maxGroups] of [
      [2, 2],
      [1, 1],
      [3, 2],
      [1, 3],
    ] as const) {
      const spec = readSpec({ ...options, privacyUnit: 'id', maxRows, maxGroups, table: table('heavy') });
      const runs = await Promise.all([0, 1, 2].map(async () => (await engineRun(spec)).totals));
      for (const totals of runs) {
        expect(Array.from(totals[0]!).reduce((a, b) => a + b, 0)).toBe(maxRows * maxGroups);
        expect(Array.from(totals[0]!).filter((c) => c > 0).length).toBe(maxGroups);
        expect(Array.from(totals[0]!).every((c) => c === 0 || c === maxRows)).toBe(true);
        expect(Array.from(totals[1]!).reduce((a, b) => a + b, 0)).toBe(100 * maxRows * maxGroups);
      }
      // The rows kept are the engine's random draw: three runs keeping the same incomes would be a fixed choice.
      const incomes = runs.map((t) => t[2]![0]! + t[2]![1]! + t[2]![2]!);
      expect(new Set(incomes).size).toBeGreaterThan(1);
    }
  });

  it('bounds a unit on both shards whatever its URL asks: shards finishing their own GROUP BY, or a GROUP BY cut short, are overridden, a limit is an error', async () => {
    const heavy = Array.from({ length: 200 }, (_, i) => ['one', GROUPS[i % 3]!, 50, i]);
    await shardedTable('attack', 'id Nullable(String), region Nullable(String), age Float64, income Float64', TYPES, heavy, (i) => i % 2);
    const spec = { ...options, privacyUnit: 'id', maxRows: 1, maxGroups: 1 };
    const layout = layoutOf(readSpec({ ...spec, table: [] }), false);
    const count = layout.measures.findIndex((m) => m.kind === 'count');
    // The attack: with distributed_group_by_no_merge each shard finishes its own GROUP BY, and
    // the unit's rows are bounded once per shard: it counts twice.
    const { sql } = aggregateSql({ epsilon: 1, delta: 1e-6, ...spec, table: 'attack', dialect: 'clickhouse' });
    const naive = JSON.parse(await runClickHouse(`${url}/?distributed_group_by_no_merge=1`, `${sql.replace(/;\s*$/, '')}\nFORMAT JSON`)).data as Record<
      string,
      string
    >[];
    const totalRows = naive.filter((r) => r.c0 === '' && r.c1 === '');
    expect(totalRows.reduce((n, r) => n + Number(r[`m${count}`]), 0)).toBe(2);
    // dpnoise sets the settings that matter over the URL's: one row, in one group.
    const hostile = `${url}/?distributed_group_by_no_merge=1&skip_unavailable_shards=1&query=SELECT%201`;
    for (let run = 0; run < 3; run++) {
      const totals = (await engineRun(readSpec({ ...spec, table: { clickhouse: hostile, table: 'attack' } }), layout)).totals;
      expect(Array.from(totals[count]!).reduce((a, b) => a + b, 0)).toBe(1);
    }
    // A limit on the GROUP BY stops the query (its code named, never its message) rather than cutting it short.
    const limited = `${url}/?max_rows_to_group_by=1&group_by_overflow_mode=any`;
    await expect(engineRun(readSpec({ ...spec, table: { clickhouse: limited, table: 'attack' } }), layout)).rejects.toThrow(/ClickHouse code 158/);
  });

  it.each(['rows', 'groups'] as const)(
    'keeps one row per unit, uniformly at random and afresh each run, every value from that one row, its rows on both shards (%s)',
    async (spread) => {
      const three = threeRowsPerUnit(spread);
      await shardedTable(`three_${spread}`, 'id Nullable(String), region Nullable(String), age Float64, income Float64', TYPES, asArrays(three), (i) => i % 2);
      const spec = readSpec({ ...ONE_ROW, ...(spread === 'groups' ? { maxGroups: 1 } : {}), table: table(`three_${spread}`) });
      const layout = layoutOf(spec, false);
      const runs = [(await engineRun(spec, layout)).totals, (await engineRun(spec, layout)).totals];
      for (const totals of runs) expectOneRowPerUnit(spread, totals, layout);
      expect(runs[1]).not.toEqual(runs[0]);
    },
  );

  it("refuses a NULL or non-numeric value, or drops its row with invalid: 'drop'", async () => {
    const bad = [
      ['1', 'north', '30', '100'],
      ['2', 'north', null, '200'],
      ['3', 'north', 'abc', '300'],
      ['4', 'north', 'NaN', '1'],
      ['5', 'north', '1e999', '1'],
      ['6', 'north', '1e99999', '1'],
    ];
    const t = ['Nullable(String)', 'Nullable(String)', 'Nullable(String)', 'Nullable(String)'];
    await shardedTable('bad', 'id Nullable(String), region Nullable(String), age Nullable(String), income Nullable(String)', t, bad, (i) => i % 2);
    const spec = (extra: object) => readSpec({ ...options, ...extra, table: table('bad') });
    const refused = engineRun(spec({}));
    await expect(refused).rejects.toThrow(/invalid: 'drop'/);
    await expect(refused).rejects.not.toThrow(/abc/);
    expect((await engineRun(spec({ invalid: 'drop' }))).totals[0]![0]).toBe(1);
  });

  it('refuses a wrong table, a wrong column and an unreachable server with a clear error, spending nothing', async () => {
    const budget = createBudget({ epsilon: 1, delta: 1e-6 });
    const run = (source: unknown, extra: object = {}) =>
      aggregate({ epsilon: 1, delta: 1e-6, budget, ...options, ...extra, table: source, rng: createRng({ seed: 1 }) } as never);
    await expect(run(table('nobody'))).rejects.toThrow(/ClickHouse cannot read the table `nobody`: Table default.nobody doesn't exist/);
    await expect(run(table('people'), { sum: { salary: [0, 1] } })).rejects.toThrow(/no column "salary"/);
    const closed = await new Promise<number>((resolve) => {
      import('node:net').then(({ createServer }) => {
        const s = createServer().listen(0, '127.0.0.1', () => {
          const { port } = s.address() as { port: number };
          s.close(() => resolve(port));
        });
      });
    });
    const refused = run({ clickhouse: `http://default:secret-password@127.0.0.1:${closed}`, table: 'people' });
    await expect(refused).rejects.toThrow(/^dpnoise: cannot connect to the ClickHouse server of `table.clickhouse` \(ECONNREFUSED\)/);
    await expect(refused).rejects.not.toThrow(/secret-password/);
    const wrong = run({ clickhouse: url.replace('http://', 'http://default:secret-password@'), table: 'people' });
    await expect(wrong).rejects.toThrow(/ClickHouse cannot read the table `people`/);
    await expect(wrong).rejects.not.toThrow(/secret-password/);
    await expect(run({ clickhouse: 'not a url', table: 'people' })).rejects.toThrow(/`table.clickhouse` must be the URL of a ClickHouse server/);
    await expect(run({ clickhouse: url, postgres: 'postgres://x', table: 'people' })).rejects.toThrow(/takes one of/);
    expect(budget.spent.epsilon).toBe(0);
  });

  it('releases an aggregate end to end: the plan runs in the cluster, the budget is charged once', async () => {
    const budget = createBudget({ epsilon: 2, delta: 1e-6 });
    const r = await aggregate({ epsilon: 1, delta: 1e-6, budget, ...options, table: table('people'), rng: createRng({ seed: 2 }) });
    expect(r.groups).toEqual(GROUPS);
    expect(r.rows.length).toBe(3);
    // Charged once: about the release's epsilon, not twice it (the Gaussian plan with an
    // exponential-mechanism quantile spends 0.97 of 1: its factor stops at 1).
    expect(budget.spent.epsilon).toBeGreaterThan(0.95);
    expect(budget.spent.epsilon).toBeLessThanOrEqual(1);
  });

  it('runs from the command line: dpnoise aggregate --clickhouse URL --table people', () => {
    const cli = new URL('../../dist/cli.js', import.meta.url).pathname;
    const args = ['--clickhouse', url, '--table', 'people', '--group-by', 'region', '--groups', GROUPS.join(','), '--count', '--mean', 'age:0:100'];
    const r = spawnSync(process.execPath, [cli, 'aggregate', ...args, '--epsilon', '1', '--delta', '1e-6'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('group,statistic,column,at,value,sd,low,high,rank_sd');
    expect(lines.length).toBe(1 + 3 * 2);
  });

  it("runs aggregateSql's ClickHouse rendering as printed, and its result (saved as CSV) releases as aggregate releases the table", async () => {
    const privacy = { epsilon: 1, delta: 1e-6 };
    // One row per unit, so that the totals do not depend on which rows are kept.
    await runClickHouse(url, 'CREATE TABLE singles ENGINE = MergeTree ORDER BY tuple() AS SELECT * FROM people LIMIT 1 BY id');
    const single = { ...options, privacyUnit: 'id' };
    const { sql, plan } = aggregateSql({ ...privacy, ...single, table: 'singles', dialect: 'clickhouse' });
    const dir = mkdtempSync(join(tmpdir(), 'dpnoise-ch-csv-'));
    const path = join(dir, 'result.csv');
    writeFileSync(path, await runClickHouse(url, `${sql.replace(/;\s*$/, '')}\nFORMAT CSVWithNames`));
    const result = await readTextTable(path);
    rmSync(dir, { recursive: true });
    const fromTotals = await aggregateFromTotals({ budget: createBudget(privacy), plan, rows: result, rng: createRng({ seed: 6 }) });
    const direct = await aggregate({ ...privacy, budget: createBudget(privacy), ...single, table: table('singles'), rng: createRng({ seed: 6 }) });
    expect(fromTotals.table).toEqual(direct.table);
  });

  it('quotes every group value and column name: quotes, backslashes, newlines, comments and unicode match their rows and inject nothing', async () => {
    const hostile = ["a'b", 'back\\slash', 'line\nbreak', "'; DROP TABLE victim; --", '/* x */', 'é\u2028☃', '', 'tab\t`tick`', 'a\\'];
    await runClickHouse(url, 'CREATE TABLE victim (x UInt8) ENGINE = MergeTree ORDER BY tuple()');
    const odd = 'we`ird "col\\umn\n';
    await everywhere(`CREATE TABLE odd_local (id String, g String, \`we\\\`ird "col\\\\umn\\n\` Float64) ENGINE = MergeTree ORDER BY tuple()`);
    await runClickHouse(url, 'CREATE TABLE odd AS odd_local ENGINE = Distributed(dpnoise, default, odd_local, rand())');
    const data = hostile.flatMap((g, i) => [
      [`u${i}`, g, i],
      [`v${i}`, g, i + 0.5],
    ]);
    await insertRows(cluster.servers[0]!.url, 'odd_local', ['String', 'String', 'Float64'], data.slice(0, 9));
    await insertRows(cluster.servers[1]!.url, 'odd_local', ['String', 'String', 'Float64'], data.slice(9));
    const spec = { privacyUnit: 'id', groupBy: 'g', maxGroups: 1, count: true, sum: { [odd]: [0, 100] } };
    const objects = data.map(([id, g, x]) => ({ id, g, [odd]: x }));
    for (const groups of [hostile, undefined]) {
      const want = memoryRun(objects, readSpec({ ...spec, groups, table: objects }), layoutOf(readSpec({ ...spec, groups, table: objects }), false));
      const got = await engineRun(readSpec({ ...spec, groups, table: table('odd') }));
      expect([got.groups, plain(got.totals)]).toEqual([want.groups, plain(want.totals)]);
    }
    expect(await runClickHouse(url, "SELECT count() FROM system.tables WHERE name = 'victim' FORMAT TSV")).toBe('1\n');
  });
});
