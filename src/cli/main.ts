#!/usr/bin/env node
// The dpnoise command line: calibrate noise for a sensitivity profile, or add calibrated noise
// to columns of a CSV or NDJSON file. Every argument is checked before the input is read; the
// input is read once, and the output appears only once every row has been checked and noised.
import { readFileSync, statSync, type Stats } from 'node:fs';
import { calibrateGridGaussian, gaussianDistance } from '../accounting/distance.js';
import { certifies, type Privacy } from '../accounting/privacy.js';
import { compose } from '../accounting/combinators.js';
import { calibrateGaussian, calibrateLaplace, type Calibration, largestPureBudget } from '../calibrate/allocations.js';
import { roundUp } from '../core/rounding.js';
import { clip } from '../aggregate/layout.js';
import { aggregateCommand, budgetCommand } from './aggregate.js';
import { choice, columnBounds, numbers, optionalNumber, options, required, type Values } from './args.js';
import { csv, decimal, ndjson, type Noise } from './formats.js';
import { PrivateOutput, readText, sameFile, UsageError } from './io.js';
import { progressBar } from './progress.js';
import { gaussianMechanism, laplaceMechanism } from '../mechanisms/independent.js';
import { createRng } from '../noise/random.js';
import { init } from '../wasm/embedded-init.js';

const HELP = {
  main: `Usage: dpnoise <command> [options]

Commands:
  aggregate   private counts, sums, means, quantiles and histograms of a file, per group
  budget      create a privacy budget file, or show what one has spent
  calibrate   noise scales for a sensitivity profile
  release     add calibrated noise to every row of columns of a CSV or NDJSON file

Run "dpnoise <command> --help" for a command's options, "dpnoise --version" for the version.`,
  calibrate: `Usage: dpnoise calibrate --noise gaussian|laplace --epsilon E [--delta D]
                         --sensitivity 1,2,3|file.csv [--allocation optimal|iid|spr]
                         [--weights equal|range|1,2,3] [--json]

Prints the noise scale of every coordinate and the figures (MSE, error, gain): a table, or JSON
with --json. Gaussian noise gives (epsilon, delta)-DP and needs --delta; Laplace gives epsilon-DP,
or with --delta (epsilon, delta)-DP by the accountant (smaller scales).
--sensitivity is a comma-separated list or a file of numbers (commas or newlines).

Weights. The optimal allocation minimises the sum over coordinates of weight x squared error.
--weights equal (the default here) suits coordinates in one unit (gradients, histogram bins, sums
of one quantity); --weights range weighs each error relative to its coordinate's sensitivity (for
coordinates in different units; with the optimal allocation this is the per-coordinate rule spr);
or give one positive weight per coordinate. Weights must be public, never computed from the data.`,
  release: `Usage: dpnoise release --input data.csv --columns age:0:100,income:0:500000
                       --rows-per-person K --epsilon E [--delta D]
                       [--noise gaussian|laplace] [--allocation optimal|iid|spr]
                       [--weights range|equal|1,2]
                       [--mode grid|continuous] [--grid G] [--format csv|ndjson]
                       [--output out.csv] [--seed S]

Adds noise to the named columns of a CSV file (a header row; quotes must balance and every row
must have the header's number of fields) or an NDJSON file (one JSON object per line: by the
extension .ndjson or .jsonl, or --format ndjson; only the noised numbers of a line change). The
input is read once, so it may be a pipe: --input /dev/stdin, or --input <(command).

Each column comes with its public bounds, COLUMN:LOW:HIGH (chosen without looking at the data):
values are clipped to them before the noise, so a value can move by at most HIGH - LOW.

Privacy. Neighbouring files differ in the rows of one person, replaced: one person's data may
change at most K rows (--rows-per-person K, required: 1 if each person has one row, 12 if a
person has up to 12 monthly rows), each by at most HIGH - LOW in each noised column. The
number of rows is public. Noise for one row would let a person with K rows lose up to K times
the budget, so each row gets the noise whose K-fold composition, by the accountant, meets the
budget: Gaussian noise for the distance mu / sqrt(K), where mu gives (epsilon, delta); Laplace
noise for epsilon / K (pure), or with --delta for the largest pure epsilon whose K rows are
(epsilon, delta)-DP. Each person then gets the privacy asked for over the whole file. Other
columns are copied unchanged and are NOT protected: a warning names them before anything is
written, as it does for bounds with LOW = HIGH (the column becomes that constant) and for --seed
(predictable noise, no privacy at all).

Weights. The scales are allocated across the columns (--allocation, optimal by default) to
minimise the sum over columns of weight x squared error. Columns usually have different units
(an age and an income), so by default each error is weighed relative to its column's range
(--weights range), which for the optimal allocation is the per-column rule spr: each column gets
noise in proportion to its range. --weights equal minimises the plain sum, right for
columns in one unit (it gives a column of small sensitivity far more noise than spr to save a
little on the others); or give one positive weight per column. Weights must be public, never
computed from the data.

This command noises every row, so each row keeps most of its noise. For counts, sums, means,
quantiles and histograms over the file, use "dpnoise aggregate" instead: far less noise for the
same privacy, with clipping and contribution bounding.

Noise: gaussian (the default, needs --delta) or laplace (pure epsilon-DP; with --delta,
(epsilon, delta)-DP). --mode grid (the default) rounds the values to a power-of-two grid (--grid
G, or a fine default) and adds exact discrete noise, which floating-point arithmetic cannot leak;
--mode continuous adds floating-point noise. --seed makes the noise reproducible (never for real releases).

Output: --output (default: standard output) appears only once every row has been read, checked
and noised; a bad row stops the run with its line number and nothing is written. The file is
created with mode 0600. A summary on standard error gives the scales, the grid and the privacy
each person gets. Exit status: 0 done, 2 bad arguments or input, 1 other failures.`,
};

/** A list given inline ("1,2,3", or one number) or as a file of numbers. */
function profileArgument(value: string, name: string): number[] {
  if (value.includes(',') || Number.isFinite(decimal(value))) return numbers(value, name);
  let text: string;
  try {
    text = readFileSync(value, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--${name} "${value}" is neither numbers separated by commas nor a file of numbers (${(error as { code?: string }).code ?? (error as Error).message}).`,
    );
  }
  return numbers(text, name);
}

const NOISE = ['gaussian', 'laplace'] as const;
type NoiseFamily = (typeof NOISE)[number];

/** Epsilon, and delta (required for Gaussian noise, optional for Laplace). */
interface Budget {
  epsilon: number;
  delta: number | undefined;
}

function budgetOf(noise: NoiseFamily, values: Values): Budget {
  const epsilon = optionalNumber(values, 'epsilon');
  if (epsilon === undefined) throw new UsageError('--epsilon is required.');
  const delta = optionalNumber(values, 'delta');
  if (noise === 'gaussian' && delta === undefined) throw new UsageError('--delta is required for Gaussian noise.');
  return { epsilon, delta };
}

const allocationOf = (values: Values) => (values.allocation === undefined ? {} : { allocation: values.allocation as never });

/** The --weights given, or `fallback` when the option is absent. */
const weightsGiven = (values: Values, fallback: 'equal' | 'range') => (values.weights === undefined ? fallback : String(values.weights).trim());

/**
 * The error weights of --weights: `equal` (none), `range` (1 / sensitivity^2: errors relative to
 * each coordinate's sensitivity; 1 where the sensitivity is 0, which gets no noise anyway), or one
 * positive number per coordinate.
 */
function weightsOf(values: Values, sensitivity: readonly number[], fallback: 'equal' | 'range'): { weights?: number[] } {
  const given = weightsGiven(values, fallback);
  if (given === 'equal') return {};
  if (given === 'range') return { weights: sensitivity.map((l) => (l > 0 ? 1 / (l * l) : 1)) };
  const weights = numbers(given, 'weights');
  if (weights.length !== sensitivity.length)
    throw new UsageError(`--weights needs one value per coordinate (${sensitivity.length}), or equal or range; got ${weights.length}.`);
  const bad = weights.find((w) => !(w > 0 && Number.isFinite(w)));
  if (bad !== undefined) throw new UsageError(`--weights must be positive finite numbers, or equal or range; got ${bad}.`);
  return { weights };
}

const fmt = (x: number) => (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e6 ? x.toPrecision(6) : x.toExponential(5));

function calibrateCommand(args: string[]): void {
  const values = options('calibrate', args, {
    noise: 'string',
    epsilon: 'string',
    delta: 'string',
    sensitivity: 'string',
    allocation: 'string',
    weights: 'string',
    json: 'boolean',
    help: 'boolean',
  });
  if (values.help) return void console.log(HELP.calibrate);
  const noise = choice(values, 'noise', NOISE);
  const sensitivity = profileArgument(required(values, 'sensitivity'), 'sensitivity');
  const { epsilon, delta } = budgetOf(noise, values);
  const c: Calibration & { mu?: number } =
    noise === 'gaussian'
      ? calibrateGaussian({ sensitivity, epsilon, delta: delta!, ...allocationOf(values), ...weightsOf(values, sensitivity, 'equal') })
      : calibrateLaplace({ sensitivity, epsilon, ...(delta !== undefined && { delta }), ...allocationOf(values), ...weightsOf(values, sensitivity, 'equal') });
  const scale = noise === 'gaussian' ? 'standard deviation' : 'Laplace b';
  const figures = {
    noise,
    epsilon,
    ...(delta !== undefined && { delta }),
    allocation: c.allocation,
    scale,
    ...(c.mu !== undefined && { mu: c.mu }),
    mse: c.mse,
    error: c.error,
    gain: c.gain,
  };
  if (values.json) {
    console.log(JSON.stringify({ ...figures, scales: Array.from(c.scales) }, null, 2));
    return;
  }
  console.log(
    Object.entries(figures)
      .map(([k, v]) => `${k.padEnd(11)}${typeof v === 'number' ? fmt(v) : v}`)
      .join('\n'),
  );
  console.log(`\ncoordinate  sensitivity  ${scale}`);
  sensitivity.forEach((s, i) => {
    console.log(`${String(i).padStart(10)}  ${fmt(s).padStart(11)}  ${fmt(c.scales[i]!)}`);
  });
}

const ROWS_PER_PERSON =
  "--rows-per-person K is required: the most rows one person's data can change (1 if each person has one row). " +
  "Every row is noised so that a person's K rows together meet the budget (by the accountant); " +
  'assuming one row when people have several would under-noise.';

function rowsPerPerson(values: Values): number {
  const v = values['rows-per-person'];
  if (v === undefined) throw new UsageError(ROWS_PER_PERSON);
  const k = /^\s*\d+\s*$/.test(String(v)) ? Number(v) : NaN;
  if (!(k >= 1 && Number.isSafeInteger(k))) throw new UsageError(`--rows-per-person must be an integer >= 1; got "${String(v)}".`);
  return k;
}

/**
 * One mechanism for every row, calibrated over a row's columns so that the k rows of a person
 * compose, by the accountant, to the budget asked for: Gaussian rows at mu / sqrt(k) (exact for
 * Gaussians, and for grid mode's noise through the Gaussians around it, checked on the k-fold
 * composition); Laplace rows at epsilon / k, or with delta at the largest pure epsilon whose
 * k-fold composition is (epsilon, delta)-DP.
 */
function rowMechanism(noise: NoiseFamily, { epsilon, delta }: Budget, values: Values, sensitivity: number[], k: number) {
  const mode = choice(values, 'mode', ['grid', 'continuous'] as const);
  const grid = optionalNumber(values, 'grid');
  const common = { sensitivity, mode, ...(grid !== undefined && { grid }), ...allocationOf(values), ...weightsOf(values, sensitivity, 'range') };
  const person = (privacy: Privacy) => compose([{ privacy, times: k }]);
  if (noise === 'laplace') {
    if (!(epsilon > 0)) throw new UsageError(`--epsilon must be > 0 for Laplace noise; got ${epsilon}.`);
    if (delta === undefined) return laplaceMechanism({ ...common, epsilon: epsilon / k });
    const row = (e: number) => laplaceMechanism({ ...common, epsilon: e });
    return row(largestPureBudget(epsilon / k, (e) => certifies(person(row(e).privacy), epsilon, delta)));
  }
  const target = { notion: 'approximate', epsilon, delta: delta! } as const;
  if (mode === 'continuous') return gaussianMechanism({ ...common, mu: gaussianDistance(target) / Math.sqrt(k) });
  const [, built] = calibrateGridGaussian(target, (mu) => {
    const m = gaussianMechanism({ ...common, mu: mu / Math.sqrt(k) });
    return { m, privacy: person(m.privacy) };
  });
  return built.m;
}

function inputStats(input: string): Stats {
  let stats: Stats;
  try {
    stats = statSync(input);
  } catch (error) {
    throw new UsageError(`cannot read --input ${input} (${(error as { code?: string }).code ?? (error as Error).message}).`);
  }
  if (stats.isDirectory()) throw new UsageError(`--input ${input} is a folder; give a CSV or NDJSON file (or a pipe).`);
  return stats;
}

const warn = (text: string) => process.stderr.write(`dpnoise: warning: ${text}\n`);

/** What release's --weights did, for its summary. */
function weighing(values: Values): string {
  const given = weightsGiven(values, 'range');
  if (given === 'range') return "errors weighed relative to each column's range (--weights range)";
  return given === 'equal' ? 'errors weighed equally (--weights equal)' : `errors weighed ${given} (--weights)`;
}

const list = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(', ');

async function releaseCommand(args: string[]): Promise<void> {
  const values = options('release', args, {
    input: 'string',
    output: 'string',
    format: 'string',
    columns: 'string',
    sensitivity: 'string', // refused, with what to give instead
    'rows-per-person': 'string',
    noise: 'string',
    epsilon: 'string',
    delta: 'string',
    allocation: 'string',
    weights: 'string',
    mode: 'string',
    grid: 'string',
    seed: 'string',
    help: 'boolean',
  });
  if (values.help) return void console.log(HELP.release);
  const input = required(values, 'input');
  const output = values.output === undefined ? undefined : required(values, 'output');
  const format = { csv, ndjson }[choice(values, 'format', /\.(ndjson|jsonl)$/i.test(input) ? (['ndjson', 'csv'] as const) : (['csv', 'ndjson'] as const))];
  if (values.sensitivity !== undefined) {
    throw new UsageError('release takes each column with its bounds, --columns age:0:100,income:0:500000, and clips to them; --sensitivity is for calibrate.');
  }
  const columns = required(values, 'columns')
    .split(',')
    .map((entry) => columnBounds(entry.trim(), 'columns'));
  const names = columns.map((c) => c.column);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (names.includes('')) throw new UsageError('--columns has an empty name; give COLUMN:LOW:HIGH separated by commas.');
  if (twice !== undefined) throw new UsageError(`--columns names "${twice}" twice; name each column once (got ${names.join(', ')}).`);
  const reversed = columns.find(({ bounds: [low, high] }) => !(low <= high));
  if (reversed) throw new UsageError(`--columns ${reversed.column}: LOW must be at most HIGH; got ${reversed.bounds.join(':')}.`);
  // Clipped values move by at most HIGH - LOW, rounded up (the subtraction may round down).
  const perColumn = columns.map(({ bounds: [low, high] }) => (high === low ? 0 : roundUp(high - low)));
  const clipped = (row: number[]) => row.map((x, j) => clip(x, ...columns[j]!.bounds));
  const k = rowsPerPerson(values);
  const noise = choice(values, 'noise', NOISE);
  const budget = budgetOf(noise, values);
  const m = rowMechanism(noise, budget, values, perColumn, k);
  const seeded = values.seed !== undefined;
  const sampling = seeded ? { rng: createRng({ seed: values.seed as string }) } : undefined;

  const stats = inputStats(input);
  // The output is replaced by a rename, which must neither destroy the input nor replace a
  // device, pipe or folder (--output /dev/stdout would replace the link itself).
  const existing = output === undefined ? undefined : statSync(output, { throwIfNoEntry: false });
  if (existing && sameFile(existing, stats))
    throw new UsageError(`--output ${output} is the input file; give a new file, or leave out --output for standard output.`);
  if (existing && !existing.isFile()) throw new UsageError(`--output ${output} is not a regular file; give a file, or leave out --output for standard output.`);
  // A progress bar on a terminal, for files over 16 MiB (a pipe's size is unknown).
  const size = stats.isFile() ? stats.size : 0;
  const progress = progressBar('releasing', size > 16 << 20);
  // Warnings before anything is written: what the release does not protect.
  if (seeded) warn('--seed makes the noise predictable: this output is NOT private (for tests and simulations only).');
  const exact = names.filter((_, k) => perColumn[k] === 0);
  if (exact.length > 0) {
    warn(`the bounds of ${list(exact)} have LOW = HIGH: every value becomes that constant, released without noise.`);
  }
  let copied: readonly string[] = [];
  const others = (fields: readonly string[]) => {
    copied = [...copied, ...fields];
    if (fields.length > 0)
      warn(`${fields.length === 1 ? 'the column' : 'the columns'} ${list(fields)} ${fields.length === 1 ? 'is' : 'are'} copied unchanged and NOT protected.`);
  };
  const out = await PrivateOutput.create(output);
  let rows = 0;
  try {
    const { text, bytesRead } = readText(input);
    const noised: Noise = (row, line) => {
      if (++rows % 65536 === 0) progress.update(bytesRead() / size);
      try {
        return m.release(clipped(row), sampling);
      } catch (error) {
        if (!(error instanceof RangeError || error instanceof TypeError)) throw error;
        throw new UsageError(`line ${line}: ${error.message.replace(/^dpnoise: /, '')}`);
      }
    };
    for await (const piece of format(text, names, noised, others)) await out.write(piece);
    if (rows === 0) throw new UsageError(`${input} has no data rows.`);
    await out.commit();
  } catch (error) {
    out.discard();
    throw error;
  }
  progress.done();
  const person = compose([{ privacy: m.privacy, times: k }]); // the k rows of one person
  const guarantee =
    budget.delta === undefined && person.kind === 'pure' ? `${fmt(person.epsilonPure)}-DP` : `(${fmt(person.epsilon(budget.delta!))}, ${values.delta})-DP`;
  const grid = m.grid === undefined ? 'continuous mode' : `grid mode, grid ${fmt(m.grid)} = 2^${Math.log2(m.grid)}`;
  const protectedColumns = `for ${names.length === 1 ? 'the column' : 'the columns'} ${list(names)}`;
  const privacy = seeded
    ? `No privacy: --seed made the noise predictable.`
    : `Each person (at most ${plural(k, 'row')}) gets ${guarantee} over the whole file ${protectedColumns}, against neighbouring files that differ in that person's rows (the number of rows is public).`;
  const unprotected = copied.length > 0 ? ` Not protected: ${list(copied)}, copied unchanged.` : '';
  process.stderr.write(
    `dpnoise: noised ${plural(rows, 'row')} x ${plural(names.length, 'column')}, each value clipped to its column's bounds (${noise}, ${grid}, ${weighing(values)}; ` +
      `scales per row ${Array.from(m.scales, fmt).join(', ')}). ${privacy}${unprotected} For counts, sums, means and quantiles, use dpnoise aggregate instead.\n`,
  );
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

// Bundled into dist/cli.js, one folder below package.json.
const version = () => (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    await init(); // the package's embedded build (its modules are imported one by one here, not through index.ts)
    if (command === 'calibrate') calibrateCommand(rest);
    else if (command === 'release') await releaseCommand(rest);
    else if (command === 'aggregate') await aggregateCommand(rest);
    else if (command === 'budget') await budgetCommand(rest);
    else if (command === '--help' || command === '-h' || command === 'help') console.log(HELP.main);
    else if (command === '--version' || command === '-v') console.log(version());
    else throw new UsageError(`${command === undefined ? 'no command given' : `unknown command "${command}"`}.\n\n${HELP.main}`);
    return 0;
  } catch (error) {
    const known = error instanceof UsageError || error instanceof TypeError || error instanceof RangeError || (error as { code?: string }).code === 'ENOENT';
    const message = (error as Error).message.replace(/^dpnoise: /, '');
    process.stderr.write(`dpnoise: ${message}\n`);
    return known ? 2 : 1;
  }
}

main(process.argv.slice(2)).then((code) => (process.exitCode = code));
