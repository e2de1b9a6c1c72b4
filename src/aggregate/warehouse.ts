// Aggregates where dpnoise cannot connect (docs/aggregates.md, "Warehouses"): the aggregate's
// query rendered in a warehouse's dialect with a plan file that records every public choice
// (aggregateSql), and the release of the query's result once it has been run there
// (aggregateFromTotals). The plan's identifier is written in every result row, and the file is
// checked against its own identifier, so a result made under other bounds is refused.
import { type PrivacyBudget, readBudgetArgument } from '../accounting/ledger.js';
import { describe, describeKind, oneOf, readOptions } from '../core/validate.js';
import { sourceOf } from '../noise/random.js';
import type { SampleOptions } from '../noise/samplers.js';
import { type AggregateResult, type AggregateTarget, released } from './aggregate.js';
import { DIALECT, DIALECTS, type DialectName, tableName } from './dialect.js';
import { planOf, readAggregateTarget } from './plan.js';
import { type AggregateSpec, readSpec, SPEC_OPTIONS } from './spec.js';
import { resultColumns } from './columns.js';
import { aggregateQuery, readResultRows, totalsOfResult } from './sql.js';
import { sumQuantum } from './totals.js';

/**
 * A plan file: what aggregateFromTotals needs to release the result of aggregateSql's query.
 *
 * @group Aggregates
 */
export interface AggregatePlanFile {
  /** What the file is. */
  readonly dpnoise: 'aggregate-plan';
  /** Its format's version. */
  readonly version: 3;
  /** The dialect the query was written in. */
  readonly dialect: DialectName;
  /** The table the query reads. */
  readonly table: string;
  /** The target the release is calibrated to (and spends). */
  readonly target: AggregateTarget;
  /** The statistics and their public settings (aggregate's options without `table`). */
  readonly options: Readonly<Record<string, unknown>>;
  /** The columns of the query's result. */
  readonly columns: readonly string[];
  /** What each result column m0, m1, ... holds: each measure's kind, column, bounds, shift and quantum (a sum's). */
  readonly layout: readonly Readonly<Record<string, unknown>>[];
  /** A checksum of the fields above, written in every result row. */
  readonly id: string;
}

/**
 * The options of aggregateSql: the target (`epsilon`, and `delta`), the warehouse's `dialect`,
 * `table` (its name there) and aggregate's statistics and settings.
 *
 * @group Aggregates
 */
export type AggregateSqlOptions = AggregateTarget &
  Omit<AggregateSpec, 'table' | 'onProgress'> & {
    /** The table's name in the warehouse (schema.table allowed). */
    table: string;
    /** The warehouse's dialect. */
    dialect: DialectName;
  };

/**
 * The options of aggregateFromTotals: the plan file, the query's result rows, an optional ledger
 * and the noise source.
 *
 * @group Aggregates
 */
export interface AggregateFromTotalsOptions extends SampleOptions {
  /** The plan file aggregateSql wrote beside the query. */
  plan: AggregatePlanFile;
  /** The query's result rows, as objects (every value may be text, NULL an empty string). */
  rows: readonly Readonly<Record<string, unknown>>[];
  /** A ledger (createBudget) charged for the release's `privacy` before any total is read. */
  budget?: PrivacyBudget;
}

/**
 * The query and its plan file.
 *
 * @group Aggregates
 */
export interface AggregateQuery {
  /** The query, with a comment on how to use it. */
  readonly sql: string;
  /** The plan file to keep beside it. */
  readonly plan: AggregatePlanFile;
}

/** FNV-1a, 64 bits, of a text: a checksum (not a secret: it detects mismatches, it does not authenticate). */
function checksum(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

/** JSON with every object's keys sorted, so that a file read back gives the same text whatever its key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** A copy of plain data, each value read once (getters included); a TypeError for what cannot be copied (functions, symbols). */
function plainCopy<T>(name: string, value: T): T {
  try {
    return structuredClone(value);
  } catch {
    throw new TypeError(`dpnoise: \`${name}\` must hold plain data (numbers, strings, arrays and objects) to be written to a plan file.`);
  }
}

/** Options that are functions (onProgress) have no place in a file. */
const FILE_OPTIONS = SPEC_OPTIONS.filter((name) => name !== 'table' && name !== 'onProgress');

/**
 * The plan's public choices, checked: the spec, its layout (which depends on the privacy and on
 * this version of dpnoise), the result's columns, and the layout as a plan file records it.
 */
function publicChoices(asked: Record<string, unknown>, options: Record<string, unknown>) {
  const target = readAggregateTarget(asked);
  const spec = readSpec({ ...options, table: [] });
  // Finding bounds reads the data before the release's query is written: one query cannot.
  if (spec.findBounds !== undefined)
    throw new TypeError(
      "dpnoise: bounds written 'private' need two reads of the data, which one warehouse query cannot make: declare the bounds, or run `aggregate` on the table.",
    );
  const plan = planOf(spec, target);
  const layout = plan.layout.measures.map((m) => (m.kind === 'sum' || m.kind === 'squares' ? { ...m, quantum: sumQuantum(m) } : { ...m }));
  return { spec, plan, columns: resultColumns(plan.layout), layout };
}

/**
 * The query of an aggregate over `table` in a warehouse's dialect ('bigquery', 'spark', or
 * 'duckdb' and 'postgres', which dpnoise also runs itself), and its plan file. Run the query where
 * the data is, save its result as a table (CSV), and give both to aggregateFromTotals. The rows
 * each unit contributes are chosen by the warehouse's own random function, afresh on every run.
 *
 * @example
 * ```ts
 * import { aggregateSql } from 'dpnoise/aggregate';
 *
 * const { sql, plan } = aggregateSql({
 *   epsilon: 1, delta: 1e-6, dialect: 'bigquery', table: 'analytics.people',
 *   privacyUnit: 'person_id', groupBy: 'region', groups: ['north', 'south'],
 *   count: true, mean: { income: [0, 500000] },
 * });
 * console.log(sql.startsWith('-- dpnoise'), plan.id);
 * ```
 *
 * @group Aggregates
 */
export function aggregateSql(options: AggregateSqlOptions): AggregateQuery {
  const o = readOptions('options', options, ['epsilon', 'delta', 'dialect', 'table', ...FILE_OPTIONS]);
  const dialect = DIALECT[oneOf('dialect', o.dialect, DIALECTS)];
  if (typeof o.table !== 'string' || o.table.length === 0)
    throw new TypeError(`dpnoise: \`table\` must be a table name (schema.table allowed); got ${describe(o.table)}.`);
  const table = o.table;
  // Every value is read once, here: the query, the plan file and its checksum are made from these
  // copies, so a getter or a later change of the caller's objects cannot set them apart.
  const target = o.delta === undefined ? { epsilon: o.epsilon } : { epsilon: o.epsilon, delta: o.delta };
  const rest = plainCopy('options', Object.fromEntries(Object.entries(o).filter(([k]) => !['epsilon', 'delta', 'dialect', 'table'].includes(k))));
  const { spec, plan, columns, layout } = publicChoices(target, rest);
  const body = { dpnoise: 'aggregate-plan', version: 3, dialect: dialect.name, table, target, options: rest, columns, layout } as const;
  const id = checksum(canonical(body));
  // The query's own tables are named after the plan (queryNames): a table of that name would have to
  // hold, in its name, the checksum of a plan that names it.
  const query = aggregateQuery(spec, plan.layout, dialect, [], tableName(table, dialect), id, id);
  // ClickHouse settings that would cut the aggregation short (docs/aggregates.md, "On a cluster").
  const settings =
    dialect.name === 'clickhouse'
      ? '-- ClickHouse: run it with distributed_group_by_no_merge 0, skip_unavailable_shards 0 and every *_overflow_mode throw (the defaults)\n'
      : '';
  const sql = `-- dpnoise aggregate plan ${id} (${dialect.name}): run this query where the table is, save its result as CSV, and release it\n-- with the plan file: dpnoise aggregate --aggregated result.csv --plan plan.json\n${settings}${query};\n`;
  return { sql, plan: Object.freeze({ ...body, id }) as unknown as AggregatePlanFile };
}

/** A plan file read back, checked against its own checksum. */
function readPlanFile(value: unknown): AggregatePlanFile {
  // One read of every value (a copy), so that what the checksum covers is what is used.
  const o = plainCopy('plan', readOptions('plan', value, ['dpnoise', 'version', 'dialect', 'table', 'target', 'options', 'columns', 'layout', 'id']));
  if (o.dpnoise !== 'aggregate-plan' || o.version !== 3)
    throw new TypeError('dpnoise: `plan` must be a plan file of aggregateSql (version 3); write it again with this version.');
  const { id, ...body } = o;
  if (typeof id !== 'string' || checksum(canonical(body)) !== id) {
    throw new RangeError('dpnoise: the plan file does not match its checksum: it was edited after aggregateSql wrote it.');
  }
  return o as unknown as AggregatePlanFile;
}

/**
 * Releases the result of aggregateSql's query, run in a warehouse: `rows` are its result rows as
 * objects (every value may be text, NULL an empty string), `plan` the plan file. Refuses, before
 * charging the optional `budget`, a plan file edited after it was written or laid out by another version of
 * dpnoise, and a result its query did not make (sql.ts, readResultRows: another plan's, other
 * columns, a group NULL, undeclared or given twice, a cell outside its measure, a total that is
 * not a whole number); then charges the plan's privacy, reads the totals and adds the noise, as
 * aggregate does. Invalid rows with `invalid: 'error'` are refused after the charge: that refusal
 * says something about the data.
 *
 * @group Aggregates
 */
export async function aggregateFromTotals(options: AggregateFromTotalsOptions): Promise<AggregateResult> {
  const o = readOptions('options', options, ['plan', 'rows', 'budget', 'rng']);
  const budget = o.budget === undefined ? undefined : readBudgetArgument(o.budget);
  const rng = sourceOf(o.rng);
  const file = readPlanFile(o.plan);
  const { spec, plan, layout } = publicChoices({ ...file.target }, { ...file.options });
  // Another version of dpnoise may lay the same options out otherwise: its result would be read under the wrong bounds.
  if (canonical(layout) !== canonical(file.layout))
    throw new RangeError('dpnoise: the plan file lays its result out as another version of dpnoise did: write the plan again and rerun its query.');
  if (!Array.isArray(o.rows)) throw new TypeError(`dpnoise: \`rows\` must be the result's rows, an array of objects; got ${describeKind(o.rows)}.`);
  const result = readResultRows(o.rows, spec, plan.layout, file.id);
  budget?.spend(plan.privacy);
  return released(spec, plan, totalsOfResult(result, spec, plan.layout), rng);
}
