// Benchmark group "Tables in memory": aggregate on 1e7 rows held in memory as JavaScript row
// objects against the same rows as an Apache Arrow table (read column by column, no row objects)
// and as an Arquero table. Each kind runs in a process of its own (this file, run with the kind as
// its argument), so that its peak resident memory is its own: the table and the aggregate's work.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fmt, times } from './format.mjs';

export const title = 'Tables in memory';

const ROWS = 1e7;
const RUNS = 3;
const KINDS = ['row objects', 'Arrow table', 'Arquero table'];
const here = fileURLToPath(import.meta.url);

/** One kind's run in this process: the table built, then RUNS timed aggregates; its figures as JSON on standard output. */
async function child(kind) {
  const [{ aggregate }, { createBudget }, arrow, aq] = await Promise.all([
    import('dpnoise/aggregate'),
    import('dpnoise'),
    import('apache-arrow'),
    import('arquero'),
  ]);
  const regions = ['north', 'south', 'east', 'west'];
  const region = (i) => regions[i % 4];
  const income = (i) => ((i * 7919) % 100_000) * 1.5;
  const age = (i) => 18 + ((i * 31) % 70);
  const before = process.memoryUsage();
  let table;
  if (kind === 'row objects') table = Array.from({ length: ROWS }, (_, i) => ({ region: region(i), income: income(i), age: age(i) }));
  else {
    const columns = {
      region: Array.from({ length: ROWS }, (_, i) => region(i)),
      income: Float64Array.from({ length: ROWS }, (_, i) => income(i)),
      age: Int32Array.from({ length: ROWS }, (_, i) => age(i)),
    };
    table = kind === 'Arrow table' ? arrow.tableFromArrays(columns) : aq.table(columns);
  }
  const after = process.memoryUsage();
  const held = (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 2 ** 20;
  const options = { table, groupBy: 'region', groups: regions, count: true, sum: { income: [0, 150_000] }, mean: { age: [0, 100] } };
  const seconds = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    await aggregate({ ...options, epsilon: 1, budget: createBudget({ epsilon: 10 }) });
    seconds.push((performance.now() - start) / 1e3);
  }
  seconds.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({ held, seconds: seconds[(RUNS - 1) / 2], peak: process.resourceUsage().maxRSS / 1024 }));
}

export async function run(ctx) {
  const results = KINDS.map((kind) => {
    ctx.log(`  ${kind}, ${ROWS.toExponential(0)} rows ...`);
    const out = spawnSync(process.execPath, [here, kind], { encoding: 'utf8', maxBuffer: 2 ** 20 });
    ctx.check(out.status === 0, `the ${kind} run failed: ${out.stderr}`);
    return { kind, ...JSON.parse(out.stdout) };
  });
  const objects = results[0];
  return [
    {
      heading: `aggregate on ${ROWS.toExponential(0).replace('+', '')} rows in memory: count, sum and mean over 4 declared groups, each row its own unit`,
      text:
        `Each kind in a process of its own; seconds are the median of ${RUNS} calls; "held" is the heap and array buffers the table takes once built; peak is the process's resident memory at its highest (the table, the aggregate's work and Node). ` +
        'An Arrow or Arquero table is read column by column (src/aggregate/columnar.ts); row objects by own property, row by row. Speed-up: how many times faster than row objects.',
      columns: ['table', 'seconds', 'speed-up', 'held MiB', 'peak MiB'],
      rows: results.map((r) => [r.kind, fmt(r.seconds), times(objects.seconds, r.seconds), fmt(r.held), fmt(r.peak)]),
    },
  ];
}

if (process.argv[1] === here && process.argv[2])
  child(process.argv[2]).catch((error) => {
    console.error(error);
    process.exit(1);
  });
