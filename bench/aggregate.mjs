// Benchmark group "Aggregates": dpnoise/aggregate end to end over a 1e7-row CSV (DuckDB clips,
// bounds contributions and sums; dpnoise adds grid noise to the 20 totals), against DuckDB alone
// running the same aggregation as one query, in the same process, runs interleaved. A second case
// gives both a DuckDB table already loaded, since parsing the CSV is a large part of the first.
// Aim: aggregate within 1.3x of DuckDB alone. Then the scale the aggregate issue asks for: 1e8
// rows generated in DuckDB (no file), and the 1e7-row CSV loaded into a private PostgreSQL server
// (scripts/postgres-server.mjs), each against the engine alone, with the process's peak memory.
//
//   node bench/aggregate.mjs    runs this group alone and prints its markdown section
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, readFileSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { createBudget, gaussianMechanism } from 'dpnoise';
import { aggregate, planAggregate } from 'dpnoise/aggregate';
import { postgresBinaries, startPostgres } from '../scripts/postgres-server.mjs';
import { fmt, NONE, times } from './format.mjs';

export const title = 'Aggregates';

const ROWS = 1e7;
const UNITS = 5e6;
const GROUPS = ['r0', 'r1', 'r2', 'r3', 'r4'];
const MAX_ROWS = 1;
const RUNS = 5;
/** The scale cases take tens of seconds per run: fewer runs. */
export const SCALE_RUNS = 3;
export const BIG_ROWS = 1e8;
const AIM = 1.3;
export const PRIVACY = { epsilon: 1, delta: 1e-6 };
const AGE = [18, 90];
const HOURS = [0, 60];
const INCOME = [0, 500000];
export const SPEC = {
  privacyUnit: 'person_id',
  groupBy: 'region',
  groups: GROUPS,
  maxRows: MAX_ROWS,
  count: true,
  sum: { age: AGE, hours: HOURS },
  mean: { income: INCOME },
  invalid: 'drop',
  noise: 'gaussian', // named, so that the noise share below times the noise the release draws
};

// Every field has a fixed width (person_id 1000000 + unit, age 10-99, income 100000-999999, hours
// 10.0-99.9), so the file's size says whether a cached copy is complete.
const HEADER = 'person_id,region,age,income,hours\n';
const ROW_BYTES = 26;
const CSV = join(os.tmpdir(), 'dpnoise-bench', `people-v1-${ROWS}.csv`);
const CSV_BYTES = HEADER.length + ROWS * ROW_BYTES;

/** mulberry32: a small seeded generator, so every machine benchmarks the same file. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The CSV under os.tmpdir(), written once (to a .part file renamed when complete) and reused. */
function ensureCsv(log) {
  try {
    if (statSync(CSV).size === CSV_BYTES) return false;
  } catch {
    /* not there yet */
  }
  // No progress-bar library among the devDependencies: one percentage line on stderr.
  log(`  writing ${CSV} (${(CSV_BYTES / 2 ** 20).toFixed(0)} MiB, once) ...`);
  mkdirSync(join(os.tmpdir(), 'dpnoise-bench'), { recursive: true });
  const random = prng(20261125);
  const fd = openSync(`${CSV}.part`, 'w');
  writeSync(fd, HEADER);
  const CHUNK = 1e5;
  for (let start = 0; start < ROWS; start += CHUNK) {
    let text = '';
    for (let i = start; i < start + CHUNK; i++) {
      const unit = 1000000 + Math.floor(random() * UNITS);
      const region = Math.floor(random() * GROUPS.length);
      const age = 10 + Math.floor(random() * 90);
      const income = 100000 + Math.floor(900000 * random() ** 3); // skewed: most below the 500000 bound
      const hours = (100 + Math.floor(random() * 900)) / 10;
      text += `${unit},r${region},${age},${income},${hours.toFixed(1)}\n`;
    }
    writeSync(fd, text);
    process.stderr.write(`\r  ${(((start + CHUNK) / ROWS) * 100).toFixed(0)}%`);
  }
  process.stderr.write('\n');
  closeSync(fd);
  renameSync(`${CSV}.part`, CSV);
  if (statSync(CSV).size !== CSV_BYTES) throw new Error(`bench: ${CSV} has not the expected ${CSV_BYTES} bytes`);
  return true;
}

/**
 * The engine alone: the same clipping, contribution bounding and grouped count and clipped sums,
 * one query. The rows kept per unit and region: `window`, row_number over a random order (DuckDB's
 * with QUALIFY, PostgreSQL's, which has none, in a subquery); `argMin`, DuckDB's arg_min of each
 * column at the row of least random key (maxRows 1 only), an aggregation DuckDB spills to disk.
 */
export function baselineSql(from, { engine = 'duckdb', keep = 'window' } = {}) {
  const clip = (column, [lower, upper]) => `LEAST(GREATEST(${column}, ${lower}), ${upper})`;
  const filter = `region IN (${GROUPS.map((g) => `'${g}'`).join(', ')}) AND person_id IS NOT NULL AND age IS NOT NULL AND hours IS NOT NULL AND income IS NOT NULL`;
  const pick = `row_number() OVER (PARTITION BY person_id, region ORDER BY random())`;
  const kept =
    keep === 'argMin'
      ? `(SELECT person_id, region, ${['age', 'hours', 'income'].map((c) => `arg_min(${c}, r) AS ${c}`).join(', ')} FROM (SELECT *, random() AS r FROM ${from} WHERE ${filter}) x GROUP BY person_id, region)`
      : engine === 'postgres'
        ? `(SELECT * FROM (SELECT *, ${pick} AS pick FROM ${from} WHERE ${filter}) p WHERE pick <= ${MAX_ROWS}) k`
        : `(SELECT * FROM ${from} WHERE ${filter} QUALIFY ${pick} <= ${MAX_ROWS})`;
  return `SELECT region, count(*) AS n, sum(${clip('age', AGE)}) AS age, sum(${clip('hours', HOURS)}) AS hours, sum(${clip('income', INCOME)}) AS income
    FROM ${kept} GROUP BY region`;
}

/** The first region whose released count lies 10 noise sd or more from the engine's exact count `n`, or undefined. */
export const farCount = (release, exact) =>
  exact.find((row) => {
    const count = release.rows[GROUPS.indexOf(row.region)].count;
    return !(Math.abs(count.value - Number(row.n)) < 10 * count.sd);
  })?.region;

/** The statement that generates the BIG_ROWS-row table in DuckDB, from range() and hash(). */
export const bigTableSql = (name) =>
  `CREATE TABLE ${name} AS SELECT 1000000 + (hash(i) % ${UNITS * 10}) AS person_id, 'r' || (i % 5) AS region, 10 + hash(i + 1) % 90 AS age, ` +
  `100000 + hash(i + 2) % 900000 AS income, (100 + hash(i + 3) % 900) / 10 AS hours FROM range(${BIG_ROWS}) t(i)`;

/** The process's peak resident memory so far, in MiB (Node, DuckDB's threads and pg's client alike). */
export const peakMiB = () => process.resourceUsage().maxRSS / 1024;

/** The peak resident memory of a PostgreSQL backend process (its /proc status, readable by any user on Linux), in MiB, or undefined. */
function backendPeakMiB(pid) {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** A connection that records how long each statement dpnoise sends takes, by what it does. */
function timedConnection(connection, stages) {
  const timed = (method) => async (sql) => {
    const start = performance.now();
    const result = await connection[method](sql);
    const created = /^CREATE TEMPORARY TABLE "dpnoise_[0-9a-f]+_(\w+)"/.exec(sql);
    const stage = created ? `table ${created[1]}` : / LIMIT 0$/.test(sql) ? 'columns' : /GROUP BY/.test(sql) ? 'GROUP BY' : sql.split(' ')[0];
    stages[stage] ??= [];
    stages[stage].push((performance.now() - start) / 1e3);
    return result;
  };
  return { run: timed('run'), runAndReadAll: timed('runAndReadAll') };
}

export const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];

/**
 * Seconds per call of async fns: RUNS rounds of one call each, the order rotated every round.
 * Besides wall time, the process's CPU time (DuckDB's threads included), which other load on the
 * machine disturbs far less.
 */
export async function timeEach(fns, runs = RUNS) {
  const samples = fns.map(() => ({ wall: [], cpu: [] }));
  for (let round = 0; round < runs; round++) {
    for (let k = 0; k < fns.length; k++) {
      const j = (round + k) % fns.length;
      const start = performance.now();
      const cpu = process.cpuUsage();
      await fns[j]();
      const used = process.cpuUsage(cpu);
      samples[j].wall.push((performance.now() - start) / 1e3);
      samples[j].cpu.push((used.user + used.system) / 1e6);
    }
  }
  return samples.map(({ wall, cpu }) => ({ median: median(wall), min: Math.min(...wall), max: Math.max(...wall), cpu: median(cpu) }));
}

export async function run(ctx) {
  const generated = ensureCsv(ctx.log);
  const load = os.loadavg()[0];
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  let release; // the last aggregate's result, checked against DuckDB's exact counts
  let exact;
  // A new budget per release: a budget composes all it has recorded, which would grow over the runs.
  const releaseFrom = async (table) => {
    release = await aggregate({ ...PRIVACY, budget: createBudget({ epsilon: 100, delta: 1e-6 }), ...SPEC, table });
  };
  const baseline = (from) => async () => {
    exact = (await connection.runAndReadAll(baselineSql(from))).getRowObjectsJS();
  };
  const check = (label) => {
    const region = farCount(release, exact);
    ctx.check(region === undefined, `${label}: aggregate's count for ${region} is not near the engine's`);
  };

  // Where a file aggregate's time goes: its statements on a view of the CSV, timed one by one. This
  // run is also the warm-up (DuckDB's memory, the WebAssembly module, the page cache).
  ctx.log('  warm-up on a view of the CSV ...');
  const fileStages = {};
  await connection.run(`CREATE VIEW people_csv AS SELECT * FROM '${CSV}'`);
  let start = performance.now();
  await releaseFrom({ connection: timedConnection(connection, fileStages), table: 'people_csv' });
  const fileViewSeconds = (performance.now() - start) / 1e3;

  ctx.log('  from the CSV file ...');
  const fromFile = await timeEach([() => releaseFrom(CSV), baseline(`'${CSV}'`)]);
  check('CSV');

  ctx.log('  from a DuckDB table ...');
  start = performance.now();
  await connection.run(`CREATE TABLE people AS SELECT * FROM '${CSV}'`);
  const loadSeconds = (performance.now() - start) / 1e3;
  const stages = {};
  const timed = timedConnection(connection, stages);
  const fromTable = await timeEach([() => releaseFrom({ connection: timed, table: 'people' }), baseline('people')]);
  check('table');
  const peakTable = peakMiB();

  ctx.log(`  ${BIG_ROWS.toExponential(0)} rows generated in DuckDB ...`);
  start = performance.now();
  await connection.run(bigTableSql('big'));
  const bigLoadSeconds = (performance.now() - start) / 1e3;
  const fromBig = await timeEach([() => releaseFrom({ connection, table: 'big' }), baseline('big')], SCALE_RUNS);
  check('1e8 rows');
  const peakBig = peakMiB();
  await connection.run('DROP TABLE big');

  connection.closeSync();
  instance.closeSync();

  // Bounded memory: the same rows in a database file under a memory limit, in a process of its own.
  const child = spawnSync(process.execPath, [fileURLToPath(new URL('./aggregate-bounded.mjs', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`bench: bench/aggregate-bounded.mjs failed (status ${child.status})`);
  const bounded = JSON.parse(child.stdout.trim().split('\n').at(-1));
  ctx.check(bounded.close, `${BIG_ROWS} rows under ${bounded.limit}: aggregate's counts are not near DuckDB's`);

  // PostgreSQL: the same CSV copied into a private server; aggregate runs its SQL there.
  const postgres = await postgresCase(
    ctx,
    check,
    (table) => releaseFrom(table),
    (rows) => {
      exact = rows;
    },
  );

  // The noise: the plan (calibration of the mechanism, public inputs only) and the grid release of
  // the 4 blocks x 5 groups, by a mechanism like the plan's (sensitivity sqrt(maxGroups) x maxRows x a row's bound).
  const plan = ctx.measure(() => planAggregate({ ...PRIVACY, ...SPEC }), { seconds: 0.3, batches: 5 }).perUnit;
  const reach = MAX_ROWS * Math.sqrt(GROUPS.length);
  const sensitivity = [1, AGE[1], HOURS[1], (INCOME[1] - INCOME[0]) / 2].map((bound) => reach * bound);
  const mechanism = gaussianMechanism({ groups: { sizes: [5, 5, 5, 5], sensitivity }, allocation: 'spr', ...PRIVACY });
  const totals = Float64Array.from({ length: 20 }, (_, i) => 1e6 + i);
  const noise = ctx.measure(() => mechanism.release(totals), { seconds: 0.3, batches: 5 }).perUnit;

  const row = (label, a, b) => [
    label,
    fmt(a.median),
    fmt(b.median),
    times(a.median, b.median),
    a.median / b.median <= AIM ? 'yes' : '**no**',
    fmt(a.cpu),
    fmt(b.cpu),
    times(a.cpu, b.cpu),
    `${((noise / a.median) * 100).toPrecision(2)}%`,
  ];
  const spread = (label, r) => `${label} ${fmt(r.min)} to ${fmt(r.max)} s`;
  const stageText = (s) =>
    Object.entries(s)
      .map(([name, seconds]) => `${name} ${fmt(median(seconds))} s`)
      .join(', ');
  return [
    {
      heading: `aggregate against DuckDB alone: seconds per release, ${ROWS.toExponential(0).replace('+', '')} rows`,
      text:
        `A CSV of ${ROWS.toExponential(0).replace('+', '')} rows (person_id over ${UNITS.toExponential(0).replace('+', '')} units, region in 5 groups, age, income, hours; ${fmt(CSV_BYTES / 2 ** 20)} MiB, ` +
        `written once by a seeded generator under os.tmpdir()). *aggregate*: \`aggregate({ epsilon: 1, delta: 1e-6, budget, ...spec })\` with privacyUnit person_id, maxRows ${MAX_ROWS}, ` +
        `count, sum of age in [${AGE}] and hours in [${HOURS}], mean of income in [${INCOME}], invalid: 'drop', noise: 'gaussian' (in DuckDB: one query that filters, clips, ` +
        'bounds contributions and groups, in one pass; then grid Gaussian noise on the totals). *DuckDB alone*: one query with the same filter, clipping, ' +
        '`QUALIFY row_number() OVER (PARTITION BY person_id, region ORDER BY random()) <= maxRows` and count and clipped DOUBLE sums per region, on a connection of the same process. ' +
        `*CSV file*: both read the file afresh on every run (page cache warm); *DuckDB table*: both read a table \`people\` loaded from it beforehand. ` +
        `Medians of ${RUNS} runs each, the two interleaved (order alternating), after one warm-up aggregate on a view of the CSV (its statements timed one by one, below). ` +
        "*noise share*: the release of the 20 totals by a `gaussianMechanism` with the plan's groups, allocation and sensitivities (timed alone with bench/timing.mjs), as a share of aggregate's median. " +
        '*CPU s*: the median CPU time of the process (all threads) per run, steadier than wall time when other processes share the cores.',
      columns: [
        'source',
        'aggregate s',
        'DuckDB alone s',
        'aggregate ÷ DuckDB',
        `within ${AIM}×`,
        'aggregate CPU s',
        'DuckDB CPU s',
        'CPU ratio',
        'noise share',
      ],
      rows: [
        row('CSV file', fromFile[0], fromFile[1]),
        row('DuckDB table', fromTable[0], fromTable[1]),
        row(`DuckDB table of ${BIG_ROWS.toExponential(0).replace('+', '')} rows (${SCALE_RUNS} runs)`, fromBig[0], fromBig[1]),
        row(
          `DuckDB file of ${BIG_ROWS.toExponential(0).replace('+', '')} rows, memory_limit ${bounded.limit} (${SCALE_RUNS} runs; DuckDB alone by arg_min)`,
          bounded.timed[0],
          bounded.timed[1],
        ),
        postgres.timed
          ? row(`PostgreSQL table (${SCALE_RUNS} runs; "DuckDB alone" is PostgreSQL alone)`, postgres.timed[0], postgres.timed[1])
          : [`PostgreSQL: ${postgres.reason}`, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE],
      ],
      notes: [
        `The noise's release takes ${fmt(noise * 1e6)} µs; the plan before it (\`planAggregate\`: the spec, the layout and calibrating the mechanism) ${fmt(plan * 1e6)} µs, ` +
          `${fmt((plan / fromTable[0].median) * 100)}% of a release from the table.`,
        `Load average (1 min) ${fmt(load)} at the start and ${fmt(os.loadavg()[0])} at the end, on ${os.cpus().length} logical cores. ` +
          `Run ranges: ${spread('CSV aggregate', fromFile[0])}, ${spread('CSV DuckDB', fromFile[1])}, ${spread('table aggregate', fromTable[0])}, ${spread('table DuckDB', fromTable[1])}.`,
        `aggregate's statements (median over the table runs): ${stageText(stages)}. ` +
          `On the view of the CSV (the warm-up, ${fmt(fileViewSeconds)} s in all): ${stageText(fileStages)}. Loading the table from the CSV took ${fmt(loadSeconds)} s.`,
        `The ${BIG_ROWS.toExponential(0).replace('+', '')}-row table was generated in DuckDB from range() and hash() in ${fmt(bigLoadSeconds)} s (no file). ` +
          `Peak resident memory of the process: ${fmt(peakTable)} MiB after the 1e7-row runs, ${fmt(peakBig)} MiB after the ${BIG_ROWS.toExponential(0).replace('+', '')}-row ones (which hold that table in DuckDB's memory)` +
          (postgres.timed ? `, ${fmt(postgres.peak)} MiB after the PostgreSQL ones.` : '.'),
        `Bounded memory (bench/aggregate-bounded.mjs, a process of its own): the same ${BIG_ROWS.toExponential(0).replace('+', '')} rows in a DuckDB database file ` +
          `(written once${bounded.createSeconds > 0 ? `, in this run, in ${fmt(bounded.createSeconds)} s` : ''}), opened with memory_limit ${bounded.limit}: peak resident memory ${fmt(bounded.peak)} MiB ` +
          `over its aggregate and DuckDB-alone runs (CPU s counts that process only). DuckDB alone with the window instead (QUALIFY row_number() ...), once: ` +
          (bounded.window.error ? `failed, "${bounded.window.error}".` : `${fmt(bounded.window.seconds)} s.`),
        ...(postgres.timed
          ? [
              `PostgreSQL ${postgres.version}: a private server (scripts/postgres-server.mjs, fsync off, default work_mem) on a Unix socket, the CSV loaded by COPY in ${fmt(postgres.loadSeconds)} s. ` +
                "aggregate's CPU s counts only this process (the work is the server's): compare the wall times. " +
                (postgres.serverPeak === undefined
                  ? "The server backend's peak memory could not be read."
                  : `Peak resident memory of the server backend that ran every PostgreSQL query (load, aggregate and PostgreSQL alone; shared buffers it touched included): ${fmt(postgres.serverPeak)} MiB.`),
            ]
          : []),
        ...(generated ? ['The CSV was written in this run (not timed).'] : []),
      ],
    },
  ];
}

/**
 * The PostgreSQL case: the CSV copied into a private server, then aggregate on a pg client and
 * PostgreSQL alone, interleaved; or why not (no server binaries here).
 */
async function postgresCase(ctx, check, releaseFrom, setExact) {
  const bin = postgresBinaries();
  if (!bin) return { reason: 'no PostgreSQL under /usr/lib/postgresql (Debian package postgresql)' };
  ctx.log('  from a PostgreSQL table ...');
  const server = startPostgres(bin);
  const client = new pg.Client({ host: server.host, port: server.port, user: server.user, database: 'postgres' });
  try {
    await client.connect();
    const version = (await client.query('SHOW server_version')).rows[0].server_version;
    const start = performance.now();
    await client.query('CREATE TABLE people (person_id bigint, region text, age int, income int, hours float8)');
    await client.query(`COPY people FROM '${CSV}' (FORMAT csv, HEADER true)`);
    await client.query('ANALYZE people');
    const loadSeconds = (performance.now() - start) / 1e3;
    const timed = await timeEach(
      [
        () => releaseFrom({ connection: client, table: 'people' }),
        async () => setExact((await client.query(baselineSql('people', { engine: 'postgres' }))).rows),
      ],
      SCALE_RUNS,
    );
    check('PostgreSQL');
    return { timed, version, loadSeconds, peak: peakMiB(), serverPeak: backendPeakMiB((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid) };
  } finally {
    await client.end();
    server.stop();
  }
}

// Alone: a ctx with what this group uses, and its section as RESULTS.md has it.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { measure } = await import('./timing.mjs');
  const log = (message) => process.stderr.write(`${message}\n`);
  const ctx = {
    measure,
    log,
    check(condition, message) {
      if (!condition) throw new Error(`bench sanity check failed: ${message}`);
    },
  };
  const started = performance.now();
  const tables = await run(ctx);
  const cells = (r) => `| ${r.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`;
  const lines = [
    `## ${title}`,
    '',
    `Run alone with \`node bench/aggregate.mjs\` (${((performance.now() - started) / 1e3).toFixed(0)} s) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ` +
      `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} logical cores, Node ${process.version}. The other sections come from the run described under Machine.`,
    '',
  ];
  for (const t of tables) {
    lines.push(
      `### ${t.heading}`,
      '',
      t.text,
      '',
      cells(t.columns),
      `|${t.columns.map((_, j) => (j === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
      ...t.rows.map(cells),
      '',
    );
    lines.push(...t.notes.map((n) => `- ${n}`), '');
  }
  console.log(lines.join('\n'));
}
