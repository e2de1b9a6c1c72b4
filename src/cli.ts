#!/usr/bin/env node
// The dpnoise command line: calibrate noise for a sensitivity profile, or add calibrated noise
// to columns of a CSV or NDJSON file. Every argument and every value to be noised is checked
// before anything is written; the output file appears only once it is complete.
import { createReadStream, createWriteStream, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { calibrateGaussian, calibrateLaplace, type Calibration } from './calibrate.js';
import { addGaussianNoise, addLaplaceNoise } from './sample.js';

const HELP = {
  main: `Usage: dpnoise <command> [options]

Commands:
  calibrate   noise scales for a sensitivity profile
  release     add calibrated noise to columns of a CSV or NDJSON file

Run "dpnoise <command> --help" for a command's options.`,
  calibrate: `Usage: dpnoise calibrate --mechanism gaussian|laplace --epsilon E [--delta D]
                         --sensitivity 1,2,3|file.csv [--allocation optimal|iid|spr] [--json]

Prints the noise scale of every coordinate and the figures (MSE, error, gain): a table, or JSON
with --json. Gaussian noise gives (epsilon, delta)-DP and needs --delta; Laplace gives epsilon-DP.
--sensitivity is a comma-separated list or a file of numbers (commas or newlines).`,
  release: `Usage: dpnoise release --input data.csv --columns a,b --sensitivity 1,0.5 --epsilon E
                       [--delta D] [--mechanism gaussian|laplace] [--allocation optimal|iid|spr]
                       [--output out.csv] [--seed S]

Adds noise to the named columns of a CSV (header row, no line breaks inside fields) or NDJSON
(one JSON object per line, by extension .ndjson or .jsonl) file. Each person's data may change
one row only (a row per person, or rows for disjoint groups of people), by at most the column's
--sensitivity in each noised column: every row gets noise calibrated to that, with the scales
allocated across the columns, so the file as a whole is private. Other columns pass through.
Writes to --output (default: standard output), only once every value has been read and checked.
--seed makes the noise reproducible (never for real releases).
Mechanism: gaussian (default, needs --delta) or laplace.`,
};

class UsageError extends Error {}

function numbers(text: string, name: string): number[] {
  const parts = text.split(/[\s,]+/).filter((s) => s.length > 0);
  const values = parts.map(Number);
  const bad = values.findIndex((x, i) => Number.isNaN(x) || parts[i]!.trim() === '');
  if (parts.length === 0 || bad >= 0) throw new UsageError(`--${name} must be numbers separated by commas; got "${parts[bad] ?? text}".`);
  return values;
}

/** A list given inline ("1,2,3") or as a file of numbers. */
function profileArgument(value: string, name: string): number[] {
  return /^[\s\d.,eE+-]+$/.test(value) && !/\.(csv|txt)$/i.test(value) ? numbers(value, name) : numbers(readFileSync(value, 'utf8'), name);
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.length === 0) throw new UsageError(`--${name} is required.`);
  return v;
}

function optionalNumber(values: Record<string, unknown>, name: string): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const x = Number(v);
  if (typeof v !== 'string' || v.trim() === '' || Number.isNaN(x)) throw new UsageError(`--${name} must be a number; got "${String(v)}".`);
  return x;
}

function mechanismOf(values: Record<string, unknown>): 'gaussian' | 'laplace' {
  const m = (values.mechanism as string | undefined) ?? 'gaussian';
  if (m !== 'gaussian' && m !== 'laplace') throw new UsageError(`--mechanism must be gaussian or laplace; got "${m}".`);
  return m;
}

function calibrateFor(mechanism: 'gaussian' | 'laplace', values: Record<string, unknown>, profile: object): Calibration & { mu?: number } {
  const epsilon = optionalNumber(values, 'epsilon');
  if (epsilon === undefined) throw new UsageError('--epsilon is required.');
  const allocation = values.allocation === undefined ? {} : { allocation: values.allocation as never };
  if (mechanism === 'gaussian') {
    const delta = optionalNumber(values, 'delta');
    if (delta === undefined) throw new UsageError('--delta is required for Gaussian noise.');
    return calibrateGaussian({ ...profile, epsilon, delta, ...allocation });
  }
  if (values.delta !== undefined) throw new UsageError('--delta applies to Gaussian noise only; Laplace noise is pure epsilon-DP.');
  return calibrateLaplace({ ...profile, epsilon, ...allocation } as never);
}

const fmt = (x: number) => (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e6 ? x.toPrecision(6) : x.toExponential(5));

function calibrateCommand(args: string[]): void {
  const { values } = parseArgs({ args, strict: true, options: {
    mechanism: { type: 'string' }, epsilon: { type: 'string' }, delta: { type: 'string' }, sensitivity: { type: 'string' },
    allocation: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' },
  } });
  if (values.help) return void console.log(HELP.calibrate);
  const mechanism = mechanismOf(values);
  const sensitivity = profileArgument(required(values, 'sensitivity'), 'sensitivity');
  const c = calibrateFor(mechanism, values, { sensitivity });
  const figures = { mechanism, allocation: c.allocation, ...(c.mu !== undefined && { mu: c.mu }), mse: c.mse, error: c.error, gain: c.gain };
  if (values.json) {
    console.log(JSON.stringify({ ...figures, scales: Array.from(c.scales) }, null, 2));
    return;
  }
  console.log(Object.entries(figures).map(([k, v]) => `${k.padEnd(11)}${typeof v === 'number' ? fmt(v) : v}`).join('\n'));
  console.log(`\ncoordinate  sensitivity  scale`);
  sensitivity.forEach((s, i) => console.log(`${String(i).padStart(10)}  ${fmt(s).padStart(11)}  ${fmt(c.scales[i]!)}`));
}

/** Splits one CSV line into fields (quotes may hold commas and doubled quotes, not line breaks). */
function splitCsv(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') field += ch, i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') fields.push(field), field = '';
    else field += ch;
  }
  fields.push(field);
  return fields;
}

const quoteCsv = (field: string) => (/[",\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field);

interface Format {
  /** Reads the header (CSV) and returns the columns' positions. */
  columns(first: string, names: string[]): number[] | string[];
  values(line: string, where: number[] | string[], lineNumber: number): number[];
  write(line: string, where: number[] | string[], noisy: Float64Array, offset: number): string;
}

function cellValue(raw: unknown, column: string, lineNumber: number): number {
  const x = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(x)) throw new UsageError(`line ${lineNumber}, column "${column}": ${JSON.stringify(raw)} is not a finite number.`);
  return x;
}

function csvFormat(names: string[]): Format {
  return {
    columns(header) {
      const fields = splitCsv(header);
      return names.map((name) => {
        const at = fields.indexOf(name);
        if (at < 0) throw new UsageError(`column "${name}" is not in the header: ${fields.join(', ')}.`);
        return at;
      });
    },
    values: (line, where, n) => {
      const fields = splitCsv(line);
      return (where as number[]).map((at, k) => cellValue(fields[at], names[k]!, n));
    },
    write: (line, where, noisy, offset) => {
      const fields = splitCsv(line);
      (where as number[]).forEach((at, k) => (fields[at] = String(noisy[offset + k])));
      return fields.map(quoteCsv).join(',');
    },
  };
}

const ndjsonFormat = (names: string[]): Format => ({
  columns: () => names,
  values: (line, _where, n) => {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line);
    } catch {
      throw new UsageError(`line ${n} is not JSON.`);
    }
    return names.map((name) => cellValue(record[name], name, n));
  },
  write: (line, _where, noisy, offset) => {
    const record = JSON.parse(line) as Record<string, unknown>;
    names.forEach((name, k) => (record[name] = noisy[offset + k]));
    return JSON.stringify(record);
  },
});

async function* lines(path: string): AsyncGenerator<string> {
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    if (line.trim() !== '') yield line;
  }
}

const ROWS_PER_BATCH = 8192;

async function releaseCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, strict: true, options: {
    input: { type: 'string' }, output: { type: 'string' }, columns: { type: 'string' }, sensitivity: { type: 'string' },
    mechanism: { type: 'string' }, epsilon: { type: 'string' }, delta: { type: 'string' }, allocation: { type: 'string' },
    seed: { type: 'string' }, help: { type: 'boolean' },
  } });
  if (values.help) return void console.log(HELP.release);
  const input = required(values, 'input');
  const names = required(values, 'columns').split(',').map((s) => s.trim());
  const perColumn = numbers(required(values, 'sensitivity'), 'sensitivity');
  if (perColumn.length !== names.length) throw new UsageError(`--sensitivity needs one value per column (${names.length}); got ${perColumn.length}.`);
  const mechanism = mechanismOf(values);
  const ndjson = /\.(ndjson|jsonl)$/i.test(input);
  const format = ndjson ? ndjsonFormat(names) : csvFormat(names);
  const size = statSync(input).size;
  // A progress bar on a terminal, for files over 16 MiB (each of the two passes reads the file).
  const progress = size > 16 << 20 && process.stderr.isTTY === true;
  const report = (pass: string, done: number) => {
    if (!progress) return;
    const filled = Math.round((30 * Math.min(done, size)) / size);
    process.stderr.write(`\r${pass.padEnd(9)} [${'#'.repeat(filled)}${'.'.repeat(30 - filled)}] ${Math.round((100 * Math.min(done, size)) / size)}%`);
  };

  // Pass 1: check every value and count the rows.
  let rows = 0;
  let where: number[] | string[] | undefined;
  let bytes = 0;
  let lineNumber = 0;
  for await (const line of lines(input)) {
    lineNumber++;
    bytes += line.length + 1;
    if (where === undefined) {
      where = format.columns(line, names);
      if (!ndjson) continue;
    }
    format.values(line, where, lineNumber);
    rows++;
    if (rows % 65536 === 0) report('checking', bytes);
  }
  if (rows === 0 || where === undefined) throw new UsageError(`${input} has no data rows.`);

  // Calibrate over the columns of one row: a person changes one row only, so the rows are
  // disjoint releases (parallel composition) and each needs the privacy of one row.
  const c = calibrateFor(mechanism, values, { sensitivity: perColumn });
  const { createRng } = await import('./rng.js');
  const rng = values.seed === undefined ? undefined : createRng({ seed: values.seed });
  const add = mechanism === 'gaussian' ? addGaussianNoise : addLaplaceNoise;

  // Pass 2: add the noise, batch by batch, into a temporary file renamed at the end.
  const output = values.output;
  const temporary = output ? `${output}.dpnoise-${process.pid}.tmp` : undefined;
  const out = temporary ? createWriteStream(temporary) : process.stdout;
  let failure: Error | undefined;
  out.on('error', (error: Error) => (failure = error));
  const write = (text: string) => new Promise<void>((resolve, reject) => {
    if (failure) reject(failure);
    else if (out.write(text)) resolve();
    else out.once('drain', resolve);
  });
  const batchScales = new Float64Array(ROWS_PER_BATCH * names.length);
  for (let i = 0; i < batchScales.length; i++) batchScales[i] = c.scales[i % names.length]!;
  try {
    let pending: string[] = [];
    let header = !ndjson;
    bytes = 0;
    const flush = async () => {
      if (pending.length === 0) return;
      const cells = new Float64Array(pending.length * names.length);
      pending.forEach((line, r) => cells.set(format.values(line, where!, 0), r * names.length));
      add(cells, batchScales.subarray(0, cells.length), rng ? { rng } : undefined);
      await write(pending.map((line, r) => format.write(line, where!, cells, r * names.length)).join('\n') + '\n');
      pending = [];
      report('releasing', bytes);
    };
    for await (const line of lines(input)) {
      bytes += line.length + 1;
      if (header) {
        await write(line + '\n');
        header = false;
        continue;
      }
      pending.push(line);
      if (pending.length === ROWS_PER_BATCH) await flush();
    }
    await flush();
    if (temporary) {
      await new Promise<void>((resolve, reject) => (out as ReturnType<typeof createWriteStream>).end((error?: Error | null) => (error ? reject(error) : resolve())));
      renameSync(temporary, output!);
    }
  } catch (error) {
    if (temporary) rmSync(temporary, { force: true });
    throw error;
  }
  if (progress) process.stderr.write('\n');
  process.stderr.write(`dpnoise: noised ${rows} rows x ${names.length} columns (${mechanism}, scales ${Array.from(c.scales, fmt).join(', ')}).\n`);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'calibrate') calibrateCommand(rest);
    else if (command === 'release') await releaseCommand(rest);
    else if (command === undefined || command === '--help' || command === '-h' || command === 'help') console.log(HELP.main);
    else throw new UsageError(`unknown command "${command}".\n\n${HELP.main}`);
    return 0;
  } catch (error) {
    const known = error instanceof UsageError || error instanceof TypeError || error instanceof RangeError
      || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') || (error as { code?: string }).code === 'ENOENT';
    const message = (error as Error).message.replace(/^dpnoise: /, '');
    process.stderr.write(`dpnoise: ${message}\n`);
    return known ? 2 : 1;
  }
}

main(process.argv.slice(2)).then((code) => (process.exitCode = code));
