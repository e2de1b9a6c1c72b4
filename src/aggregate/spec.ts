// What an aggregate asks for, read once from the caller's options and checked before any data is
// read: the statistics with their public bounds, the groups, the privacy unit and its contribution
// bounds. Everything here is public: it decides the noise, so none of it may come from the data.
import { describe, fail, integerIn, numberIn, oneOf, readOptions } from '../core/validate.js';
import { readNumber } from './values.js';
import { readWarnAbove, type WarnAbove } from './guarantee.js';
import { type ArqueroTableLike, type ArrowTableLike, isColumnar } from './columnar.js';
import { DEFAULT_MAX_EXPONENT, MIN_EXPONENT, type SearchSpec, VALUE_LIMIT, VARIANCE_MAX_EXPONENT, widestCandidate } from './bounds-search.js';

/**
 * A column's declared range, [lower, upper].
 *
 * @group Aggregates
 */
export type Bounds = readonly number[];
/** Bounds, checked. */
export type Interval = readonly [number, number];

/**
 * A column's range for a sum, mean or variance: declared, [lower, upper]; or with an end written
 * 'private', found privately from the data at a share of the budget (`boundsShare`): `'private'`
 * (or `['private', 'private']`) for [-b, b], `[0, 'private']` for [0, b], `['private', 100]`
 * (docs/aggregates.md, "Bounds found privately").
 *
 * @group Aggregates
 */
export type FindableBounds = Bounds | 'private' | readonly [number | 'private', number | 'private'];

/** A sum's, mean's or variance's column and bounds; with `found`, its bounds are found privately, `bounds` holding the widest candidate until then. */
export interface BoundedColumn {
  readonly column: string;
  readonly bounds: Interval;
  readonly found?: SearchSpec;
}

/**
 * Where the rows come from: JavaScript row objects, an Apache Arrow table or an Arquero table (no
 * engine needed; read column by column), a local file DuckDB reads (CSV,
 * TSV, Parquet or NDJSON, by extension; .gz allowed), a table (or view) on a DuckDB connection or a PostgreSQL
 * client or pool of the caller's, or a table in the PostgreSQL database of a connection string.
 *
 * @group Aggregates
 */
export type AggregateSource =
  | readonly Readonly<Record<string, unknown>>[]
  | ArrowTableLike
  | ArqueroTableLike
  | string
  | {
      /** A DuckDB connection (`DuckDBConnection` of @duckdb/node-api, or `AsyncDuckDBConnection` of @duckdb/duckdb-wasm), or a PostgreSQL `Client` or `Pool` of pg. */
      connection: unknown;
      /** A table or view on it (schema.table allowed). */
      table: string;
    }
  | {
      /** A PostgreSQL connection string (`postgres://user@host/db`); dpnoise connects with pg and disconnects when done. */
      postgres: string;
      /** A table or view in that database (schema.table allowed). */
      table: string;
    }
  | {
      /** The HTTP URL of a ClickHouse server (`http://user:password@host:8123`); dpnoise queries it with fetch. */
      clickhouse: string;
      /** A table on it (database.table allowed): a MergeTree table, or a Distributed table over shards. */
      table: string;
    };

/**
 * The statistics and their settings (see aggregate).
 *
 * @group Aggregates
 */
export interface AggregateSpec {
  /** The rows: an array of objects, an Arrow or Arquero table, a file path, `{ connection, table }` with a DuckDB connection or a PostgreSQL client or pool, `{ postgres, table }` with a connection string, or `{ clickhouse, table }` with a ClickHouse server's URL. */
  table: AggregateSource;
  /** The column naming the person (or other unit) to protect; without it each row is its own unit. */
  privacyUnit?: string;
  /** The column whose values are the groups (without it, one group, 'all'). */
  groupBy?: string;
  /**
   * The groups to release (public: declared, never taken from the data). When every one is a
   * number or a text of one (`[1, 2]`, `['1', '2']`) the column's values are matched by value (1.0
   * and '1' are the group 1), otherwise by text (docs/aggregates.md, "Reading values"). Without
   * them, with `groupBy`, the groups are selected privately: a group is released when its noisy
   * number of units passes a threshold, which needs `delta` (docs/aggregates.md, "Partition
   * selection").
   */
  groups?: readonly (string | number)[];
  /** With `privacyUnit`: the most groups one unit's rows count in (default: every declared group; required when groups are selected). */
  maxGroups?: number;
  /** With `privacyUnit`: the most rows one unit's rows count in each group (default 1). */
  maxRows?: number;
  /** Release the number of rows per group. */
  count?: boolean;
  /**
   * Release the number of distinct privacy units per group (people, not rows), among the units
   * kept after bounding (each counts in at most `maxGroups` groups); without `privacyUnit`, each
   * row is a unit.
   */
  units?: boolean;
  /**
   * Counts (rows, units, histogram bins, the diagnostics' counts) as whole numbers at least 0:
   * post-processing of the noisy values, which costs no privacy; each interval keeps the whole
   * numbers within it (docs/aggregates.md, "Intervals"). Default false.
   */
  integerCounts?: boolean;
  /**
   * Histograms consistent with the group's count: the count and every histogram's bins become the
   * least squares fit, weighed by their noise, in which each histogram adds up to the count.
   * Post-processing of the noisy values, which costs no privacy; the standard deviations are the
   * fit's (docs/aggregates.md, "Consistent histograms"). Needs `count`. Default false.
   */
  consistent?: boolean;
  /** Sums of columns, each clipped to its bounds: `{ income: [0, 500000] }`, or `{ income: [0, 'private'] }` to find the upper bound privately. */
  sum?: Readonly<Record<string, FindableBounds>>;
  /** Means of columns, each clipped to its bounds (declared, or found privately: FindableBounds). */
  mean?: Readonly<Record<string, FindableBounds>>;
  /**
   * Variances of columns, each clipped to its bounds: the rows have `variance(x)` and
   * `stddev(x)` (their population forms, dividing by the count), from the column's centred sum
   * and centred squares (docs/aggregates.md, "Variances").
   */
  variance?: Readonly<Record<string, FindableBounds>>;
  /**
   * With bounds written 'private': the share of epsilon spent finding them (default 0.1), in
   * (0, 1); the release itself is calibrated for the rest (docs/aggregates.md, "Bounds found
   * privately").
   */
  boundsShare?: number;
  /**
   * With bounds written 'private': the fraction of a column's values its found bounds are to
   * hold, by their noisy counts (default 0.95), in (0, 1).
   */
  boundsCoverage?: number;
  /**
   * With bounds written 'private': the widest a found bound may be (public), its width from the
   * declared end, or its size for `'private'`; the candidates are the powers of two from 2^-10 up
   * to it. Default 2^20 (about 1e6), and 2^10 for a column with a variance (docs/aggregates.md,
   * "Bounds found privately").
   */
  boundsLimit?: number;
  /** Quantiles of columns: `{ income: { bounds: [0, 500000], q: [0.5, 0.9] } }`. */
  quantile?: Readonly<
    Record<
      string,
      {
        /** The column's bounds. */
        bounds: Bounds;
        /** The quantile, or quantiles, in (0, 1). */
        q: number | readonly number[];
      }
    >
  >;
  /** Histograms over declared bin edges (increasing; values outside go to the end bins): `{ age: { bins: [0, 18, 65, 100] } }`. */
  histogram?: Readonly<
    Record<
      string,
      {
        /** The bin edges, increasing. */
        bins: readonly number[];
      }
    >
  >;
  /**
   * How to weigh the statistics' errors: 'range' (default) relative to each statistic's range,
   * so each gets the same error relative to its bounds (noise in proportion to sensitivity, `spr`);
   * 'equal' minimises the sum of squared errors in the columns' own units (for columns of one unit).
   */
  weights?: 'range' | 'equal';
  /** The noise: 'gaussian' (needs `delta`) or 'laplace'; by default, of those the privacy allows, the one with the smaller predicted error. */
  noise?: 'gaussian' | 'laplace';
  /**
   * How quantiles are released: 'exponential', each chosen by the exponential mechanism (most
   * accurate for a few quantiles), or 'tree', all read off one noisy tree (for many); by default,
   * the one with the smaller predicted error.
   */
  quantileMethod?: 'exponential' | 'tree';
  /** Rows with a NULL, missing or non-numeric value in a column used, or that a file's reader cannot read: 'error' (default) or 'drop'. */
  invalid?: 'error' | 'drop';
  /** Also release, with noise, how many values each column clipped (and, with `invalid: 'drop'`, how many rows were dropped), per group. */
  diagnostics?: boolean;
  /** The level of the intervals (default 0.95). */
  level?: number;
  /**
   * A group's expected number of rows (public: never from the data), for the accuracy table's
   * errors in the values' own units: a mean's, and a quantile's as if its values were spread
   * evenly over its bounds. Changes nothing in the release.
   */
  expectedCount?: number;
  /**
   * Warn (in `warnings`) when the privacy asked for promises little: epsilon above
   * `warnAbove.epsilon` (default 10) or delta above `warnAbove.delta` (default 1e-4). Changes
   * nothing in the release.
   */
  warnAbove?: WarnAbove;
  /** Called now and then while DuckDB reads the source, with DuckDB's estimate of the fraction done (for a progress bar; PostgreSQL gives none). */
  onProgress?: (fraction: number) => void;
}

interface QuantileSpec {
  column: string;
  bounds: Interval;
  q: readonly number[];
}

/** The spec, checked. */
export interface Spec {
  readonly source: AggregateSource;
  readonly unit: string | undefined;
  readonly groupBy: string | undefined;
  /** The declared groups' labels, or undefined when they are selected privately. */
  readonly groups: readonly string[] | undefined;
  /** The declared groups as numbers, when every one reads as a number: then they are matched by value, else by text. */
  readonly groupNumbers: readonly number[] | undefined;
  readonly maxGroups: number;
  readonly maxRows: number;
  readonly count: boolean;
  readonly units: boolean;
  readonly integerCounts: boolean;
  readonly consistent: boolean;
  readonly sum: readonly BoundedColumn[];
  readonly mean: readonly BoundedColumn[];
  readonly variance: readonly BoundedColumn[];
  /** With bounds found privately: the share of epsilon spent finding them, and the fraction of values they are to hold. */
  readonly findBounds: { readonly share: number; readonly coverage: number } | undefined;
  readonly quantile: readonly QuantileSpec[];
  readonly histogram: ReadonlyArray<{ column: string; edges: readonly number[] }>;
  readonly weights: 'range' | 'equal';
  readonly noise: 'gaussian' | 'laplace' | undefined;
  readonly quantileMethod: 'exponential' | 'tree' | undefined;
  readonly invalid: 'error' | 'drop';
  readonly diagnostics: boolean;
  readonly level: number;
  readonly expectedCount: number | undefined;
  readonly warnAbove: Required<WarnAbove>;
  readonly onProgress: ((fraction: number) => void) | undefined;
}

export const SPEC_OPTIONS = [
  'table',
  'privacyUnit',
  'groupBy',
  'groups',
  'maxGroups',
  'maxRows',
  'count',
  'units',
  'integerCounts',
  'consistent',
  'sum',
  'mean',
  'variance',
  'boundsShare',
  'boundsCoverage',
  'boundsLimit',
  'quantile',
  'histogram',
  'weights',
  'noise',
  'quantileMethod',
  'invalid',
  'diagnostics',
  'level',
  'expectedCount',
  'warnAbove',
  'onProgress',
] as const;

/** Bounds beyond which sums of a few million rows would lose their exactness in doubles. */
const BOUND = { min: -VALUE_LIMIT, max: VALUE_LIMIT };
/** The narrowest bounds: a sum's sensitivity, half their width or more, stays within what the calibration takes. */
const MIN_RANGE = 1e-100;
/** At most this many declared groups, bins or quantiles: the release is held in memory. */
const MAX_GROUPS = 1e5;
const MAX_BINS = 1e4;

function columnName(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new TypeError(`dpnoise: \`${name}\` must be a column name (a non-empty string); got ${describe(value)}.`);
  return value;
}

function readBounds(name: string, value: unknown): Interval {
  if (!Array.isArray(value) || value.length !== 2) throw new TypeError(`dpnoise: \`${name}\` must be bounds [lower, upper]; got ${describe(value)}.`);
  const lower = numberIn(`${name}[0]`, value[0], BOUND);
  const upper = numberIn(`${name}[1]`, value[1], BOUND);
  if (!(lower < upper)) throw new RangeError(`dpnoise: \`${name}\` must be bounds with lower < upper; got [${lower}, ${upper}].`);
  // A narrower range would make a sum's sensitivity too small to calibrate (below 2^-400).
  if (!(upper - lower >= MIN_RANGE)) throw new RangeError(`dpnoise: \`${name}\` must be bounds at least ${MIN_RANGE} apart; got [${lower}, ${upper}].`);
  return Object.freeze([lower, upper] as const);
}

/**
 * Bounds with an end written 'private' (FindableBounds): the widest candidate of the public range
 * (bounds.ts) stands in until the bounds are found.
 */
function readFindable(name: string, column: string, value: unknown, maxExponent: number): BoundedColumn {
  if (!isFindable(value)) return { column, bounds: readBounds(name, value) };
  const [lower, upper] = value === 'private' ? ['private', 'private'] : (value as unknown[]);
  const anchor = (end: number) => numberIn(`${name}[${end}]`, end === 0 ? lower : upper, BOUND);
  const found: SearchSpec =
    lower === 'private' && upper === 'private'
      ? { side: 'both', anchor: 0, maxExponent }
      : lower === 'private'
        ? { side: 'lower', anchor: anchor(1), maxExponent }
        : { side: 'upper', anchor: anchor(0), maxExponent };
  return { column, bounds: widestCandidate(found, name), found: Object.freeze(found) };
}

/** Whether bounds have an end written 'private'. */
const isFindable = (value: unknown): boolean => value === 'private' || (Array.isArray(value) && value.length === 2 && value.includes('private'));

/** The own entries of a column map, in order: `{ income: ... }`. */
function columnMap(name: string, value: unknown): Array<[string, unknown]> {
  if (value === undefined) return [];
  const o = readOptions(name, value, Object.keys(value as object));
  const entries = Object.entries(o);
  if (entries.length === 0) throw new TypeError(`dpnoise: \`${name}\` must name at least one column; got an empty object.`);
  return entries;
}

function readQuantiles(name: string, value: unknown): readonly number[] {
  const list = typeof value === 'number' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || list.length > 100) {
    throw new TypeError(`dpnoise: \`${name}\` must be a quantile in (0, 1) or a list of up to 100; got ${describe(value)}.`);
  }
  return Object.freeze(list.map((q, i) => numberIn(`${name}[${i}]`, q, { min: 0, max: 1, minOpen: true, maxOpen: true })));
}

function readEdges(name: string, value: unknown): readonly number[] {
  if (!Array.isArray(value) || value.length < 2 || value.length > MAX_BINS + 1) {
    throw new TypeError(`dpnoise: \`${name}\` must be a list of 2 to ${MAX_BINS + 1} increasing bin edges; got ${describe(value)}.`);
  }
  const edges = value.map((x, i) => numberIn(`${name}[${i}]`, x, BOUND));
  const bad = edges.findIndex((x, i) => i > 0 && !(x > edges[i - 1]!));
  if (bad > 0) throw new RangeError(`dpnoise: \`${name}\` must increase; got ${edges[bad - 1]} then ${edges[bad]}.`);
  return Object.freeze(edges);
}

/**
 * The declared groups: their labels (a number's by JavaScript's shortest text), and, when every
 * one is a number or a text read as one (values.ts), those numbers, which the column's values are
 * matched against by value ('1.0' and 1 are the group 1); otherwise they are matched by text.
 * A text with a NUL or half a surrogate pair is refused: no engine stores it as written.
 */
function readGroups(value: unknown, groupBy: string | undefined): { labels: readonly string[] | undefined; numbers: readonly number[] | undefined } {
  if (groupBy === undefined) {
    if (value !== undefined) throw new TypeError('dpnoise: `groups` needs `groupBy`, the column they are values of.');
    return { labels: ['all'], numbers: undefined };
  }
  if (value === undefined) return { labels: undefined, numbers: undefined }; // selected privately
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_GROUPS) {
    throw new TypeError(`dpnoise: \`groups\` must be a list of 1 to ${MAX_GROUPS} group values; got ${describe(value)}.`);
  }
  const labels = value.map((g, i) => {
    if (typeof g === 'string' && !/[\0\ud800-\udfff]/u.test(g)) return g;
    if (typeof g === 'number' && Number.isFinite(g)) return String(g);
    throw new TypeError(`dpnoise: \`groups[${i}]\` must be a finite number or a string (without NUL or half a surrogate pair); got ${describe(g)}.`);
  });
  const read = value.map(readNumber);
  const numbers = read.every((x) => x !== undefined) ? (read as number[]) : undefined;
  const keys: readonly unknown[] = numbers ?? labels;
  const repeated = keys.findIndex((k, i) => keys.indexOf(k) !== i);
  if (repeated >= 0) {
    const first = keys.indexOf(keys[repeated]);
    throw new RangeError(
      `dpnoise: \`groups\` lists ${JSON.stringify(labels[first])}${labels[first] === labels[repeated] ? ' twice' : ` and ${JSON.stringify(labels[repeated])}, one number`}.`,
    );
  }
  return { labels: Object.freeze(labels), numbers: numbers && Object.freeze(numbers) };
}

function readSource(value: unknown): AggregateSource {
  if (typeof value === 'string' && value.length > 0) return value;
  if (Array.isArray(value) || isColumnar(value)) return value;
  if (typeof value === 'object' && value !== null) {
    const o = readOptions('table', value, ['connection', 'postgres', 'clickhouse', 'table']);
    const table = columnName('table.table', o.table);
    if ([o.connection, o.postgres, o.clickhouse].filter((x) => x !== undefined).length > 1)
      throw new TypeError('dpnoise: `table` takes one of `connection`, `postgres` and `clickhouse`.');
    if (o.clickhouse !== undefined) {
      // The URL may hold a password: never echoed.
      if (typeof o.clickhouse !== 'string' || o.clickhouse.length === 0)
        throw new TypeError(
          `dpnoise: \`table.clickhouse\` must be the URL of a ClickHouse server; got ${typeof o.clickhouse === 'string' ? 'an empty string' : describe(o.clickhouse)}.`,
        );
      return { clickhouse: o.clickhouse, table };
    }
    if (o.postgres !== undefined) {
      // The string may hold a password: never echoed.
      if (typeof o.postgres !== 'string' || o.postgres.length === 0)
        throw new TypeError(
          `dpnoise: \`table.postgres\` must be a PostgreSQL connection string; got ${typeof o.postgres === 'string' ? 'an empty string' : describe(o.postgres)}.`,
        );
      return { postgres: o.postgres, table };
    }
    if (typeof o.connection !== 'object' || o.connection === null)
      throw new TypeError(
        `dpnoise: \`table.connection\` must be a DuckDB or DuckDB-Wasm connection, or a PostgreSQL client or pool; got ${describe(o.connection)}.`,
      );
    return { connection: o.connection, table };
  }
  throw new TypeError(
    `dpnoise: \`table\` must be an array of row objects, an Arrow or Arquero table, a file path, { connection, table }, { postgres, table } or { clickhouse, table }; got ${describe(value)}.`,
  );
}

/** The spec of options `o` (aggregate's own properties, read once). */
export function readSpec(options: unknown): Spec {
  const o = readOptions('options', options, SPEC_OPTIONS);
  const unit = o.privacyUnit === undefined ? undefined : columnName('privacyUnit', o.privacyUnit);
  const groupBy = o.groupBy === undefined ? undefined : columnName('groupBy', o.groupBy);
  const { labels: groups, numbers: groupNumbers } = readGroups(o.groups, groupBy);
  if (unit === undefined && (o.maxGroups !== undefined || o.maxRows !== undefined)) {
    throw new TypeError('dpnoise: `maxGroups` and `maxRows` bound what one privacy unit contributes: give `privacyUnit` with them.');
  }
  // Without a privacy unit each row is its own: one row, in one group.
  if (unit !== undefined && groups === undefined && o.maxGroups === undefined) {
    throw new TypeError('dpnoise: `maxGroups` must bound how many groups one unit counts in when the groups are selected privately (no `groups` given).');
  }
  const maxGroups = unit === undefined ? 1 : o.maxGroups === undefined ? groups!.length : integerIn('maxGroups', o.maxGroups, { min: 1, max: MAX_GROUPS });
  const maxRows = unit === undefined || o.maxRows === undefined ? 1 : integerIn('maxRows', o.maxRows, { min: 1, max: 1e6 });
  // The widest candidate: `boundsLimit`'s power of two, or by default narrower for a column with a variance (bounds-search.ts), in each of its statistics alike.
  const variances = new Set(columnMap('variance', o.variance).flatMap(([column, b]) => (isFindable(b) ? [column] : [])));
  const limit =
    o.boundsLimit === undefined ? undefined : Math.floor(Math.log2(numberIn('boundsLimit', o.boundsLimit, { min: 2 ** MIN_EXPONENT, max: VALUE_LIMIT })));
  const bounded = (name: string) =>
    columnMap(name, o[name]).map(([column, b]) =>
      Object.freeze(readFindable(`${name}.${column}`, column, b, limit ?? (variances.has(column) ? VARIANCE_MAX_EXPONENT : DEFAULT_MAX_EXPONENT))),
    );
  const quantile = columnMap('quantile', o.quantile).map(([column, v]) => {
    const q = readOptions(`quantile.${column}`, v, ['bounds', 'q']);
    return { column, bounds: readBounds(`quantile.${column}.bounds`, q.bounds), q: readQuantiles(`quantile.${column}.q`, q.q) };
  });
  const histogram = columnMap('histogram', o.histogram).map(([column, v]) => {
    const h = readOptions(`histogram.${column}`, v, ['bins']);
    return { column, edges: readEdges(`histogram.${column}.bins`, h.bins) };
  });
  const flag = (name: 'count' | 'units' | 'integerCounts' | 'consistent') =>
    o[name] === undefined ? false : o[name] === true || o[name] === false ? o[name] : fail(TypeError, name, 'true or false', o[name]);
  const count = flag('count');
  const units = flag('units');
  if (flag('consistent') && !count) throw new TypeError('dpnoise: `consistent` makes histograms add up to the count, so it needs `count: true`.');
  const spec: Spec = {
    source: readSource(o.table),
    unit,
    groupBy,
    groups,
    groupNumbers,
    maxGroups: groups === undefined ? maxGroups : Math.min(maxGroups, groups.length),
    maxRows,
    count,
    units,
    integerCounts: flag('integerCounts'),
    consistent: flag('consistent'),
    sum: bounded('sum'),
    mean: bounded('mean'),
    variance: bounded('variance'),
    findBounds: undefined,
    quantile,
    histogram,
    weights: o.weights === undefined ? 'range' : oneOf('weights', o.weights, ['range', 'equal'] as const),
    noise: o.noise === undefined ? undefined : oneOf('noise', o.noise, ['gaussian', 'laplace'] as const),
    quantileMethod: o.quantileMethod === undefined ? undefined : oneOf('quantileMethod', o.quantileMethod, ['exponential', 'tree'] as const),
    invalid: o.invalid === undefined ? 'error' : oneOf('invalid', o.invalid, ['error', 'drop'] as const),
    diagnostics:
      o.diagnostics === undefined
        ? false
        : o.diagnostics === true || o.diagnostics === false
          ? o.diagnostics
          : fail(TypeError, 'diagnostics', 'true or false', o.diagnostics),
    level: o.level === undefined ? 0.95 : numberIn('level', o.level, { min: 0.5, max: 1 - 1e-9 }),
    expectedCount: o.expectedCount === undefined ? undefined : numberIn('expectedCount', o.expectedCount, { min: 1, max: 2 ** 53 }),
    warnAbove: readWarnAbove(o.warnAbove),
    onProgress:
      o.onProgress === undefined || typeof o.onProgress === 'function'
        ? (o.onProgress as Spec['onProgress'])
        : fail(TypeError, 'onProgress', 'a function', o.onProgress),
  };
  if (!spec.count && !spec.units && spec.sum.length + spec.mean.length + spec.variance.length + spec.quantile.length + spec.histogram.length === 0) {
    throw new TypeError('dpnoise: ask for at least one statistic: `count`, `units`, `sum`, `mean`, `variance`, `quantile` or `histogram`.');
  }
  return Object.freeze({ ...spec, findBounds: readFindBounds(spec, o.boundsShare, o.boundsCoverage, o.boundsLimit) });
}

/** `boundsShare` and `boundsCoverage`, which only bounds written 'private' take; one column's found bounds written alike wherever it is. */
function readFindBounds(spec: Spec, share: unknown, coverage: unknown, limit: unknown): Spec['findBounds'] {
  const found = [...spec.sum, ...spec.mean, ...spec.variance].filter((s) => s.found !== undefined);
  if (found.length === 0) {
    if (share !== undefined || coverage !== undefined || limit !== undefined)
      throw new TypeError(
        "dpnoise: `boundsShare`, `boundsCoverage` and `boundsLimit` are for bounds found privately: write a bound 'private' (`mean: { age: [0, 'private'] }`).",
      );
    return undefined;
  }
  const unlike = found.find((s) => found.some((t) => t.column === s.column && (t.found!.side !== s.found!.side || t.found!.anchor !== s.found!.anchor)));
  if (unlike)
    throw new TypeError(`dpnoise: the bounds of \`${unlike.column}\` found privately must be written alike in every statistic (one search per column).`);
  const open = { min: 0, max: 1, minOpen: true, maxOpen: true };
  return Object.freeze({
    share: share === undefined ? 0.1 : numberIn('boundsShare', share, open),
    coverage: coverage === undefined ? 0.95 : numberIn('boundsCoverage', coverage, open),
  });
}

/** Every value column the spec reads (each once). */
export function valueColumns(spec: Spec): string[] {
  return [...new Set([...spec.sum, ...spec.mean, ...spec.variance, ...spec.quantile, ...spec.histogram].map((s) => s.column))];
}
