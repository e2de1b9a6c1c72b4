// The SQL dialects an aggregate's query is rendered in (sql.ts): the engines dpnoise runs it on
// (DuckDB, PostgreSQL) and the warehouses it is printed for (BigQuery, Spark SQL). They differ in
// quoting, type names, the safe cast of a value to a number, the random function, the arg_min
// aggregate and how a list of rows is written; everything else is one rendering
// (docs/aggregates.md, "Engines").

/** The dialects, by name. */
export const DIALECTS = ['duckdb', 'postgres', 'bigquery', 'spark'] as const;
export type DialectName = (typeof DIALECTS)[number];

/** A column of the source: its name, and whether the engine stores it as a number (not text). */
export interface Column {
  readonly name: string;
  readonly numeric: boolean;
}

export interface Dialect {
  readonly name: DialectName;
  /** A quoted identifier. */
  identifier(name: string): string;
  /** A string literal. */
  text(value: string): string;
  readonly double: string;
  readonly bigint: string;
  readonly string: string;
  /** A value column (as `s.<column>`) as a double, NULL where it is not a number; never an error (an error could quote the value). */
  number(column: Column): string;
  /** The literal the dialect's cast reads as +Infinity. */
  readonly infinity: string;
  /** A uniform random number, drawn afresh for every row and every run. */
  readonly random: string;
  /**
   * The aggregate giving `value` at the row of least `key` (DuckDB's arg_min), where the dialect
   * has one: an aggregation the engine can spill to disk, where a window may hold every row in memory.
   */
  readonly argMin?: (value: string, key: string) => string;
  /** A table (k, gi) of the given rows. */
  values(rows: ReadonlyArray<readonly [string, number]>): string;
}

const doubled = (quote: string) => (value: string) => `${quote}${value.replaceAll(quote, quote + quote)}${quote}`;
/** BigQuery's and Spark's string literals escape with a backslash. */
const backslashed = (value: string) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** A decimal number written as text, its exponent at most 4 digits (so PostgreSQL's NUMERIC takes it). */
const DECIMAL = String.raw`'^\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]{1,4})?\s*$'`;

const standardValues = (text: (value: string) => string) => (rows: ReadonlyArray<readonly [string, number]>) =>
  `SELECT * FROM (VALUES ${rows.map(([k, gi]) => `(${text(k)}, ${gi})`).join(', ')}) v(k, gi)`;

const duckdb: Dialect = {
  name: 'duckdb',
  identifier: doubled('"'),
  text: doubled("'"),
  double: 'DOUBLE',
  bigint: 'BIGINT',
  string: 'VARCHAR',
  number: (c) => `TRY_CAST(s.${duckdb.identifier(c.name)} AS DOUBLE)`,
  infinity: 'Infinity',
  random: 'random()',
  argMin: (value, key) => `arg_min(${value}, ${key})`,
  values: standardValues(doubled("'")),
};

const postgres: Dialect = {
  name: 'postgres',
  identifier: doubled('"'),
  text: doubled("'"),
  double: 'FLOAT8',
  bigint: 'BIGINT',
  string: 'VARCHAR',
  // A number column is cast; text only where it is a plain decimal, through NUMERIC, in nested
  // CASEs (PostgreSQL may evaluate AND's operands in either order, and a failed cast quotes the text).
  number: (c) => {
    const column = `s.${postgres.identifier(c.name)}`;
    if (c.numeric) return `CAST(${column} AS FLOAT8)`;
    const t = `CAST(${column} AS TEXT)`;
    const n = `CAST(${t} AS NUMERIC)`;
    return `CASE WHEN ${t} ~ ${DECIMAL} THEN (CASE WHEN abs(${n}) < 1e308 THEN CAST(${n} AS FLOAT8) END) END`;
  },
  infinity: 'Infinity',
  random: 'random()',
  values: standardValues(doubled("'")),
};

const bigquery: Dialect = {
  name: 'bigquery',
  identifier: (name) => `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``,
  text: backslashed,
  double: 'FLOAT64',
  bigint: 'INT64',
  string: 'STRING',
  number: (c) => `SAFE_CAST(s.${bigquery.identifier(c.name)} AS FLOAT64)`,
  infinity: 'inf',
  random: 'RAND()',
  argMin: (value, key) => `MIN_BY(${value}, ${key})`,
  values: (rows) => `SELECT * FROM UNNEST([${rows.map(([k, gi]) => `STRUCT(${backslashed(k)} AS k, ${gi} AS gi)`).join(', ')}])`,
};

const spark: Dialect = {
  name: 'spark',
  identifier: doubled('`'),
  text: backslashed,
  double: 'DOUBLE',
  bigint: 'BIGINT',
  string: 'STRING',
  number: (c) => `TRY_CAST(s.${spark.identifier(c.name)} AS DOUBLE)`,
  infinity: 'Infinity',
  random: 'rand()',
  argMin: (value, key) => `min_by(${value}, ${key})`,
  values: (rows) => `SELECT * FROM VALUES ${rows.map(([k, gi]) => `(${backslashed(k)}, ${gi})`).join(', ')} AS v(k, gi)`,
};

export const DIALECT: Readonly<Record<DialectName, Dialect>> = { duckdb, postgres, bigquery, spark };
