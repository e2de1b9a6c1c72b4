// Aggregates on a ClickHouse cluster: `aggregate` over a Distributed table of BIG_ROWS rows on two
// shards (two private servers, scripts/clickhouse-server.mjs, the rows generated inside
// ClickHouse) against the same aggregation written by hand for ClickHouse in its fastest form
// (argMin of each column at the least random key per unit and region, read by the shards; no
// window),
// with each server process's peak resident memory per query.
import { readFileSync, writeFileSync } from 'node:fs';
import { createBudget } from 'dpnoise';
import { aggregate } from 'dpnoise/aggregate';
import { clickhouseBinary, runClickHouse, startClickHouse } from '../scripts/clickhouse-server.mjs';
import { fmt } from './format.mjs';
import { BIG_ROWS, farCount, PRIVACY, SPEC } from './aggregate.mjs';

export const title = 'Aggregates on ClickHouse';

/** Persons: ids drawn from this many, so that a unit's rows land on both shards. */
const UNITS = 1e7;
const GROUPS = SPEC.groups;
/** Each query takes minutes on two shared cores: two runs of each, interleaved. */
const RUNS = 2;

/**
 * The settings of both servers: a GROUP BY spills to disk past 2 GB, partial states are merged
 * by buckets (distributed_aggregation_memory_efficient), and a query may take 8 GB of the
 * machine's 24 (both engines alike).
 */
const SETTINGS = { max_memory_usage: 8e9, max_bytes_before_external_group_by: 2e9, distributed_aggregation_memory_efficient: 1 };

/** Each shard's rows, generated on it: numbers(n) offset by the shard, hashed into persons, regions, ages, incomes, hours. */
const shardRowsSql = (shard, n) =>
  `INSERT INTO people_local SELECT 1000000 + cityHash64(i) % ${UNITS} AS person_id, concat('r', toString(i % 5)) AS region, ` +
  `toFloat64(10 + cityHash64(i + 1) % 90) AS age, toFloat64(100000 + cityHash64(i + 2) % 900000) AS income, ` +
  `toFloat64(100 + cityHash64(i + 3) % 900) / 10 AS hours FROM (SELECT number + ${shard * n} AS i FROM numbers(${n}))`;

/**
 * The aggregation by hand, in its fastest form: per person and region each column's argMin at the
 * least random key (one rand64() per row, which ClickHouse computes once however often it is
 * written; a fixed-size state per column, where argMin of a tuple keeps a generic one), then per
 * region the count and clipped sums.
 */
function handSql(from) {
  const clip = (column, [lower, upper]) => `least(greatest(${column}, ${lower}), ${upper})`;
  return `SELECT region, count() AS n, sum(${clip('a', SPEC.sum.age)}) AS age, sum(${clip('h', SPEC.sum.hours)}) AS hours, sum(${clip('i', SPEC.mean.income)}) AS income
FROM (SELECT person_id, region, argMin(age, rand64()) AS a, argMin(hours, rand64()) AS h, argMin(income, rand64()) AS i FROM ${from} WHERE region IN (${GROUPS.map((g) => `'${g}'`).join(', ')}) GROUP BY person_id, region)
GROUP BY region FORMAT JSON`;
}

/** The peak resident memory of a process since it was last reset (VmHWM, /proc), in MiB. */
const peakOf = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
/** Resets a process's peak resident memory to its current one (clear_refs 5). */
const resetPeak = (pid) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

export async function run(ctx) {
  const bin = clickhouseBinary();
  const heading = `aggregate against ClickHouse by hand: seconds per release, ${fmt(BIG_ROWS)} rows on two shards`;
  if (!bin) return [{ heading, text: 'No clickhouse-server (Debian package clickhouse-server): not run.', columns: [], rows: [] }];
  const cluster = await startClickHouse(bin, 2, SETTINGS);
  try {
    const [a, b] = cluster.servers;
    const version = JSON.parse(await runClickHouse(a.url, 'SELECT version() AS v FORMAT JSON')).data[0].v;
    for (const s of [a, b]) {
      await runClickHouse(
        s.url,
        'CREATE TABLE people_local (person_id UInt64, region String, age Float64, income Float64, hours Float64) ENGINE = MergeTree ORDER BY tuple()',
      );
    }
    await runClickHouse(a.url, 'CREATE TABLE people AS people_local ENGINE = Distributed(dpnoise, default, people_local, rand())');
    const loadStart = performance.now();
    await Promise.all([a, b].map((s, shard) => runClickHouse(s.url, shardRowsSql(shard, BIG_ROWS / 2))));
    const loadSeconds = (performance.now() - loadStart) / 1e3;
    const count = Number(JSON.parse(await runClickHouse(a.url, 'SELECT count() AS n FROM people FORMAT JSON')).data[0].n);
    ctx.check(count === BIG_ROWS, `the Distributed table has ${count} rows, not ${BIG_ROWS}`);
    ctx.log(`ClickHouse ${version}: ${fmt(BIG_ROWS)} rows generated in ${fmt(loadSeconds)} s`);

    let exact;
    const cases = [
      {
        name: 'aggregate',
        fn: async () => {
          const release = await aggregate({ ...PRIVACY, budget: createBudget(PRIVACY), ...SPEC, table: { clickhouse: a.url, table: 'people' } });
          if (exact !== undefined) ctx.check(farCount(release, exact) === undefined, 'a released count is far from the exact one');
        },
      },
      {
        name: 'by hand',
        fn: async () => {
          exact = JSON.parse(await runClickHouse(a.url, handSql('people'))).data;
        },
      },
    ];
    const samples = cases.map(() => ({ wall: [], peaks: [[], []] }));
    for (let round = 0; round < RUNS; round++) {
      for (let k = 0; k < cases.length; k++) {
        const j = (round + k) % cases.length;
        for (const s of cluster.servers) resetPeak(s.pid);
        const start = performance.now();
        await cases[j].fn();
        samples[j].wall.push((performance.now() - start) / 1e3);
        cluster.servers.forEach((s, i) => {
          samples[j].peaks[i].push(peakOf(s.pid));
        });
        ctx.log(`${cases[j].name}: ${fmt(samples[j].wall.at(-1))} s`);
      }
    }
    const [ours, hand] = samples;
    // The least-disturbed run of each (the machine's two cores are shared with other work), and every run.
    const best = (s) => Math.min(...s.wall);
    const row = (name, s) => [name, fmt(best(s)), s.wall.map(fmt).join(', '), fmt(Math.max(...s.peaks[0])), fmt(Math.max(...s.peaks[1]))];
    return [
      {
        heading,
        columns: ['', 'best s', 'runs s', 'initiator peak MiB', 'other shard peak MiB'],
        rows: [
          row('aggregate (Distributed table)', ours),
          row('by hand (argMin per column, person and region)', hand),
          ['aggregate / by hand (best runs)', `${fmt(best(ours) / best(hand))}x`, '', '', ''],
        ],
        notes: [
          `ClickHouse ${version} (Debian's package): two servers on loopback ports of this machine, each with its own data directory, named as the two shards of one cluster; a MergeTree table on each and a Distributed table over both. ` +
            `${fmt(BIG_ROWS)} rows generated inside ClickHouse (${fmt(BIG_ROWS / 2)} on each shard, ${fmt(loadSeconds)} s), persons drawn from ${fmt(UNITS)} ids by hash on each shard, so that nearly every person (all but a fraction 2e^-5, 1.3%) has rows on both shards: the Distributed table is not sharded by the unit; 5 regions.`,
          `The spec of the Aggregates group (privacy unit, maxRows 1, 5 declared regions, a count, two sums and a mean; invalid: 'drop'); ${RUNS} runs each, interleaved (the first aggregate before any exact count: its counts are checked against the exact ones from the second round). Both forms read the Distributed table, so that each shard aggregates its own rows and the server asked merges them.`,
          'Settings of both servers, for both forms: max_memory_usage 8e9, max_bytes_before_external_group_by 2e9 (a GROUP BY spills to disk past it), distributed_aggregation_memory_efficient 1.',
          "Peak memory: each server process's peak resident memory during the query (VmHWM, reset before each query through /proc/PID/clear_refs), the largest over the runs; the initiator is the server asked, which is also the first shard.",
        ],
      },
    ];
  } finally {
    cluster.stop();
  }
}
