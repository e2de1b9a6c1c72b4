/**
 * The `dpnoise/aggregate` entry: private statistics of tables (JavaScript rows; files and DuckDB
 * tables through the optional peer dependency @duckdb/node-api; PostgreSQL tables through pg;
 * ClickHouse tables over its HTTP interface; and the SQL for warehouses, with the release of its
 * result).
 *
 * @module dpnoise/aggregate
 */
// The `dpnoise/aggregate` entry: private aggregates over tables (aggregate.ts). It loads the
// WebAssembly module as the default entry does; DuckDB is loaded only for files and DuckDB tables.
import '../wasm/embedded-init.js';
export {
  aggregate,
  planAggregate,
  type AccuracyLine,
  type AggregateLine,
  type AggregateOptions,
  type AggregateTarget,
  type PlanAggregateOptions,
  type AggregatePlan,
  type AggregateResult,
  type Estimate,
  type PrivateBounds,
} from './aggregate.js';
export type { AggregateRow, HistogramBin, RowOf } from './row-types.js';
export type { AggregateSource, AggregateSpec, Bounds, FindableBounds } from './spec.js';
export type { ArqueroTableLike, ArrowFieldLike, ArrowTableLike, ArrowTypeLike, ArrowVectorLike } from './columnar.js';
export type { WarnAbove } from './guarantee.js';
export {
  aggregateFromTotals,
  type AggregateFromTotalsOptions,
  type AggregatePlanFile,
  type AggregateQuery,
  aggregateSql,
  type AggregateSqlOptions,
} from './warehouse.js';
export { DIALECTS, type DialectName } from './dialect.js';
