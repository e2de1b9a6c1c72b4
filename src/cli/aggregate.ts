// `dpnoise aggregate`: private counts, sums, means, quantiles and histograms of a file (CSV,
// Parquet or NDJSON, read by DuckDB) or of a PostgreSQL table (aggregated in the database) over
// declared groups; or, for a warehouse, the query and its plan file (--sql) and the release of
// its result (--aggregated). The arguments become aggregate()'s spec; everything is checked before
// the data is read, and the output is written only once the release is complete. With --plan
// alone, the accuracy table is printed and no data is read.
import { readFileSync } from 'node:fs';
import { createBudget, type PrivacyBudget, restoreBudget } from '../accounting/ledger.js';
import { aggregate, type AggregateResult, planAggregate } from '../aggregate/aggregate.js';
import { DIALECTS } from '../aggregate/dialect.js';
import { readTextTable } from '../aggregate/duckdb.js';
import { aggregateFromTotals, aggregateSql, type AggregateSqlOptions } from '../aggregate/warehouse.js';
import type { AggregatePlan } from '../aggregate/aggregate.js';
import type { AggregateSpec } from '../aggregate/spec.js';
import { choice, columnBounds, findableBounds, numbers, optionalNumber, options, required, type Values } from './args.js';
import { chargeBudgetFile, createBudgetFile } from './budget-file.js';
import { csvLine } from './formats.js';
import { PrivateOutput, UsageError } from './io.js';
import { progressBar } from './progress.js';

export const AGGREGATE_HELP = `Usage: dpnoise aggregate (--input people.csv | --postgres URL --table people | --clickhouse URL --table people)
                         --epsilon E [--delta D]
       dpnoise aggregate --sql --dialect bigquery|spark|postgres|duckdb|clickhouse --table T --plan plan.json [...] > agg.sql
       dpnoise aggregate --aggregated result.csv --plan plan.json [--epsilon E --delta D]
                         [--privacy-unit COLUMN [--max-groups G] [--max-rows R]]
                         [--group-by COLUMN [--groups a,b,c]]
                         [--count] [--units] [--sum COLUMN:LOW:HIGH]... [--mean COLUMN:LOW:HIGH]...
                         [--variance COLUMN:LOW:HIGH]... (an end may be private: COLUMN:0:private, COLUMN:private)
                         [--bounds-share 0.1] [--bounds-coverage 0.95] [--bounds-limit N]
                         [--quantile COLUMN:LOW:HIGH:Q[,Q]]... [--histogram COLUMN:E0,E1,...]...
                         [--noise gaussian|laplace] [--quantile-method exponential|tree]
                         [--weights range|equal]
                         [--invalid error|drop] [--diagnostics] [--level 0.95]
                         [--warn-epsilon 10] [--warn-delta 1e-4] [--integer-counts] [--consistent]
                         [--budget budget.json] [--plan [--expected-count N]]
                         [--format csv|json] [--output stats.csv]

Releases private statistics of a file (CSV, Parquet or NDJSON, by its extension; read by DuckDB,
which needs the package @duckdb/node-api) per group: the number of rows (--count), of distinct
privacy units (--units), sums, means and variances of columns clipped to their bounds (--sum
income:0:500000; --variance also gives the standard deviation), quantiles (--quantile
income:0:500000:0.5,0.9) and histograms over bin edges (--histogram age:0,18,65,100). Each
statistic comes with the standard deviation of its noise and an interval (--level, default 0.95).
--integer-counts rounds every count (rows, units, histogram bins) to a whole number at least 0,
its interval to the whole numbers within it: post-processing, at no cost in privacy.
--consistent makes every histogram add up to its group's count (with --count): the least squares
fit of the count and the bins, weighed by their noise; post-processing too.
With --postgres postgresql://user@host/db --table people (schema.table allowed) the clipping,
contribution bounding and aggregation run in that PostgreSQL database (through the package pg)
and only the totals per group come back. With --clickhouse http://host:8123 --table people
(database.table allowed; a Distributed table over shards too) they run in that ClickHouse
cluster, reached over its HTTP interface (no package needed).

Privacy. --privacy-unit names the column of the person (or other unit) to protect: each unit
counts in at most --max-groups groups (default: all) with at most --max-rows rows in each
(default 1), chosen at random. Without it each row is its own unit (say so only if each person
has one row). Declare the groups (--groups), never taken from the data; or leave --groups out
to have them selected privately (a group is released when its noisy number of units passes a
threshold; this needs --delta and, with --privacy-unit, --max-groups). Bounds, bins and declared
groups must be public: chosen without looking at the data. Or write a bound of --sum, --mean or
--variance private (income:0:private; x:private for [-b, b]) to find it from the data with
--bounds-share of epsilon (default 0.1): a noisy histogram over powers of two up to --bounds-limit
(default 2^20, 2^10 with --variance) gives the narrowest holding --bounds-coverage of the values
(default 0.95); the summary shows the bounds found (not with --sql). Without --delta the noise is Laplace
(pure epsilon-DP); with --delta it is Gaussian or Laplace, whichever the plan predicts more
accurate (Laplace is also (epsilon, delta)-DP), or as --noise says.

Quantiles: each by the exponential mechanism (--quantile-method exponential: the most accurate
for a few quantiles of a column), or all read off one noisy tree (--quantile-method tree: for
many); by default, the one with the smaller predicted error.

Weights: --weights range (the default) gives every statistic the same error relative to its
range; --weights equal minimises the sum of squared errors in the columns' own units (for columns
of one unit).

--budget FILE charges a budget saved as JSON (see "dpnoise budget --help"); a release that would
exceed it is refused before the data is read, and writes nothing. The file is locked across
processes while a release charges it (FILE.lock: a release started meanwhile waits, up to 5
minutes), and the charge is written to it, whole, before the data is read, so that a release that
fails or crashes stays charged. --plan prints the accuracy table (per statistic: noise standard
deviation and interval half-width) without reading the data (--input is not needed);
--expected-count N adds each mean's and quantile's sd in its own units for a group of N rows.
A summary warns when the privacy asked for promises little: epsilon above 10 or delta above
1e-4 (--warn-epsilon and --warn-delta set the thresholds; the release is the same).
Cells that are empty or not numbers stop the run (--invalid error, the default) or drop their
rows (--invalid drop); the error says that such a row exists, which is itself a disclosure.

A warehouse (BigQuery, Spark SQL, or any PostgreSQL or DuckDB dpnoise cannot reach): --sql prints
the aggregation as one query in --dialect for --table, and writes its plan to --plan FILE (the
statistics, bounds, groups, contribution bounds and privacy). Run the query there and save its
result as CSV; --aggregated result.csv --plan plan.json then adds the noise. A result made under
another plan, or a plan file edited since, is refused before anything is spent. The BigQuery and
Spark SQL renderings are checked against golden files, not against the live services.

Output: CSV (group, statistic, column, at, value, sd, low, high, rank_sd: a quantile has no sd in
its value's units, rank_sd is its rank's, in rows), or JSON with --format json, to --output or
standard output, written once the release is complete. A summary on standard error gives the
privacy unit, the privacy spent, the accuracy table and the warnings (a quantile whose interval is
the whole bounds).`;

export const BUDGET_HELP = `Usage: dpnoise budget --epsilon E [--delta D] --output budget.json
       dpnoise budget --show budget.json

Creates a privacy budget file for "dpnoise aggregate --budget" ((epsilon, delta)-DP, or pure
epsilon-DP without --delta), or shows what a budget file has spent and has left. A budget file is
never overwritten. Releases lock it across processes (budget.json.lock beside it, removed when the
release ends; a lock whose process is gone, or untouched for 10 minutes, is taken over) and write
each charge to it before they read the data (docs/aggregates.md, "The budget").`;

const list = (values: Values, name: string): string[] => (values[name] as string[] | undefined) ?? [];

/** The source: the input file, a PostgreSQL table, or a ClickHouse table. */
function sourceOf(values: Values): AggregateSpec['table'] {
  const given = ['input', 'postgres', 'clickhouse'].filter((name) => values[name] !== undefined);
  if (given.length > 1) throw new UsageError(`give one of --input (a file), --postgres or --clickhouse (a database); got --${given.join(' and --')}.`);
  if (values.postgres !== undefined) return { postgres: String(values.postgres), table: required(values, 'table') };
  if (values.clickhouse !== undefined) return { clickhouse: String(values.clickhouse), table: required(values, 'table') };
  if (values.table !== undefined) throw new UsageError('--table names a table of --postgres or --clickhouse; for a file use --input.');
  return required(values, 'input');
}

/** The names of --groups: "north, south" is north and south (a space kept would match no group, silently). */
function groupsOf(text: string): string[] {
  const groups = text.split(',').map((g) => g.trim());
  if (groups.includes('')) throw new UsageError(`--groups must be names separated by commas, none empty; got "${text}".`);
  return groups;
}

/** aggregate()'s spec from the arguments, for the source `table`. */
function specOf(values: Values, table: AggregateSpec['table']): AggregateSpec {
  const byColumn = <T>(name: string, read: (text: string) => [string, T]): Record<string, T> | undefined => {
    const entries = list(values, name).map(read);
    const repeated = entries.find(([c], i) => entries.findIndex(([d]) => d === c) !== i);
    if (repeated) throw new UsageError(`--${name} names the column "${repeated[0]}" twice.`);
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  };
  const bounded = (name: string) =>
    byColumn(name, (text) => {
      const { column, bounds } = findableBounds(text, name);
      return [column, bounds];
    });
  const groupBy = values['group-by'] as string | undefined;
  const groups = values.groups === undefined ? undefined : groupsOf(String(values.groups));
  const integer = (name: string) => {
    const x = optionalNumber(values, name);
    return x === undefined ? {} : { [name === 'max-groups' ? 'maxGroups' : 'maxRows']: x };
  };
  return {
    table,
    ...(values['privacy-unit'] === undefined ? {} : { privacyUnit: String(values['privacy-unit']) }),
    ...(groupBy === undefined ? {} : { groupBy }),
    ...(groups === undefined ? {} : { groups }),
    ...integer('max-groups'),
    ...integer('max-rows'),
    count: values.count === true,
    units: values.units === true,
    integerCounts: values['integer-counts'] === true,
    consistent: values.consistent === true,
    sum: bounded('sum'),
    mean: bounded('mean'),
    variance: bounded('variance'),
    ...(values['bounds-share'] === undefined ? {} : { boundsShare: optionalNumber(values, 'bounds-share') }),
    ...(values['bounds-coverage'] === undefined ? {} : { boundsCoverage: optionalNumber(values, 'bounds-coverage') }),
    ...(values['bounds-limit'] === undefined ? {} : { boundsLimit: optionalNumber(values, 'bounds-limit') }),
    quantile: byColumn('quantile', (text) => {
      const { column, bounds, tail } = columnBounds(text, 'quantile', true);
      return [column, { bounds, q: numbers(tail!, 'quantile') }];
    }),
    histogram: byColumn('histogram', (text) => {
      const at = text.lastIndexOf(':');
      if (at <= 0) throw new UsageError(`--histogram must be COLUMN:E0,E1,...; got "${text}".`);
      return [text.slice(0, at), { bins: numbers(text.slice(at + 1), 'histogram') }];
    }),
    weights: choice(values, 'weights', ['range', 'equal'] as const),
    invalid: choice(values, 'invalid', ['error', 'drop'] as const),
    diagnostics: values.diagnostics === true,
    ...(values.noise === undefined ? {} : { noise: choice(values, 'noise', ['gaussian', 'laplace'] as const) }),
    ...(values['quantile-method'] === undefined ? {} : { quantileMethod: choice(values, 'quantile-method', ['exponential', 'tree'] as const) }),
    ...(values.level === undefined ? {} : { level: optionalNumber(values, 'level') }),
    ...(values['expected-count'] === undefined ? {} : { expectedCount: optionalNumber(values, 'expected-count') }),
    ...(values['warn-epsilon'] === undefined && values['warn-delta'] === undefined
      ? {}
      : {
          warnAbove: {
            ...(values['warn-epsilon'] === undefined ? {} : { epsilon: optionalNumber(values, 'warn-epsilon') }),
            ...(values['warn-delta'] === undefined ? {} : { delta: optionalNumber(values, 'warn-delta') }),
          },
        }),
  } as AggregateSpec;
}

const fmt = (x: number) => (x === 0 || (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e9) ? String(Number(x.toPrecision(6))) : x.toExponential(5));

/**
 * What an analyst cannot guess from the figures, from the arguments alone (never the data): what
 * the counts count, that rows of undeclared groups count nowhere, and what the default
 * --max-groups costs.
 */
function readingNotes(values: Values): string[] {
  const notes = ['dpnoise: note: counts are of the rows kept after contribution bounding (at most --max-rows per unit and group).\n'];
  if (values.groups !== undefined)
    notes.push('dpnoise: note: rows whose group is not among --groups are not counted anywhere (check the spelling of each group).\n');
  if (values['privacy-unit'] !== undefined && values['max-groups'] === undefined && values.groups !== undefined && groupsOf(String(values.groups)).length > 1) {
    notes.push('dpnoise: note: each unit may count in every declared group (no --max-groups): with one row per unit, --max-groups 1 needs less noise.\n');
  }
  return notes;
}

/**
 * With bounds found privately: the split of epsilon, and the bounds (found: noisy outputs like the
 * figures; in a plan, the widest candidates the table is for).
 */
function boundsNote(plan: AggregatePlan): string {
  const b = plan.privateBounds;
  if (b === undefined) return '';
  const list = Object.entries(b.bounds)
    .map(([column, [low, high]]) => `${column} [${fmt(low)}, ${fmt(high)}]`)
    .join(', ');
  const what = b.found ? `found ${list}` : `the table is for the widest candidates, ${list}; the noise shrinks with the bounds found`;
  return `  Bounds found privately with epsilon ${fmt(b.privacy.epsilon(0))} (--bounds-share ${b.share}), the release at ${fmt(b.releaseEpsilon)}: ${what}.\n`;
}

/** The accuracy table; with `planning`, a note on the errors in the columns' own units. */
function accuracyTable(plan: AggregatePlan, planning = false, expectedCount?: number): string {
  const OF = { value: '', sum: ' (of its sum: divide by the count)', squares: ' (of its sum of squares: divide by the count)', rank: ' (in rows of rank)' };
  const inUnits = (a: AggregatePlan['accuracy'][number]) => (expectedCount === undefined ? '' : ` ${fmt(a.valueSd ?? a.sd).padStart(14)}`);
  const lines = plan.accuracy.map(
    (a) => `  ${a.statistic.padEnd(28)} ${a.mechanism.padEnd(11)} ${fmt(a.sd).padStart(12)} ${fmt(a.halfWidth).padStart(14)}${inUnits(a)}${OF[a.of]}`,
  );
  const head = `  ${'statistic'.padEnd(28)} ${'noise'.padEnd(11)} ${'sd'.padStart(12)} ${`+-${Math.round(plan.level * 100)}%`.padStart(14)}`;
  const units = expectedCount === undefined ? '' : ` ${`sd at ${expectedCount} rows`.padStart(14)}`;
  const relative = planning && plan.accuracy.some((a) => a.of !== 'value');
  const note =
    expectedCount === undefined && relative
      ? ["  A mean's and a quantile's error in their own units depend on the group's size: --expected-count N gives them for N rows."]
      : expectedCount !== undefined && relative
        ? [`  "sd at ${expectedCount} rows": a mean's at its largest, a quantile's as if the values were spread evenly over its bounds.`]
        : [];
  return [head + units, ...lines, ...note].join('\n');
}

/** A number for a CSV cell; an empty cell where there is none (a quantile's sd, in its value's units). */
const cell = (x: number | undefined) => (x === undefined ? '' : String(x));

function csvOf(result: AggregateResult): string {
  const lines = result.table.map((l) =>
    csvLine([l.group, l.statistic, l.column ?? '', l.at ?? '', String(l.value), cell(l.sd), String(l.low), String(l.high), cell(l.rankSd)]),
  );
  return csvLine(['group', 'statistic', 'column', 'at', 'value', 'sd', 'low', 'high', 'rank_sd']) + lines.join('');
}

/**
 * Runs a release against the --budget file, which is locked while it runs and written the moment
 * it is charged (budget-file.ts), or against a budget that holds exactly this release.
 */
async function charging<T>(
  values: Values,
  target: { epsilon: number; delta?: number },
  release: (budget: PrivacyBudget) => Promise<T>,
): Promise<{ result: T; budget: PrivacyBudget }> {
  if (values.budget !== undefined) return chargeBudgetFile(String(values.budget), release);
  const budget = createBudget(target as never);
  return { result: await release(budget), budget };
}

/** Writes `text` to `file` (standard output when undefined) through a private file published whole. */
async function save(file: string | undefined, text: string): Promise<void> {
  const out = await PrivateOutput.create(file);
  try {
    await out.write(text);
    await out.commit();
  } catch (error) {
    out.discard();
    throw error;
  }
}

/** The long table aligned in columns, for a terminal. */
function aligned(result: AggregateResult): string {
  const rows = [
    ['group', 'statistic', 'value', 'sd', `${Math.round(result.level * 100)}% interval`],
    ...result.table.map((l) => [
      l.group,
      `${l.statistic}${l.column === undefined ? '' : `(${l.column}${l.at === undefined ? '' : `, ${l.at}`})`}`,
      fmt(l.value),
      l.sd === undefined ? `${fmt(l.rankSd!)} (rank)` : fmt(l.sd),
      `[${fmt(l.low)}, ${fmt(l.high)}]`,
    ]),
  ];
  const widths = rows[0]!.map((_, k) => Math.max(...rows.map((r) => r[k]!.length)));
  return `${rows.map((r) => r.map((c, k) => (k >= 2 ? c.padStart(widths[k]!) : c.padEnd(widths[k]!))).join('  ')).join('\n')}\n`;
}

/** The options that make the spec, which a plan file fixes. */
const STATISTIC_OPTIONS = [
  'input',
  'postgres',
  'clickhouse',
  'table',
  'privacy-unit',
  'group-by',
  'groups',
  'max-groups',
  'max-rows',
  'count',
  'units',
  'integer-counts',
  'consistent',
  'sum',
  'mean',
  'variance',
  'bounds-share',
  'bounds-coverage',
  'bounds-limit',
  'quantile',
  'histogram',
  'noise',
  'quantile-method',
  'weights',
  'invalid',
  'diagnostics',
  'level',
  'expected-count',
  'warn-epsilon',
  'warn-delta',
];

/** Whether the arguments ask for the warehouse path, where --plan names a file (alone, it prints the accuracy table). */
const warehouse = (args: string[]) => args.some((a) => a === '--sql' || a === '--aggregated' || a.startsWith('--aggregated='));

/** --sql: the query for a warehouse on standard output (or --output), its plan in the --plan file. */
async function sqlCommand(values: Values, target: { epsilon: number; delta?: number }): Promise<void> {
  if (values.input !== undefined || values.postgres !== undefined || values.clickhouse !== undefined)
    throw new UsageError('--sql prints the query for --table; it takes no --input, --postgres or --clickhouse.');
  const planFile = required(values, 'plan');
  required(values, 'dialect');
  const { sql, plan } = aggregateSql({
    ...target,
    ...(specOf(values, required(values, 'table')) as Omit<AggregateSqlOptions, 'epsilon' | 'delta' | 'dialect'>),
    dialect: choice(values, 'dialect', DIALECTS),
  } as AggregateSqlOptions);
  await save(planFile, `${JSON.stringify(plan, null, 2)}\n`);
  await save(values.output === undefined ? undefined : String(values.output), sql);
}

/** --aggregated: the warehouse's result (CSV, read by DuckDB) released under the --plan file. */
async function aggregatedCommand(
  values: Values,
  target: { epsilon: number; delta?: number } | undefined,
): Promise<AggregateResult & { budget: PrivacyBudget }> {
  const given = STATISTIC_OPTIONS.filter((name) => values[name] !== undefined && values[name] !== false);
  if (given.length > 0) throw new UsageError(`--aggregated takes the statistics from --plan; drop --${given.join(', --')}.`);
  const plan = JSON.parse(readFileSync(required(values, 'plan'), 'utf8'));
  if (target !== undefined && JSON.stringify(target) !== JSON.stringify(plan.target)) {
    throw new UsageError(`--epsilon and --delta must be the plan's (${JSON.stringify(plan.target)}), or left out.`);
  }
  const rows = await readTextTable(required(values, 'aggregated'));
  const { result, budget } = await charging(values, plan.target, (b) => aggregateFromTotals({ budget: b, plan, rows }));
  return { ...result, budget };
}

/** The flag of each option aggregate() names in its errors. */
const FLAGS: Readonly<Record<string, string>> = {
  privacyUnit: '--privacy-unit',
  groupBy: '--group-by',
  groups: '--groups',
  maxGroups: '--max-groups',
  maxRows: '--max-rows',
  count: '--count',
  units: '--units',
  integerCounts: '--integer-counts',
  consistent: '--consistent',
  sum: '--sum',
  mean: '--mean',
  variance: '--variance',
  boundsShare: '--bounds-share',
  boundsCoverage: '--bounds-coverage',
  boundsLimit: '--bounds-limit',
  quantile: '--quantile',
  histogram: '--histogram',
  weights: '--weights',
  noise: '--noise',
  quantileMethod: '--quantile-method',
  invalid: '--invalid',
  diagnostics: '--diagnostics',
  level: '--level',
  expectedCount: '--expected-count',
  'warnAbove.epsilon': '--warn-epsilon',
  'warnAbove.delta': '--warn-delta',
  epsilon: '--epsilon',
  delta: '--delta',
  table: '--input',
};

/**
 * An error of aggregate() in the command line's words: `maxGroups` is --max-groups,
 * `quantile.income.bounds` is --quantile income, `invalid: 'drop'` is --invalid drop.
 */
export function inFlags(message: string): string {
  return message
    .replace(/`(\w+): '([\w-]+)'`/g, (all, name: string, value: string) => (FLAGS[name] ? `${FLAGS[name]} ${value}` : all))
    .replace(/`(\w+)((?:\.[^`\s.]+)*)`/g, (all, name: string, path: string) =>
      FLAGS[name + path] ? FLAGS[name + path]! : FLAGS[name] ? `${FLAGS[name]}${path ? ` ${path.split('.')[1]}` : ''}` : all,
    );
}

export async function aggregateCommand(args: string[]): Promise<void> {
  try {
    await aggregateWith(args);
  } catch (error) {
    // The library names its options; the command line's user typed flags.
    if (error instanceof TypeError || error instanceof RangeError) throw new (error.constructor as typeof TypeError)(inFlags(error.message));
    throw error;
  }
}

async function aggregateWith(args: string[]): Promise<void> {
  const values = options('aggregate', args, {
    sql: 'boolean',
    dialect: 'string',
    aggregated: 'string',
    input: 'string',
    postgres: 'string',
    clickhouse: 'string',
    table: 'string',
    'privacy-unit': 'string',
    'group-by': 'string',
    groups: 'string',
    'max-groups': 'string',
    'max-rows': 'string',
    count: 'boolean',
    units: 'boolean',
    'integer-counts': 'boolean',
    consistent: 'boolean',
    sum: 'strings',
    mean: 'strings',
    variance: 'strings',
    'bounds-share': 'string',
    'bounds-coverage': 'string',
    'bounds-limit': 'string',
    quantile: 'strings',
    histogram: 'strings',
    epsilon: 'string',
    delta: 'string',
    noise: 'string',
    weights: 'string',
    invalid: 'string',
    diagnostics: 'boolean',
    level: 'string',
    'expected-count': 'string',
    'warn-epsilon': 'string',
    'warn-delta': 'string',
    budget: 'string',
    plan: warehouse(args) ? 'string' : 'boolean',
    format: 'string',
    output: 'string',
    help: 'boolean',
  });
  if (values.help) return void console.log(AGGREGATE_HELP);
  const epsilon = optionalNumber(values, 'epsilon');
  const delta = optionalNumber(values, 'delta');
  const target = epsilon === undefined ? undefined : delta === undefined ? { epsilon } : { epsilon, delta };
  const format = choice(values, 'format', ['csv', 'json'] as const);
  let result: AggregateResult;
  let budget: PrivacyBudget;
  if (values.aggregated !== undefined) {
    ({ budget, ...result } = await aggregatedCommand(values, target));
  } else {
    if (target === undefined) throw new UsageError('--epsilon is required.');
    if (values.sql) return sqlCommand(values, target);
    // The plan reads no data: it needs no source.
    const planOnly = values.plan === true && values.input === undefined && values.postgres === undefined && values.clickhouse === undefined;
    const spec = specOf(values, planOnly ? [] : sourceOf(values));
    if (values.plan) {
      const plan = planAggregate({ ...target, ...spec });
      console.error(plan.warnings.map((w) => `dpnoise: warning: ${w}\n`).join(''));
      return void console.log(`Protects ${plan.unit}.\n${boundsNote(plan)}${accuracyTable(plan, true, spec.expectedCount)}`);
    }
    const bar = progressBar('reading');
    ({ result, budget } = await charging(values, target, (b) => aggregate({ ...target, budget: b, ...spec, onProgress: bar.update }).finally(bar.done)));
  }
  const output = values.output === undefined ? undefined : String(values.output);
  const terminal = output === undefined && values.format === undefined && process.stdout.isTTY;
  const text =
    format === 'json'
      ? `${JSON.stringify({ unit: result.unit, level: result.level, ...(result.privateBounds ? { bounds: result.privateBounds.bounds } : {}), rows: result.rows }, null, 2)}\n`
      : terminal
        ? aligned(result)
        : csvOf(result);
  await save(output, text);
  const spent = budget.spent;
  process.stderr.write(
    `dpnoise: protects ${result.unit}; spent epsilon ${fmt(spent.epsilon)}${spent.delta === undefined ? '' : ` at delta ${spent.delta}`} of ${budget.total.epsilon}.\n${boundsNote(result)}${accuracyTable(result)}\n${readingNotes(values).join('')}${result.warnings.map((w) => `dpnoise: warning: ${w}\n`).join('')}`,
  );
}

export async function budgetCommand(args: string[]): Promise<void> {
  const values = options('budget', args, { epsilon: 'string', delta: 'string', output: 'string', show: 'string', help: 'boolean' });
  if (values.help) return void console.log(BUDGET_HELP);
  if (values.show !== undefined) {
    const budget = restoreBudget(JSON.parse(readFileSync(String(values.show), 'utf8')));
    const d = budget.total.delta === undefined ? '' : ` at delta ${budget.total.delta}`;
    return void console.log(
      `${budget.releases} releases; spent epsilon ${fmt(budget.spent.epsilon)} of ${budget.total.epsilon}${d}; ${fmt(budget.remaining.epsilon)} left.`,
    );
  }
  const epsilon = optionalNumber(values, 'epsilon');
  if (epsilon === undefined) throw new UsageError('--epsilon is required.');
  const delta = optionalNumber(values, 'delta');
  const budget = createBudget(delta === undefined ? { epsilon } : { epsilon, delta });
  await createBudgetFile(required(values, 'output'), budget);
}
