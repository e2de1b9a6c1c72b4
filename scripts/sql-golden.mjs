// The golden SQL files of test/aggregate/warehouse.test.ts: aggregateSql's query for one spec in
// every dialect (test/fixtures/sql/<dialect>.sql), and for it with one row per unit and group
// (maxRows 1, the default: <dialect>-one-row.sql, where the rows are kept by arg_min), to be reviewed against each engine's
// documentation when they change (BigQuery and Spark SQL are not run here, only parsed by
// test/aggregate/parse.test.ts; DuckDB, PostgreSQL and ClickHouse are run by the tests). Run after
// `npm run build`: node scripts/sql-golden.mjs.
import { readFileSync, writeFileSync } from 'node:fs';
import { aggregateSql, DIALECTS } from 'dpnoise/aggregate';

// The spec (test/fixtures/sql/spec.json): every statistic kind, contribution bounds on units and
// groups, and a group name that needs quoting.
const { target, options } = JSON.parse(readFileSync(new URL('../test/fixtures/sql/spec.json', import.meta.url), 'utf8'));

for (const dialect of DIALECTS) {
  const { sql } = aggregateSql({ ...target, ...options, dialect });
  writeFileSync(new URL(`../test/fixtures/sql/${dialect}.sql`, import.meta.url), sql);
  const oneRow = aggregateSql({ ...target, ...options, maxRows: 1, dialect }).sql;
  writeFileSync(new URL(`../test/fixtures/sql/${dialect}-one-row.sql`, import.meta.url), oneRow);
}
