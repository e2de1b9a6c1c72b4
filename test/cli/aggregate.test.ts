// dpnoise aggregate and dpnoise budget, run as users run them: node dist/cli.js on real files.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { runAsWarehouse } from './warehouse.js';
import { describe, expect, it } from 'vitest';

const cli = new URL('../../dist/cli.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'dpnoise-cli-aggregate-'));
const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
const dpnoise = (...args: string[]) => (args[0] === 'budget' || args[0] === 'aggregate' ? run(...args) : run('aggregate', ...args));
const people = join(dir, 'people.csv');
writeFileSync(
  people,
  `person_id,region,age,income\n${Array.from({ length: 3000 }, (_, i) => `${i % 1000},${['north', 'south'][i % 2]},${(i * 7) % 90},${(i * 7919) % 400000}`).join('\n')}\n`,
);
const ARGS = ['--input', people, '--privacy-unit', 'person_id', '--group-by', 'region', '--groups', 'north,south', '--epsilon', '1', '--delta', '1e-6'];

describe('dpnoise aggregate', () => {
  it("releases the issue's example: counts, sums, means and quantiles per group, as CSV with sd and intervals", () => {
    const output = join(dir, 'stats.csv');
    const r = dpnoise(
      ...ARGS,
      '--max-rows',
      '3',
      '--count',
      '--sum',
      'age:0:100',
      '--sum',
      'income:0:500000',
      '--mean',
      'age:0:100',
      '--quantile',
      'income:0:500000:0.5',
      '--output',
      output,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const rows = parse(readFileSync(output, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((x) => `${x.group} ${x.statistic} ${x.column}`)).toEqual(
      ['north', 'south'].flatMap((g) => [`${g} count `, `${g} sum age`, `${g} sum income`, `${g} mean age`, `${g} quantile income`]),
    );
    const count = rows[0]!;
    expect(Math.abs(Number(count.value) - 1500)).toBeLessThan(6 * Number(count.sd));
    expect(Number(count.low)).toBeLessThan(Number(count.value));
    expect(count.rank_sd).toBe('');
    // A quantile's sd is of its rank, in its own column; none in its value's units.
    const quantile = rows.find((x) => x.statistic === 'quantile')!;
    expect([quantile.sd, Number(quantile.rank_sd) > 0]).toEqual(['', true]);
    expect(r.stderr).toMatch(/protects each person_id \(at most 3 rows in each of at most 2 groups\); spent epsilon 1 at delta 0.000001 of 1/);
    expect(r.stderr).toMatch(/mean\(age\).*\(of its sum: divide by the count\)/);
    // What the figures cannot say, from the arguments alone.
    expect(r.stderr).toMatch(/note: counts are of the rows kept after contribution bounding/);
    expect(r.stderr).toMatch(/note: rows whose group is not among --groups are not counted anywhere/);
    expect(r.stderr).toMatch(/note: each unit may count in every declared group \(no --max-groups\)/);
  });

  it('takes a file, a PostgreSQL table or a ClickHouse table, one of them, and --table only with a database', () => {
    const both = dpnoise(...ARGS, '--postgres', 'postgresql://localhost/db', '--table', 'people', '--count');
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/give one of --input \(a file\), --postgres or --clickhouse \(a database\); got --input and --postgres/);
    const databases = dpnoise(
      'aggregate',
      '--postgres',
      'postgresql://localhost/db',
      '--clickhouse',
      'http://localhost:8123',
      '--table',
      'people',
      '--count',
      '--epsilon',
      '1',
    );
    expect(databases.stderr).toMatch(/got --postgres and --clickhouse/);
    const stray = dpnoise(...ARGS, '--table', 'people', '--count');
    expect(stray.stderr).toMatch(/--table names a table of --postgres/);
    const missing = dpnoise('aggregate', '--postgres', 'postgresql://localhost/db', '--count', '--epsilon', '1');
    expect(missing.stderr).toMatch(/--table is required/);
  });

  it('prints a warehouse query with --sql and its plan with --plan FILE, then releases the result with --aggregated', async () => {
    const plan = join(dir, 'warehouse-plan.json');
    const sqlFile = join(dir, 'warehouse.sql');
    const statistics = ['--group-by', 'region', '--groups', 'north,south', '--count', '--mean', 'age:0:100'];
    const printed = dpnoise(
      'aggregate',
      '--sql',
      '--dialect',
      'duckdb',
      '--table',
      'people',
      '--plan',
      plan,
      ...statistics,
      '--epsilon',
      '1',
      '--delta',
      '1e-6',
      '--output',
      sqlFile,
    );
    expect(printed.status, printed.stderr).toBe(0);
    // The warehouse: DuckDB with the same rows, its result saved as CSV.
    const result = join(dir, 'warehouse-result.csv');
    await runAsWarehouse(sqlFile, people, result);
    const released = dpnoise('aggregate', '--aggregated', result, '--plan', plan);
    expect(released.status, released.stderr).toBe(0);
    const rows = parse(released.stdout, { columns: true }) as Record<string, string>[];
    expect(rows.map((x) => `${x.group} ${x.statistic}`)).toEqual(['north count', 'north mean', 'south count', 'south mean']);
    expect(Math.abs(Number(rows[0]!.value) - 1500)).toBeLessThan(6 * Number(rows[0]!.sd));
    // Statistics beside the plan's, another privacy than the plan's, or a plan edited since, are refused.
    expect(dpnoise('aggregate', '--aggregated', result, '--plan', plan, '--count').stderr).toMatch(/takes the statistics from --plan; drop --count/);
    expect(dpnoise('aggregate', '--aggregated', result, '--plan', plan, '--epsilon', '2', '--delta', '1e-6').stderr).toMatch(/must be the plan's/);
    writeFileSync(plan, readFileSync(plan, 'utf8').replace('"groups"', '"groups" ').replace('100', '1000'));
    const edited = dpnoise('aggregate', '--aggregated', result, '--plan', plan);
    expect(edited.status).not.toBe(0);
    expect(edited.stderr).toMatch(/does not match its checksum/);
  });

  it('prints the accuracy table with --plan and reads no data (the input need not exist)', () => {
    const r = dpnoise('aggregate', '--plan', ...ARGS.map((a) => (a === people ? join(dir, 'absent.csv') : a)), '--count', '--histogram', 'age:0,18,65,100');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Protects each person_id[\s\S]*count\s+(gaussian|laplace)[\s\S]*histogram\(age\)/);
  });

  it('prints the plan without any input, and with --expected-count the errors of means and quantiles in their own units', () => {
    const plan = ['aggregate', '--plan', '--epsilon', '1', '--mean', 'age:0:100', '--quantile', 'income:0:400000:0.5'];
    const bare = dpnoise(...plan);
    expect(bare.status, bare.stderr).toBe(0);
    expect(bare.stdout).toMatch(/quantile\(income, 0\.5\)\s+exponential\s+[\d.]+\s+[\d.]+ \(in rows of rank\)/);
    expect(bare.stdout).toMatch(/--expected-count N gives them/);
    const sized = dpnoise(...plan, '--expected-count', '1000');
    expect(sized.status, sized.stderr).toBe(0);
    // A rank sd of s rows over 1000 values spread evenly on [0, 400000]: 400 s in income.
    const [, rankSd, inIncome] = /quantile\(income, 0\.5\)\s+exponential\s+([\d.]+)\s+[\d.]+\s+([\d.]+)/.exec(sized.stdout)!;
    expect(Number(inIncome) / Number(rankSd)).toBeCloseTo(400, 3);
    expect(sized.stdout).toMatch(/sd at 1000 rows/);
    expect(dpnoise(...plan, '--expected-count', '0').stderr).toMatch(/--expected-count must be/);
  });

  it('warns on standard error of epsilon above 10 or delta above 1e-4, in the plan and the release, with thresholds by flag', () => {
    const plan = ['aggregate', '--plan', '--epsilon', '1e5', '--delta', '0.1', '--count'];
    const weak = dpnoise(...plan);
    expect(weak.status, weak.stderr).toBe(0);
    expect(weak.stderr).toMatch(/dpnoise: warning: epsilon 100000 is above 10/);
    expect(weak.stderr).toMatch(/dpnoise: warning: delta 0.1 is above 0.0001/);
    expect(dpnoise(...plan, '--warn-epsilon', '1e8', '--warn-delta', '0.5').stderr).not.toMatch(/warning/);
    const release = dpnoise(...ARGS.slice(0, -4), '--epsilon', '20', '--delta', '1e-6', '--count');
    expect(release.status, release.stderr).toBe(0);
    expect(release.stderr).toMatch(/dpnoise: warning: epsilon 20 is above 10/);
    expect(dpnoise(...plan, '--warn-delta', '2').stderr).toMatch(/--warn-delta must be/);
  });

  it('charges a budget file and refuses, writing nothing, a release beyond it', () => {
    const budget = join(dir, 'budget.json');
    expect(dpnoise('budget', '--epsilon', '1.2', '--delta', '1e-6', '--output', budget).status).toBe(0);
    expect(dpnoise('budget', '--epsilon', '9', '--output', budget).stderr).toMatch(/never overwritten/);
    expect(dpnoise(...ARGS, '--count', '--budget', budget, '--format', 'json').status).toBe(0);
    const output = join(dir, 'refused.csv');
    const refused = dpnoise(...ARGS, '--count', '--budget', budget, '--output', output);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/would exceed the budget/);
    expect(existsSync(output)).toBe(false);
    expect(dpnoise('budget', '--show', budget).stdout).toMatch(/^1 releases; spent epsilon (1|0\.99999\d*) of 1.2 at delta 0.000001/);
  });

  it('writes the charge to the budget file when the release fails after reading the data (its error says something of it)', () => {
    const budget = join(dir, 'charged.json');
    expect(dpnoise('budget', '--epsilon', '3', '--delta', '1e-6', '--output', budget).status).toBe(0);
    const bad = join(dir, 'bad-cell.csv');
    writeFileSync(bad, 'person_id,region,age,income\n1,north,40,5\n2,south,abc,7\n');
    const failed = dpnoise(
      '--input',
      bad,
      '--privacy-unit',
      'person_id',
      '--group-by',
      'region',
      '--groups',
      'north,south',
      '--epsilon',
      '1',
      '--delta',
      '1e-6',
      '--sum',
      'age:0:100',
      '--budget',
      budget,
    );
    expect(failed.status, failed.stderr).not.toBe(0);
    expect(failed.stderr).toMatch(/a row has a NULL, missing or non-numeric value/);
    expect(dpnoise('budget', '--show', budget).stdout).toMatch(/^1 releases; spent epsilon (1|0\.99999\d*) of 3/);
  });

  it('trims the names of --groups ("north, south" is north and south), and refuses an empty one', () => {
    const spaced = dpnoise(...ARGS.map((a) => (a === 'north,south' ? ' north , south' : a)), '--count');
    expect(spaced.status, spaced.stderr).toBe(0);
    const rows = parse(spaced.stdout, { columns: true }) as Record<string, string>[];
    expect(rows.map((x) => x.group)).toEqual(['north', 'south']);
    for (const row of rows) expect(Math.abs(Number(row.value) - 500)).toBeLessThan(6 * Number(row.sd)); // 500 people in each, one row each
    for (const groups of ['north,,south', 'north, ', ' ']) {
      const r = dpnoise(...ARGS.map((a) => (a === 'north,south' ? groups : a)), '--count');
      expect(r.status, groups).toBe(2);
      expect(r.stderr).toMatch(/^dpnoise: --groups must be names separated by commas, none empty; got ".*"\.\n$/);
    }
  });

  it('finds bounds written private (docs/aggregates.md, "Bounds found privately"): the split and the bounds in the summary and the plan; refused with --sql', () => {
    const r = dpnoise(...ARGS, '--count', '--mean', 'age:0:private', '--sum', 'income:private', '--bounds-share', '0.2', '--format', 'csv');
    expect(r.status, r.stderr).toBe(0);
    // ages 0 to 89: at most [0, 128] unless the noise says otherwise; incomes below 400000: 2^19 at most, as 2^20 is the widest.
    expect(r.stderr).toMatch(
      /Bounds found privately with epsilon 0\.2 \(--bounds-share 0\.2\), the release at 0\.8: found income \[-\d+, \d+\], age \[0, \d+\]\.\n/,
    );
    expect((parse(r.stdout, { columns: true }) as Record<string, string>[]).map((x) => x.statistic)).toEqual(['count', 'sum', 'mean', 'count', 'sum', 'mean']);
    const json = JSON.parse(dpnoise(...ARGS, '--mean', 'age:0:private', '--format', 'json').stdout);
    expect(Object.keys(json)).toEqual(['unit', 'level', 'bounds', 'rows']);
    expect(json.bounds.age[0]).toBe(0);
    const plan = dpnoise('aggregate', '--plan', '--epsilon', '1', '--mean', 'age:private:100', '--bounds-limit', '1000');
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/the table is for the widest candidates, age \[-412, 100\]; the noise shrinks with the bounds found/);
    const sql = dpnoise(
      'aggregate',
      '--sql',
      '--dialect',
      'duckdb',
      '--table',
      't',
      '--plan',
      join(dir, 'private.json'),
      '--epsilon',
      '1',
      '--mean',
      'age:0:private',
    );
    expect([sql.status, sql.stderr]).toEqual([2, expect.stringMatching(/^dpnoise: bounds written 'private' need two reads of the data/)]);
    expect(dpnoise(...ARGS, '--mean', 'age:0:private', '--bounds-share', '1').stderr).toMatch(/^dpnoise: --bounds-share must be a number > 0 and < 1; got 1\./);
    expect(dpnoise(...ARGS, '--mean', 'age:0:100', '--bounds-coverage', '0.9').stderr).toMatch(
      /--bounds-share, --bounds-coverage and --bounds-limit are for bounds/,
    );
    expect(dpnoise(...ARGS, '--mean', 'age:0:privat').stderr).toMatch(/--mean "age:0:privat": the bounds must be numbers or private/);
  });

  it("names the flags in the library's errors, never its options", () => {
    const plan = ['aggregate', '--plan', '--epsilon', '1'];
    const groups = dpnoise(...plan, '--count', '--privacy-unit', 'id', '--group-by', 'g', '--groups', 'a,b', '--max-groups', '0');
    expect([groups.status, groups.stderr]).toEqual([2, expect.stringMatching(/^dpnoise: --max-groups must be a number >= 1/)]);
    expect(dpnoise(...plan, '--quantile', 'x:5:1:0.5').stderr).toMatch(/^dpnoise: --quantile x must be bounds with lower < upper/);
    for (const r of [groups, dpnoise(...plan, '--count', '--level', '2')]) expect(r.stderr).not.toMatch(/maxGroups|`level`|`/);
  });

  it('explains bad arguments with exit code 2', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--count', '--sum', 'age:100'], /--sum must be COLUMN:LOW:HIGH/],
      [['--count', '--sum', 'age:100:0'], /lower < upper/],
      [['--count', '--sum', 'salary:0:1'], /no column "salary" \(it has 4 columns, not named here/],
      [['--count', '--weights', 'best'], /--weights must be range or equal/],
      [['--mean', 'age:0:100', '--mean', 'age:0:50'], /names the column "age" twice/],
      [[], /at least one statistic/],
    ];
    for (const [extra, message] of cases) {
      const r = dpnoise(...ARGS, ...extra);
      expect(r.status, extra.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const pure = dpnoise('--input', people, '--group-by', 'region', '--count', '--epsilon', '1');
    expect(pure.stderr).toMatch(/selecting the groups privately \(no --groups given\) needs --delta/);
    const selected = dpnoise(
      '--input',
      people,
      '--privacy-unit',
      'person_id',
      '--max-groups',
      '2',
      '--group-by',
      'region',
      '--count',
      '--epsilon',
      '1',
      '--delta',
      '1e-6',
    );
    expect(selected.status, selected.stderr).toBe(0);
    expect(selected.stdout).toMatch(/^group,statistic,column,at,value,sd,low,high,rank_sd\nnorth,count,,,[\s\S]*\nsouth,count,/);
  });
});
