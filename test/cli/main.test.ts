// The command line, run as users (and attackers) run it: node dist/cli.js (the package's `bin`).
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { calibrateGaussian, calibrateLaplace, compose, gaussianPrivacy, laplacePrivacy } from '../../src/index.js';

const cli = new URL('../../dist/cli.js', import.meta.url).pathname;
const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const dir = mkdtempSync(join(tmpdir(), 'dpnoise-cli-'));
function file(name: string, text: string | Uint8Array): string {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}
function folder(name: string): string {
  mkdirSync(join(dir, name));
  return join(dir, name);
}
const GAUSSIAN = ['--epsilon', '1', '--delta', '1e-6', '--rows-per-person', '1'];
const csv = file('data.csv', 'name,age,income\n"Smith, J",34,50000\nLee,29,42000\nDoe,51,61000\n');
const incomes = ['50000', '42000', '61000'];

/** A running CLI (or a shell command running it), with what it printed and how it ended. */
function start(args: string[], { shell, env }: { shell?: string; env?: NodeJS.ProcessEnv } = {}) {
  const child =
    shell === undefined ? spawn(process.execPath, [cli, ...args], { env }) : spawn('sh', ['-c', shell, 'sh', process.execPath, cli, ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const ended = new Promise<{ status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000); // a guard against a hang, generous for loaded machines
  void ended.then(() => clearTimeout(timer));
  return { pid: child.pid!, kill: (signal: NodeJS.Signals) => child.kill(signal), ended, running: () => child.exitCode === null && child.signalCode === null };
}

const dpnoise = (...args: string[]) => start(args).ended;
/** The CLI reading a real pipe (node's own stdin pipes are sockets), as in `cat data | dpnoise ...`. */
const piped = (text: string, env: NodeJS.ProcessEnv, ...args: string[]) =>
  start(args, { shell: 'printf %s "$INPUT" | "$@"', env: { ...env, INPUT: text } }).ended;

/** True while process `pid` has `path` open. */
const holds = (pid: number, path: string) => {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
};

/**
 * Feeds a FIFO: each text goes to a new opening of it by the reader (after the previous reader
 * has closed it), for as long as the CLI runs. Returns how many openings there were.
 */
async function feed(fifo: string, texts: string[], cli: ReturnType<typeof start>): Promise<number> {
  let fed = 0;
  while (fed < texts.length && cli.running()) {
    let fd: number;
    try {
      fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK); // fails (ENXIO) until a reader opens it
    } catch {
      await sleep(5);
      continue;
    }
    writeSync(fd, texts[fed++]!);
    // The reader may still be inside open(): close only once it holds the FIFO (it cannot see
    // the end before), then wait for it to let go.
    while (!holds(cli.pid, fifo) && cli.running()) await sleep(5);
    closeSync(fd);
    while (holds(cli.pid, fifo)) await sleep(5);
  }
  return fed;
}

function fifo(name: string): string {
  execFileSync('mkfifo', [join(dir, name)]);
  return join(dir, name);
}
const leftovers = (where: string) => readdirSync(where).filter((f) => f.includes('dpnoise'));

// Every test spawns its own processes on its own files, so they run side by side.
describe.concurrent('dpnoise (no command, --version, --help)', () => {
  it('prints the help and exits 2 without a command; prints the version with --version', async () => {
    const [none, v] = await Promise.all([dpnoise(), dpnoise('--version')]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/^dpnoise: no command given\.\n\nUsage: dpnoise <command>/);
    expect(v.status).toBe(0);
    expect(v.stdout).toBe(`${version}\n`);
  });

  it('has --help for each command', async () => {
    const runs = await Promise.all(
      [['--help'], ['calibrate', '--help'], ['release', '--help'], ['aggregate', '--help'], ['budget', '--help']].map((args) => dpnoise(...args)),
    );
    for (const r of runs) {
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^Usage: dpnoise/);
    }
    expect(runs[2]!.stdout).toMatch(/--rows-per-person K[\s\S]*K-fold composition, by the accountant/);
    expect(runs[2]!.stdout).toMatch(/use "dpnoise aggregate" instead/);
    expect(runs[3]!.stdout).toMatch(/--privacy-unit COLUMN/);
  });
});

describe.concurrent('dpnoise calibrate', () => {
  it('prints the figures and scales as a table, or as JSON equal to the library', async () => {
    const [table, json] = await Promise.all([
      dpnoise('calibrate', '--noise', 'gaussian', '--epsilon', '0.5', '--delta', '1e-6', '--sensitivity', '1,2,3'),
      dpnoise(
        'calibrate',
        '--noise',
        'gaussian',
        '--epsilon',
        '0.5',
        '--delta',
        '1e-6',
        '--sensitivity',
        file('s.csv', '1\n2\n3\n'),
        '--allocation',
        'iid',
        '--json',
      ),
    ]);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/mu\s+0\.124106/);
    // It echoes the budget and says what a scale is, each figure once, in one number format.
    expect(table.stdout).toMatch(/^noise\s+gaussian\nepsilon\s+0\.500000\ndelta\s+1\.00000e-6\nallocation\s+optimal\nscale\s+standard deviation\n/);
    expect(table.stdout).toMatch(/coordinate\s+sensitivity\s+standard deviation/);
    const parsed = JSON.parse(json.stdout);
    expect([parsed.epsilon, parsed.delta, parsed.scale]).toEqual([0.5, 1e-6, 'standard deviation']);
    const expected = calibrateGaussian({ sensitivity: [1, 2, 3], epsilon: 0.5, delta: 1e-6, allocation: 'iid' });
    expect(parsed.scales).toEqual(Array.from(expected.scales));
    expect(parsed.mse).toBe(expected.mse);
  });

  it('explains bad input with exit code 2', async () => {
    const cases = [
      ['calibrate', '--noise', 'gaussian', '--epsilon', '1', '--sensitivity', '1'], // no delta
      ['calibrate', '--noise', 'laplace', '--epsilon', '0', '--delta', '1e-6', '--sensitivity', '1'],
      ['calibrate', '--noise', 'uniform', '--epsilon', '1', '--sensitivity', '1'],
      ['calibrate', '--epsilon', '-1', '--delta', '1e-6', '--sensitivity', '1'],
      ['calibrate', '--epsilon', '1', '--delta', '1e-6', '--sensitivity', '1,x'],
      ['calibrate', '--bogus'],
      ['frobnicate'],
    ];
    const runs = await Promise.all(cases.map((args) => dpnoise(...args)));
    runs.forEach((r, i) => {
      expect(r.status, cases[i]!.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^dpnoise: /);
    });
  });

  it('says which --sensitivity entry is not a number (not "no such file"), and lists the options', async () => {
    const [r, bogus] = await Promise.all([
      dpnoise('calibrate', '--noise', 'gaussian', '--epsilon', '1', '--delta', '1e-6', '--sensitivity', '1,x,3'),
      dpnoise('calibrate', '--bogus'),
    ]);
    expect(r.stderr).toBe('dpnoise: --sensitivity: entry 2 ("x") is not a number; give numbers separated by commas.\n');
    expect(bogus.stderr).toBe(
      `dpnoise: Unknown option '--bogus'. The options of "dpnoise calibrate" are --noise, --epsilon, --delta, --sensitivity, --allocation, --weights, --json, --help.\n`,
    );
  });
});

describe.concurrent('dpnoise release', () => {
  const noised = (text: string) =>
    text
      .trim()
      .split('\n')
      .slice(1)
      .flatMap((l) => l.split(',').slice(-2).map(Number));

  it('adds grid-mode noise to the named columns only, reproducibly under a seed', async () => {
    const out = join(dir, 'out.csv');
    const args = ['release', '--input', csv, '--columns', 'age:0:100,income:0:100000', ...GAUSSIAN, '--seed', 'cli'];
    const r = await dpnoise(...args, '--output', out);
    expect(r.status).toBe(0);
    const [again, coarse, continuous] = await Promise.all([dpnoise(...args), dpnoise(...args, '--grid', '0.5'), dpnoise(...args, '--mode', 'continuous')]);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('name,age,income');
    expect(lines[1]).toMatch(/^"Smith, J",-?[\d.e+-]+,-?[\d.e+-]+$/);
    expect(lines[2]!.split(',')[1]).not.toBe('29');
    const grid = 2 ** Number(/grid mode, grid \S+ = 2\^(-?\d+),/.exec(r.stderr)![1]);
    expect(noised(readFileSync(out, 'utf8')).every((x) => Number.isInteger(x / grid))).toBe(true);
    expect(again.stdout).toBe(readFileSync(out, 'utf8'));
    expect(statSync(out).mode & 0o777).toBe(0o600);
    // --grid is passed through; --mode continuous has no grid.
    expect(coarse.stderr).toMatch(/grid mode, grid 0\.500000 = 2\^-1,/);
    expect(noised(coarse.stdout).every((x) => Number.isInteger(2 * x))).toBe(true);
    expect(continuous.stderr).toMatch(/\(gaussian, continuous mode,/);
  });

  it('clips each value to its bounds before the noise, and calibrates to HIGH - LOW', async () => {
    const r = await dpnoise(
      'release',
      '--input',
      csv,
      '--columns',
      'age:40:50,income:0:1000',
      '--rows-per-person',
      '1',
      '--epsilon',
      '1000',
      '--delta',
      '1e-6',
      '--seed',
      'clip',
    );
    expect(r.status, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',').slice(-2).map(Number));
    // Ages 34, 29, 51 become 40, 40, 50 and incomes 1000, under noise of sd about 0.3 and 30 here.
    rows.forEach(([age, income], i) => {
      expect(Math.abs(age! - [40, 40, 50][i]!)).toBeLessThan(3);
      expect(Math.abs(income! - 1000)).toBeLessThan(300);
    });
    expect(r.stderr).toMatch(/each value clipped to its column's bounds/);
    const scales = /scales per row ([^)]*)\)/.exec(r.stderr)![1]!.split(', ').map(Number);
    expect(scales[1]! / scales[0]!).toBeCloseTo(100, 0); // ranges 10 and 1000, spr (each rounded to its grid)
  });

  it('says what it protects and warns, before writing anything, about what it does not: copied columns, a zero sensitivity, --seed', async () => {
    const out = join(dir, 'honest.csv');
    const [plain, zero, seeded, ndjsonRun, directory] = await Promise.all([
      dpnoise('release', '--input', csv, '--columns', 'income:0:100000', ...GAUSSIAN, '--output', out),
      dpnoise('release', '--input', csv, '--columns', 'age:0:0,income:0:100000', ...GAUSSIAN),
      dpnoise('release', '--input', csv, '--columns', 'age:0:100,income:0:100000', ...GAUSSIAN, '--seed', 's'),
      dpnoise('release', '--input', file('people.ndjson', '{"name":"Ann","salary":1234}\n'), '--columns', 'salary:0:10000', ...GAUSSIAN),
      dpnoise('release', '--input', dir, '--columns', 'a:0:10', ...GAUSSIAN),
    ]);
    expect(plain.status, plain.stderr).toBe(0);
    const [warning, summary] = plain.stderr.trim().split('\n');
    expect(warning).toBe('dpnoise: warning: the columns "name", "age" are copied unchanged and NOT protected.');
    expect(summary).toMatch(
      /Each person \(at most 1 row\) gets \(1\.00000, 1e-6\)-DP over the whole file for the column "income", against neighbouring files that differ in that person's rows \(the number of rows is public\)\. Not protected: "name", "age", copied unchanged\. For counts, sums, means and quantiles, use dpnoise aggregate instead/,
    );
    expect(zero.stderr).toMatch(/^dpnoise: warning: the bounds of "age" have LOW = HIGH: every value becomes that constant, released without noise/);
    expect(seeded.stderr).toMatch(/^dpnoise: warning: --seed makes the noise predictable: this output is NOT private/);
    expect(seeded.stderr).toMatch(/No privacy: --seed made the noise predictable\./);
    expect(seeded.stderr).not.toMatch(/-DP/);
    expect(ndjsonRun.stderr).toMatch(/^dpnoise: warning: the column "name" is copied unchanged and NOT protected\./);
    expect(directory.status).toBe(2);
    expect(directory.stderr).toMatch(/^dpnoise: --input .* is a folder; give a CSV or NDJSON file \(or a pipe\)\.\n$/);
  });

  it("weighs each column's error relative to its sensitivity by default (columns in different units), or as --weights says", async () => {
    const base = ['release', '--input', csv, '--columns', 'age:0:100,income:0:100000', ...GAUSSIAN, '--mode', 'continuous'];
    const [byDefault, equal, given, wrong, negative] = await Promise.all([
      dpnoise(...base),
      dpnoise(...base, '--weights', 'equal'),
      dpnoise(...base, '--weights', '1,4'),
      dpnoise(...base, '--weights', '1,2,3'),
      dpnoise(...base, '--weights', '1,-1'),
    ]);
    const scales = (r: { stderr: string }) => /scales per row ([^)]*)\)/.exec(r.stderr)![1]!.split(', ').map(Number);
    const sensitivity = [100, 100000];
    // range: the optimal allocation for errors relative to each column's sensitivity is spr.
    expect(byDefault.stderr).toMatch(/errors weighed relative to each column's range \(--weights range\)/);
    const spr = calibrateGaussian({ sensitivity, epsilon: 1, delta: 1e-6, allocation: 'spr' }).scales;
    scales(byDefault).forEach((s, i) => {
      expect(s / spr[i]!).toBeCloseTo(1, 5); // printed to 6 digits
    });
    // equal: the plain sum of squared errors, which gives age 22 times spr's noise to save income 29%.
    const plain = calibrateGaussian({ sensitivity, epsilon: 1, delta: 1e-6 }).scales;
    scales(equal).forEach((s, i) => {
      expect(s / plain[i]!).toBeCloseTo(1, 5);
    });
    expect(scales(equal)[0]! / scales(byDefault)[0]!).toBeGreaterThan(20);
    const weighted = calibrateGaussian({ sensitivity, epsilon: 1, delta: 1e-6, weights: [1, 4] }).scales;
    scales(given).forEach((s, i) => {
      expect(s / weighted[i]!).toBeCloseTo(1, 5);
    });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/--weights needs one value per coordinate \(2\), or equal or range; got 3\./);
    expect(negative.stderr).toMatch(/--weights must be positive finite numbers, or equal or range; got -1\./);
  });

  it('calibrate: --weights range is spr for the optimal allocation; equal is the default there', async () => {
    const base = ['calibrate', '--noise', 'laplace', '--epsilon', '1', '--sensitivity', '1,10,100', '--json'];
    const [range, spr, plain] = await Promise.all([dpnoise(...base, '--weights', 'range'), dpnoise(...base, '--allocation', 'spr'), dpnoise(...base)]);
    const scalesOf = (r: { stdout: string }) => JSON.parse(r.stdout).scales as number[];
    scalesOf(range).forEach((s, i) => {
      expect(s / scalesOf(spr)[i]!).toBeCloseTo(1, 12);
    });
    expect(scalesOf(plain)).toEqual(Array.from(calibrateLaplace({ sensitivity: [1, 10, 100], epsilon: 1 }).scales));
  });

  it('needs --rows-per-person, and calibrates each row so that, by the accountant, each person gets the budget', async () => {
    const base = ['release', '--input', csv, '--columns', 'age:0:100,income:0:100000', '--epsilon', '1'];
    const [missing, fraction, laplace4, gaussian4, grid1, grid4, approximate50] = await Promise.all([
      dpnoise(...base, '--delta', '1e-6'),
      dpnoise(...base, '--delta', '1e-6', '--rows-per-person', '1.5'),
      dpnoise(...base, '--rows-per-person', '4', '--noise', 'laplace', '--mode', 'continuous'),
      dpnoise(...base, '--rows-per-person', '4', '--delta', '1e-6', '--mode', 'continuous'),
      dpnoise(...base, '--rows-per-person', '1', '--delta', '1e-6'),
      dpnoise(...base, '--rows-per-person', '4', '--delta', '1e-6'),
      dpnoise(...base, '--rows-per-person', '50', '--noise', 'laplace', '--delta', '1e-6', '--mode', 'continuous'),
    ]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^dpnoise: --rows-per-person K is required: .*under-noise/);
    expect(fraction.stderr).toMatch(/--rows-per-person must be an integer >= 1; got "1\.5"/);
    const scales = (r: { status: number | null; stderr: string }) => {
      expect(r.status, r.stderr).toBe(0);
      return /scales per row ([^)]*)\)/.exec(r.stderr)![1]!.split(', ').map(Number);
    };
    // Continuous noise, accounted from the printed scales: 4 rows compose to the budget exactly
    // (epsilon / 4 per row for Laplace, the distance mu / 2 for Gaussian noise). Not machine-epsilon
    // tolerances: the scales are printed to 6 significant digits (5e-6 relative each), hence 4 decimals.
    const sensitivity = [100, 100000];
    expect(laplace4.stderr).toMatch(/Each person \(at most 4 rows\) gets 1\.00000-DP over the whole file/);
    expect(compose(Array(4).fill(laplacePrivacy({ scales: scales(laplace4), sensitivity }))).epsilon(0)).toBeCloseTo(1, 4);
    expect(gaussian4.stderr).toMatch(/Each person \(at most 4 rows\) gets \(1\.00000, 1e-6\)-DP over the whole file/);
    expect(compose(Array(4).fill(gaussianPrivacy({ scales: scales(gaussian4), sensitivity }))).epsilon(1e-6)).toBeCloseTo(1, 4);
    // Grid mode: the distance mu / 2 per row (checked on the 4 rows composed), so twice the
    // standard deviations of one row per person (to 2 decimals: the sensitivities are rounded to
    // each run's grid, and the scales printed).
    expect(grid4.stderr).toMatch(/Each person \(at most 4 rows\) gets \((1\.00000|0\.99999\d), 1e-6\)-DP/);
    scales(grid4).forEach((s, i) => {
      expect(s / scales(grid1)[i]!).toBeCloseTo(2, 2);
    });
    // Laplace with --delta: each row gets the largest pure epsilon whose 50 rows are (1, 1e-6)-DP by
    // the accountant; 100 Laplace coordinates rarely all reach their largest loss, so the rows'
    // pure epsilon totals 1.75 (measured; 1 with epsilon / 50 per row).
    expect(approximate50.stderr).toMatch(/Each person \(at most 50 rows\) gets \(0\.99\d+, 1e-6\)-DP/);
    const rows = compose(Array(50).fill(laplacePrivacy({ scales: scales(approximate50), sensitivity })));
    expect(rows.epsilon(1e-6)).toBeLessThanOrEqual(1 + 1e-4); // the scales are printed to 6 digits
    expect(rows.epsilon(0)).toBeGreaterThan(1.5);
  });

  it('keeps NDJSON lines byte for byte but the noised numbers (big integers, 1e400, key order, spacing)', async () => {
    const line = '{"z":1, "id":12345678901234567891,"a" : 5 ,"big":1e400,"o":{"a":"}"},"b":"x"}';
    const input = file('d.ndjson', `${line}\r\n\n{"b":"y","a":2}\n`);
    const out = join(dir, 'out.ndjson');
    const r = await dpnoise(
      'release',
      '--input',
      input,
      '--columns',
      'a:0:10',
      '--epsilon',
      '1',
      '--noise',
      'laplace',
      '--rows-per-person',
      '1',
      '--seed',
      '7', // seeded: the CSPRNG's noise is exactly 0 (leaving "a" : 5) once in 2560 runs
      '--output',
      out,
    );
    expect(r.status, r.stderr).toBe(0);
    const [first, second, rest] = readFileSync(out, 'utf8').split('\n');
    expect(first).toMatch(/^\{"z":1, "id":12345678901234567891,"a" : -?[\d.e+-]+ ,"big":1e400,"o":\{"a":"\}"\},"b":"x"\}\r$/);
    expect(first).not.toMatch(/"a" : 5 ,/);
    expect(second).toMatch(/^\{"b":"y","a":-?[\d.e+-]+\}$/);
    expect(rest).toBe('');
    expect(Number.isFinite(JSON.parse(second!).a)).toBe(true);
  });

  it('rejects an NDJSON noised key that is missing, duplicated or not a finite JSON number, with its line', async () => {
    const cases: Array<[string, RegExp]> = [
      ['{"a":1}\n{"a":1,"a":2}\n', /^dpnoise: line 2: key "a" appears 2 times; it must appear once\.\n$/],
      ['{"a":1}\n{"\\u0061":1,"a":2}\n', /line 2: key "a" appears 2 times/],
      ['{"a":1}\n{"b":1}\n', /line 2: key "a" is missing/],
      ['{"a":"34"}\n', /^dpnoise: line 1, key "a": the value is not a finite number\.\n$/],
      ['{"a":1e400}\n', /line 1, key "a": the value is not a finite number/],
      ['{"a":1}\n{"a":1\n', /^dpnoise: line 2 is not JSON\.\n$/],
    ];
    const runs = await Promise.all(cases.map(([text], i) => dpnoise('release', '--input', file(`bad-${i}.jsonl`, text), '--columns', 'a:0:10', ...GAUSSIAN)));
    runs.forEach((r, i) => {
      expect(r.status, cases[i]![0]).toBe(2);
      expect(r.stderr, cases[i]![0]).toMatch(cases[i]![1]);
    });
  });

  it('never quotes a cell of the input in an error: not a noised value, nor another field, nor a line that is not JSON or CSV', async () => {
    const cases: Array<[string, string, string, readonly string[]]> = [
      ['cell.csv', 'name,income\nLee,42000\nSmith,John Smith\n', 'line 3, column "income"', ['John']],
      ['number.csv', 'name,income\nLee,42000\nSmith,0x7A69\n', 'line 3, column "income"', ['0x7A69']],
      ['quote.csv', 'name,income\nLee,42000\nJohn "Smith",61000\n', 'line 3', ['John', 'Smith']],
      ['closing.csv', 'name,income\nLee,42000\n"John"Smith,61000\n', 'line 3', ['John', 'Smith']],
      ['cell.ndjson', '{"name":"Lee","income":42000}\n{"name":"x","income":"John Smith"}\n', 'line 2, key "income"', ['John']],
      ['line.ndjson', '{"name":"Lee","income":42000}\n{"name": John Smith, "income": 61000}\n', 'line 2', ['John']],
    ];
    const runs = await Promise.all(
      cases.map(([name, text]) => dpnoise('release', '--input', file(`private-${name}`, text), '--columns', 'income:0:100000', ...GAUSSIAN)),
    );
    runs.forEach((r, i) => {
      const [name, , where, secrets] = cases[i]!;
      expect(r.status, name).toBe(2);
      expect(r.stderr, name).toContain(where);
      for (const secret of secrets) expect(r.stderr, name).not.toContain(secret);
    });
  });

  it('never names the fields of the first line: a file without a header row would show its first row of data', async () => {
    const input = file('headless.csv', 'SECRET-4242,alice,5\n123-45-6789,bob,7\n');
    const r = await dpnoise('release', '--input', input, '--columns', 'income:0:1000', ...GAUSSIAN);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/column "income" is not in the header/);
    for (const secret of ['SECRET', '4242', 'alice']) expect(r.stderr).not.toContain(secret);
  });

  it('warns of an NDJSON key copied unchanged whichever line it first appears on, and lists it as not protected', async () => {
    const input = file('late-key.ndjson', '{"name":"a","income":5}\n{"name":"b","income":4242,"ssn":"123-45-6789"}\n');
    const r = await dpnoise('release', '--input', input, '--columns', 'income:0:10000', ...GAUSSIAN);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: the column "name" is copied unchanged and NOT protected\./);
    expect(r.stderr).toMatch(/warning: the column "ssn" is copied unchanged and NOT protected\./);
    expect(r.stderr).toMatch(/Not protected: "name", "ssn", copied unchanged\./);
  });

  it('parses CSV strictly: quoted commas, quotes and newlines stay in their field, a BOM is dropped', async () => {
    const input = file('quoted.csv', '\uFEFFid,note,b\r\n1,"x\ny, ""z""",2\r\n3,plain,4\r\n');
    const r = await dpnoise('release', '--input', input, '--columns', 'id:0:10,b:0:10', ...GAUSSIAN);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/noised 2 rows x 2 columns/);
    const rows = parse(r.stdout) as string[][];
    expect(rows.map((row) => row.length)).toEqual([3, 3, 3]);
    expect(rows[0]).toEqual(['id', 'note', 'b']);
    expect(rows.slice(1).map((row) => row[1])).toEqual(['x\ny, "z"', 'plain']);
    expect(
      rows
        .slice(1)
        .flatMap((row) => [row[0], row[2]])
        .every((x) => Number.isFinite(Number(x))),
    ).toBe(true);
  });

  it('rejects unbalanced quotes and ragged rows with the line number, writing nothing', async () => {
    const where = folder('ragged');
    const cases: Array<[string, RegExp]> = [
      ['a,b,c\n1,5" tall,2\n', /^dpnoise: the input is not valid CSV: Invalid Opening Quote at line 2\.\n$/],
      ['a,b,c\n1,2,3\n4,"5,6\n', /not valid CSV: Quote Not Closed at line 3/],
      ['a,b,c\n1,2,3\n4,5,6,7\n', /not valid CSV: Invalid Record Length at line 3/],
      ['a,b,c\n1,2\n', /Invalid Record Length at line 2/],
    ];
    const runs = await Promise.all(
      cases.map(([text], i) =>
        dpnoise('release', '--input', file(`ragged-${i}.csv`, text), '--columns', 'a:0:10', ...GAUSSIAN, '--output', join(where, `${i}.csv`)),
      ),
    );
    runs.forEach((r, i) => {
      expect(r.status, cases[i]![0]).toBe(2);
      expect(r.stderr, cases[i]![0]).toMatch(cases[i]![1]);
    });
    expect(readdirSync(where)).toEqual([]);
  });

  it('never writes a partly noised file, and leaves no temporary file behind', async () => {
    const where = folder('failures');
    const out = join(where, 'never.csv');
    const notFolder = file('not-a-folder', '');
    const [bad, nope, count, missing, latin1, folderOutput, io] = await Promise.all([
      dpnoise('release', '--input', file('bad.csv', 'a,b\n1,2\n3,oops\n5,6\n'), '--columns', 'a:0:10,b:0:10', ...GAUSSIAN, '--output', out),
      dpnoise('release', '--input', csv, '--columns', 'age:0:100,nope:0:1', ...GAUSSIAN, '--output', out),
      dpnoise('release', '--input', csv, '--columns', 'age', ...GAUSSIAN),
      dpnoise('release', '--input', join(dir, 'missing.csv'), '--columns', 'a:0:10', ...GAUSSIAN),
      dpnoise('release', '--input', file('latin1.csv', Buffer.from('a,b\n1,caf\u00e9\n', 'latin1')), '--columns', 'a:0:10', ...GAUSSIAN, '--output', out),
      dpnoise('release', '--input', csv, '--columns', 'age:0:100', ...GAUSSIAN, '--output', where),
      // An output that cannot be created (ENOTDIR) is not a usage error: exit code 1.
      dpnoise('release', '--input', csv, '--columns', 'age:0:100', ...GAUSSIAN, '--output', join(notFolder, 'out.csv')),
    ]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/line 3, column "b": the value is not a finite number/);
    expect(nope.stderr).toMatch(/column "nope" is not in the header \(3 fields, not named here/);
    expect(count.stderr).toMatch(/--columns must be COLUMN:LOW:HIGH; got "age"/);
    expect(missing.status).toBe(2);
    expect(latin1.stderr).toMatch(/latin1\.csv is not UTF-8 text/); // no byte is silently replaced
    expect(folderOutput.stderr).toMatch(/--output .*failures is not a regular file/);
    expect(io.status).toBe(1);
    expect(io.stderr).toMatch(/^dpnoise: ENOTDIR/);
    expect(readdirSync(where)).toEqual([]);
  });

  it('rejects the same column twice, bad bounds, --sensitivity, unknown options and --output equal to --input', async () => {
    const release = (...args: string[]) => dpnoise('release', '--input', csv, ...GAUSSIAN, ...args);
    const original = readFileSync(csv, 'utf8');
    const link = join(dir, 'link-to-data.csv');
    symlinkSync(csv, link);
    const [reversed, bare, twice, entry, hex, bogus, ...same] = await Promise.all([
      release('--columns', 'age:100:0'),
      release('--columns', 'age', '--sensitivity', '1'),
      release('--columns', 'age:0:100,age:0:100'),
      release('--columns', 'age:0:100,income:0:x'),
      release('--columns', 'age:0x10:100'),
      release('--columns', 'age:0:100', '--bogus', '1'),
      ...[csv, join(dir, '.', 'data.csv'), link].map((output) => release('--columns', 'age:0:100', '--output', output)),
    ]);
    expect(reversed.stderr).toMatch(/--columns age: LOW must be at most HIGH; got 100:0/);
    expect(bare.stderr).toMatch(/release takes each column with its bounds, --columns age:0:100,income:0:500000, and clips to them/);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toBe('dpnoise: --columns names "age" twice; name each column once (got age, age).\n');
    expect(entry.stderr).toMatch(/^dpnoise: --columns "income:0:x": the bounds must be numbers/);
    expect(hex.stderr).toMatch(/--columns "age:0x10:100": the bounds must be numbers/);
    expect(bogus.status).toBe(2);
    expect(bogus.stderr).toMatch(
      /^dpnoise: Unknown option '--bogus'\. The options of "dpnoise release" are --input, --output, .*--rows-per-person.*--mode, --grid.*\.\n$/,
    );
    for (const r of same) {
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/--output .* is the input file/);
    }
    expect(readFileSync(csv, 'utf8')).toBe(original);
  });

  it('reads /dev/stdin (a pipe) once, and writes standard output through a private file it removes', async () => {
    const temporary = folder('tmp-stdout');
    const env = { ...process.env, TMPDIR: temporary };
    const [r, bad] = await Promise.all([
      piped(readFileSync(csv, 'utf8'), env, 'release', '--input', '/dev/stdin', '--columns', 'income:0:100000', ...GAUSSIAN),
      piped('a\n1\nx\n', env, 'release', '--input', '/dev/stdin', '--columns', 'a:0:10', ...GAUSSIAN),
    ]);
    expect(r.status, r.stderr).toBe(0);
    const rows = parse(r.stdout) as string[][];
    expect(rows.map((row) => row[0])).toEqual(['name', 'Smith, J', 'Lee', 'Doe']);
    expect(
      rows
        .slice(1)
        .map((row) => row[2])
        .filter((x) => incomes.includes(x!)),
    ).toEqual([]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/line 3, column "a": the value is not a finite number/);
    expect(bad.stdout).toBe('');
    expect(readdirSync(temporary)).toEqual([]);
  });

  it('reads a FIFO once: a second reading with reordered columns cannot slip the income through raw', async () => {
    const input = fifo('reorder.csv');
    const out = join(dir, 'reorder-out.csv');
    const run = start(['release', '--input', input, '--columns', 'income:0:100000', ...GAUSSIAN, '--output', out]);
    const reordered = 'name,income,age\n"Smith, J",50000,34\nLee,42000,29\nDoe,61000,51\n';
    const openings = await feed(input, [readFileSync(csv, 'utf8'), reordered], run);
    const r = await run.ended;
    expect(r.status, r.stderr).toBe(0);
    const rows = parse(readFileSync(out, 'utf8')) as string[][];
    expect(rows.flat().filter((x) => incomes.includes(x))).toEqual([]);
    expect(rows[0]).toEqual(['name', 'age', 'income']);
    expect(rows.slice(1).map((row) => row[1])).toEqual(['34', '29', '51']);
    expect(openings).toBe(1);
  });

  it('never follows a link planted at a predictable temporary name, and leaves no temporary file', async () => {
    const where = folder('planted');
    const victim = file('victim.txt', 'precious\n');
    const input = fifo('planted.csv');
    const out = join(where, 'out.csv');
    const run = start(['release', '--input', input, '--columns', 'age:0:100', ...GAUSSIAN, '--output', out]);
    const link = `${out}.dpnoise-${run.pid}.tmp`; // the old name: the output's, and the process id
    symlinkSync(victim, link);
    await feed(input, [readFileSync(csv, 'utf8'), readFileSync(csv, 'utf8')], run);
    const r = await run.ended;
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(out, 'utf8').split('\n')[0]).toBe('name,age,income');
    expect(readdirSync(where).sort()).toEqual(['out.csv', `out.csv.dpnoise-${run.pid}.tmp`]);
  });

  it('removes its temporary file (random name, mode 0600) on SIGTERM', async () => {
    const where = folder('interrupted');
    const input = fifo('never-fed.csv');
    const run = start(['release', '--input', input, '--columns', 'age:0:100', ...GAUSSIAN, '--output', join(where, 'out.csv')]);
    for (let i = 0; i < 400 && leftovers(where).length === 0; i++) await sleep(10);
    expect(leftovers(where)).toHaveLength(1);
    const [temporary] = leftovers(where);
    expect(temporary).toMatch(/^\.out\.csv\.dpnoise-[0-9a-f]{32}\.tmp$/);
    expect(statSync(join(where, temporary!)).mode & 0o777).toBe(0o600);
    run.kill('SIGTERM');
    const r = await run.ended;
    expect(r.signal).toBe('SIGTERM');
    expect(readdirSync(where)).toEqual([]);
  });
});
