// The bounded-memory case of bench/aggregate.mjs, in a process of its own so that the peak
// resident memory it reports is this case's alone: BIG_ROWS rows in a DuckDB database file
// (generated once under os.tmpdir()), opened with a memory limit; dpnoise/aggregate against DuckDB
// alone bounding contributions the same way (arg_min, one query), interleaved; then, once, DuckDB
// alone with the textbook window (QUALIFY row_number() ...), which holds the rows in memory.
// Prints one JSON line for bench/aggregate.mjs.
//
//   node bench/aggregate-bounded.mjs
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';
import { createBudget } from 'dpnoise';
import { aggregate } from 'dpnoise/aggregate';
import { BIG_ROWS, baselineSql, bigTableSql, farCount, PRIVACY, peakMiB, SCALE_RUNS, SPEC, timeEach } from './aggregate.mjs';

export const MEMORY_LIMIT = '2GB';

const dir = join(os.tmpdir(), 'dpnoise-bench');
const file = join(dir, `big-v1-${BIG_ROWS}.duckdb`);
const log = (message) => process.stderr.write(`${message}\n`);

/** The database file, written once (under a temporary name, renamed when complete) and reused. */
async function ensureDatabase() {
  if (existsSync(file)) return 0;
  log(`  writing ${file} (${BIG_ROWS.toExponential(0)} rows, once) ...`);
  mkdirSync(dir, { recursive: true });
  const part = `${file}.part`;
  rmSync(part, { force: true });
  const start = performance.now();
  const instance = await DuckDBInstance.create(part);
  const connection = await instance.connect();
  await connection.run(bigTableSql('big'));
  await connection.run('CHECKPOINT');
  connection.closeSync();
  instance.closeSync();
  renameSync(part, file);
  return (performance.now() - start) / 1e3;
}

const createSeconds = await ensureDatabase();
const instance = await DuckDBInstance.create(file, { memory_limit: MEMORY_LIMIT, temp_directory: join(dir, 'spill') });
const connection = await instance.connect();
let release;
let exact;
log(`  ${BIG_ROWS.toExponential(0)} rows in a DuckDB file, memory_limit ${MEMORY_LIMIT} ...`);
const timed = await timeEach(
  [
    async () => {
      release = await aggregate({ ...PRIVACY, budget: createBudget({ epsilon: 100, delta: 1e-6 }), ...SPEC, table: { connection, table: 'big' } });
    },
    async () => {
      exact = (await connection.runAndReadAll(baselineSql('big', { keep: 'argMin' }))).getRowObjectsJS();
    },
  ],
  SCALE_RUNS,
);
const close = farCount(release, exact) === undefined;
const peak = peakMiB();
let window;
const start = performance.now();
try {
  await connection.run(baselineSql('big'));
  window = { seconds: (performance.now() - start) / 1e3 };
} catch (error) {
  window = { error: String(error.message).split('\n')[0] };
}
connection.closeSync();
instance.closeSync();
console.log(JSON.stringify({ timed, close, window, peak, limit: MEMORY_LIMIT, createSeconds }));
