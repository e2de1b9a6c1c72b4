// A budget file charged by several dpnoise processes at once (issue 39, "The ledger never loses a
// spend"): each release charges the file under a lock beside it, and writes the charge (whole)
// before it reads the data. Run as users run it: node dist/cli.js on real files, at the same time.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAsWarehouse } from './warehouse.js';
import { describe, expect, it } from 'vitest';

const cli = new URL('../../dist/cli.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'dpnoise-cli-budget-lock-'));
const people = join(dir, 'people.csv');
writeFileSync(people, `person_id,region,age\n${Array.from({ length: 300 }, (_, i) => `${i},${['north', 'south'][i % 2]},${i % 90}`).join('\n')}\n`);
// Pure epsilon-DP composes by addition: two releases of 0.4 fit a budget of 1, a third does not.
const STATISTICS = ['--group-by', 'region', '--groups', 'north,south', '--count', '--epsilon', '0.4'];
const RELEASE = ['aggregate', '--input', people, '--privacy-unit', 'person_id', ...STATISTICS];

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** dpnoise started without waiting for it (`node` options first, such as --import). */
function start(args: string[], nodeOptions: string[] = []) {
  const child = spawn(process.execPath, [...nodeOptions, cli, ...args]);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const done = new Promise<Run>((resolve) => child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr })));
  return { child, done };
}
const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let files = 0;
/** A new budget file of `epsilon` (pure), made by the command line. */
function newBudget(epsilon: string): string {
  const file = join(dir, `budget-${files++}.json`);
  const made = run('budget', '--epsilon', epsilon, '--output', file);
  expect(made.status, made.stderr).toBe(0);
  return file;
}
const saved = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { epsilon: number; releases: unknown[] };
const show = (file: string) => run('budget', '--show', file).stdout;
/** A lock file as dpnoise writes it: its owner's pid, host and start time. */
const writeLock = (file: string, pid: number, host = hostname(), started = new Date()) =>
  writeFileSync(`${file}.lock`, `${JSON.stringify({ pid, host, started: started.toISOString() })}\n`);

/** Runs `args` several times at once; meanwhile every read of `budget` must find a whole budget. */
async function together(budget: string, args: string[][]): Promise<{ runs: Run[]; reads: number }> {
  let reads = 0;
  let torn: string | undefined;
  const reader = setInterval(() => {
    const text = readFileSync(budget, 'utf8');
    try {
      if (JSON.parse(text).format !== 'dpnoise-budget') torn = text;
    } catch {
      torn = text;
    }
    reads++;
  }, 2);
  const runs = await Promise.all(args.map((a) => start(a).done));
  clearInterval(reader);
  expect(torn, 'a read found the budget file half-written').toBeUndefined();
  return { runs, reads };
}

describe('dpnoise aggregate --budget, run several times at once', () => {
  it('charges the file once for each release: 3 runs of 0.4 against 1 give exactly two releases and one refusal', async () => {
    const budget = newBudget('1');
    const { runs, reads } = await together(
      budget,
      [RELEASE, RELEASE, RELEASE].map((r) => [...r, '--budget', budget]),
    );
    const released = runs.filter((r) => r.status === 0);
    const refused = runs.filter((r) => r.status !== 0);
    expect(
      runs.map((r) => r.status),
      runs.map((r) => r.stderr).join('\n'),
    ).toEqual(expect.arrayContaining([0, 0, 2]));
    expect(released).toHaveLength(2);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.stderr).toMatch(/would exceed the budget.*nothing was spent/);
    expect(refused[0]!.stdout).toBe('');
    // The file records exactly the releases that happened: two of 0.4, composed.
    expect(saved(budget).releases).toHaveLength(2);
    expect(show(budget)).toMatch(/^2 releases; spent epsilon 0\.8 of 1; 0\.2 left\./);
    expect(existsSync(`${budget}.lock`)).toBe(false);
    expect(reads).toBeGreaterThan(10);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('charges the file once for each release of a warehouse result (--aggregated) too', async () => {
    const plan = join(dir, 'plan.json');
    const sql = join(dir, 'agg.sql');
    const made = run('aggregate', '--sql', '--dialect', 'duckdb', '--table', 'people', '--plan', plan, ...STATISTICS, '--output', sql);
    expect(made.status, made.stderr).toBe(0);
    const result = join(dir, 'agg-result.csv');
    await runAsWarehouse(sql, people, result);
    const budget = newBudget('1');
    const args = ['aggregate', '--aggregated', result, '--plan', plan, '--budget', budget];
    const { runs } = await together(budget, [args, args, args]);
    expect(runs.map((r) => r.status).sort(), runs.map((r) => r.stderr).join('\n')).toEqual([0, 0, 2]);
    expect(show(budget)).toMatch(/^2 releases; spent epsilon 0\.8 of 1;/);
    expect(existsSync(`${budget}.lock`)).toBe(false);
  });

  it('creates a budget file once when several `dpnoise budget --output` run at once, and never overwrites it', async () => {
    const file = join(dir, 'created.json');
    const runs = await Promise.all(['1', '2', '3', '4'].map((e) => start(['budget', '--epsilon', e, '--output', file]).done));
    const made = runs.filter((r) => r.status === 0);
    expect(made, runs.map((r) => r.stderr).join('\n')).toHaveLength(1);
    for (const r of runs.filter((x) => x.status !== 0)) {
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/never overwritten/);
    }
    expect(saved(file).releases).toEqual([]);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});

describe('the budget file lock', () => {
  it('makes a release wait while another process holds it, then proceed once it is released', async () => {
    const budget = newBudget('1');
    const before = readFileSync(budget, 'utf8');
    writeLock(budget, process.pid); // this test's own process: alive
    const waiting = start([...RELEASE, '--budget', budget]);
    await sleep(1500); // a release takes about half a second
    expect(waiting.child.exitCode, 'the release did not wait for the lock').toBeNull();
    expect(readFileSync(budget, 'utf8')).toBe(before);
    rmSync(`${budget}.lock`);
    const r = await waiting.done;
    expect(r.status, r.stderr).toBe(0);
    expect(show(budget)).toMatch(/^1 releases; spent epsilon 0\.4 of 1;/);
    expect(existsSync(`${budget}.lock`)).toBe(false);
  });

  it('takes over the lock of a process that is gone', () => {
    const budget = newBudget('1');
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    writeLock(budget, gone);
    const r = run(...RELEASE, '--budget', budget);
    expect(r.status, r.stderr).toBe(0);
    expect(show(budget)).toMatch(/^1 releases; spent epsilon 0\.4 of 1;/);
    expect(existsSync(`${budget}.lock`)).toBe(false);
  });

  it('records the charge before the data is read: a release killed right after writing it stays charged', async () => {
    const budget = newBudget('1');
    const output = join(dir, 'killed.csv');
    // Stands for a crash (power, SIGKILL) mid-release: the process dies the moment the budget
    // file is renamed into place, before it returns to the release.
    const crash = `data:text/javascript,${encodeURIComponent(
      `import fs from 'node:fs'; import { syncBuiltinESMExports } from 'node:module';
       const rename = fs.renameSync;
       fs.renameSync = (from, to) => { rename(from, to); if (String(to) === ${JSON.stringify(budget)}) process.kill(process.pid, 'SIGKILL'); };
       syncBuiltinESMExports();`,
    )}`;
    const killed = await start([...RELEASE, '--budget', budget, '--output', output], ['--import', crash]).done;
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(existsSync(output)).toBe(false);
    expect(show(budget)).toMatch(/^1 releases; spent epsilon 0\.4 of 1;/);
    // Its lock is left behind, by a process that is gone: the next release takes it over.
    expect(existsSync(`${budget}.lock`)).toBe(true);
    const next = run(...RELEASE, '--budget', budget);
    expect(next.status, next.stderr).toBe(0);
    expect(show(budget)).toMatch(/^2 releases; spent epsilon 0\.8 of 1;/);
  });

  it('writes nothing for a refused release, and says so', () => {
    const budget = newBudget('0.5');
    expect(run(...RELEASE, '--budget', budget).status).toBe(0);
    const before = readFileSync(budget, 'utf8');
    const mtime = statSync(budget).mtimeMs;
    const refused = run(...RELEASE, '--budget', budget);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^dpnoise: this release would exceed the budget: .*; nothing was spent/);
    expect(readFileSync(budget, 'utf8')).toBe(before);
    expect(statSync(budget).mtimeMs).toBe(mtime);
    expect(existsSync(`${budget}.lock`)).toBe(false);
  });
});
