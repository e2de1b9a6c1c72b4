// A child process of the "Aggregates" group (bench/aggregate.mjs), so that its peak memory is its
// own: `create FILE ROWS` writes a DuckDB database file with a generated table `big`;
// `aggregate FILE LIMIT` releases aggregate's spec from that table with DuckDB's memory_limit set
// to LIMIT (spilling to disk beyond it). Each prints one JSON line: seconds and peak RSS in MiB.
import { performance } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';
import { createBudget } from 'dpnoise';
import { aggregate } from 'dpnoise/aggregate';
import { PRIVACY, SPEC, UNITS } from './aggregate.mjs';

const [mode, file, arg] = process.argv.slice(2);
const instance = await DuckDBInstance.create(file);
const connection = await instance.connect();
const start = performance.now();
if (mode === 'create') {
  await connection.run(
    `CREATE OR REPLACE TABLE big AS SELECT 1000000 + (hash(i) % ${UNITS * 10}) AS person_id, 'r' || (i % 5) AS region, 10 + hash(i + 1) % 90 AS age, ` +
      `100000 + hash(i + 2) % 900000 AS income, (100 + hash(i + 3) % 900) / 10 AS hours FROM range(${Number(arg)}) t(i)`,
  );
} else {
  await connection.run(`SET memory_limit = '${arg}'`);
  await aggregate(createBudget({ epsilon: 100, delta: 1e-6 }), PRIVACY, { ...SPEC, table: { connection, table: 'big' } });
}
const seconds = (performance.now() - start) / 1e3;
connection.closeSync();
instance.closeSync();
console.log(JSON.stringify({ seconds, peakMiB: process.resourceUsage().maxRSS / 1024 }));
