// The SQL dialects an aggregate's query is rendered in (sql.ts; ClickHouse's in clickhouse-sql.ts):
// the engines dpnoise runs it on (DuckDB, PostgreSQL, ClickHouse) and the warehouses it is printed
// for (BigQuery, Spark SQL). They differ in
// quoting, type names, the random function, the arg_min aggregate, how a list of rows is written,
// and how a cell is read by the one rule of values.ts; everything else is one rendering
// (docs/aggregates.md, "Engines"). A literal is valid whatever the server's settings: PostgreSQL's
// are E'...' strings, read the same with standard_conforming_strings on or off.
import { NUMBER_PATTERN, NUMBER_TEXT_LENGTH, OVERFLOW, UNDERFLOW } from './values.js';

/** The dialects, by name. */
export const DIALECTS = ['duckdb', 'postgres', 'bigquery', 'spark', 'clickhouse'] as const;
/**
 * A dialect's name: a warehouse aggregateSql writes for.
 *
 * @group Aggregates
 */
export type DialectName = (typeof DIALECTS)[number];

/**
 * How the engine stores a column (its schema, public): a binary number (integers and floats), an
 * exact decimal (PostgreSQL's NUMERIC), text, anything else, or unknown (a warehouse's query is
 * written without its schema).
 */
export type ColumnType = 'number' | 'decimal' | 'text' | 'other' | 'unknown';

/** A column of the source: its name and type. */
export interface Column {
  readonly name: string;
  readonly type: ColumnType;
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
  /** An expression (of a column of the given type) as a double by the one rule, NULL where it is not a number; never an error (an error could quote the value). */
  number(expression: string, type: ColumnType): string;
  /** The literal the dialect's cast reads as +Infinity. */
  readonly infinity: string;
  /** A uniform random number, drawn afresh for every row and every run. */
  readonly random: string;
  /**
   * The aggregate giving `value` at the row of least `key` (DuckDB's arg_min), where the dialect
   * has one: an aggregation the engine can spill to disk, where a window may hold every row in memory.
   */
  readonly argMin?: (value: string, key: string) => string;
  /** A table (k, gi) of the given rows (k a literal already written). */
  values(rows: ReadonlyArray<readonly [string, number]>): string;
}

const doubled = (quote: string) => (value: string) => `${quote}${value.replaceAll(quote, quote + quote)}${quote}`;

/** A control character (C0, DEL, and the line and paragraph separators) as \uXXXX. */
const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * BigQuery's and Spark's string literals: a backslash escapes, and a raw newline is refused by
 * BigQuery's lexer, so every control character is written as an escape.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it escapes.
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/g;
const backslashed = (value: string) => `'${value.replaceAll(/[\\'"]/g, (c) => `\\${c}`).replaceAll(CONTROL, unicodeEscape)}'`;

/** PostgreSQL's E'...' literal: a backslash and a quote escaped, read alike whatever standard_conforming_strings says. */
const escapeString = (value: string) => `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

const standardValues = (rows: ReadonlyArray<readonly [string, number]>) =>
  `SELECT * FROM (VALUES ${rows.map(([k, gi]) => `(${k}, ${gi})`).join(', ')}) v(k, gi)`;

/** The text of the rule's pattern as a literal of the dialect, and the length bound: a text matching both is read as a number. */
const numberTextTest = (dialect: { text(value: string): string }, t: string, matches: (t: string, pattern: string) => string) =>
  `length(${t}) <= ${NUMBER_TEXT_LENGTH} AND ${matches(t, dialect.text(NUMBER_PATTERN))}`;

const duckdb: Dialect = {
  name: 'duckdb',
  identifier: doubled('"'),
  text: doubled("'"),
  double: 'DOUBLE',
  bigint: 'BIGINT',
  string: 'VARCHAR',
  // TRY_CAST rounds a decimal text to the nearest double (and trims blanks); the pattern rules out what else it takes ('1_000', 'inf').
  number: (x, type) => {
    if (type === 'number' || type === 'decimal') return `TRY_CAST(${x} AS DOUBLE)`;
    const t = type === 'text' ? x : `CAST(${x} AS VARCHAR)`;
    return `CASE WHEN ${numberTextTest(duckdb, t, (s, p) => `regexp_full_match(${s}, ${p})`)} THEN TRY_CAST(${t} AS DOUBLE) END`;
  },
  infinity: 'Infinity',
  random: 'random()',
  argMin: (value, key) => `arg_min(${value}, ${key})`,
  values: standardValues,
};

/**
 * PostgreSQL: a NUMERIC (or a text matching the rule, through NUMERIC) becomes the nearest double
 * only within the doubles' range, as the cast raises beyond it (and to zero below it): nested
 * CASEs, since PostgreSQL may evaluate AND's operands in either order.
 */
function postgresDecimal(n: string): string {
  return `CASE WHEN abs(${n}) < ${OVERFLOW} THEN (CASE WHEN abs(${n}) <= ${UNDERFLOW} THEN CAST(0 AS FLOAT8) ELSE CAST(${n} AS FLOAT8) END) END`;
}

const postgres: Dialect = {
  name: 'postgres',
  identifier: doubled('"'),
  text: escapeString,
  double: 'FLOAT8',
  bigint: 'BIGINT',
  string: 'VARCHAR',
  number: (x, type) => {
    if (type === 'number') return `CAST(${x} AS FLOAT8)`;
    if (type === 'decimal') return postgresDecimal(x);
    const t = type === 'text' ? x : `CAST(${x} AS TEXT)`;
    return `CASE WHEN length(${t}) <= ${NUMBER_TEXT_LENGTH} THEN (CASE WHEN ${t} ~ ${escapeString(NUMBER_PATTERN)} THEN ${postgresDecimal(`CAST(${t} AS NUMERIC)`)} END) END`;
  },
  infinity: 'Infinity',
  random: 'random()',
  values: standardValues,
};

const bigquery: Dialect = {
  name: 'bigquery',
  // Escapes as in its string literals: a raw newline is refused in a quoted identifier too.
  identifier: (name) => `\`${name.replaceAll(/[\\`]/g, (c) => `\\${c}`).replaceAll(CONTROL, unicodeEscape)}\``,
  text: backslashed,
  double: 'FLOAT64',
  bigint: 'INT64',
  string: 'STRING',
  // The pattern decides on the value's text; the value is cast itself (a number exactly), or trimmed text, which SAFE_CAST does not trim.
  number: (x) => {
    const t = `CAST(${x} AS STRING)`;
    return `CASE WHEN ${numberTextTest(bigquery, t, (s, p) => `REGEXP_CONTAINS(${s}, ${p})`)} THEN COALESCE(SAFE_CAST(${x} AS FLOAT64), SAFE_CAST(TRIM(${t}, ' \\t') AS FLOAT64)) END`;
  },
  infinity: 'inf',
  random: 'RAND()',
  argMin: (value, key) => `MIN_BY(${value}, ${key})`,
  values: (rows) => `SELECT * FROM UNNEST([${rows.map(([k, gi]) => `STRUCT(${k} AS k, ${gi} AS gi)`).join(', ')}])`,
};

const spark: Dialect = {
  name: 'spark',
  identifier: doubled('`'),
  text: backslashed,
  double: 'DOUBLE',
  bigint: 'BIGINT',
  string: 'STRING',
  // TRY_CAST trims the text and rounds it to the nearest double (Java's parseDouble); the pattern rules out what else it takes ('NaN', '1d').
  number: (x) => {
    const t = `CAST(${x} AS STRING)`;
    return `CASE WHEN ${numberTextTest(spark, t, (s, p) => `${s} RLIKE ${p}`)} THEN TRY_CAST(${x} AS DOUBLE) END`;
  },
  infinity: 'Infinity',
  random: 'rand()',
  argMin: (value, key) => `min_by(${value}, ${key})`,
  values: (rows) => `SELECT * FROM VALUES ${rows.map(([k, gi]) => `(${k}, ${gi})`).join(', ')} AS v(k, gi)`,
};

/** A control character (C0 and DEL) as ClickHouse's \xHH; the line and paragraph separators are plain UTF-8 there. */
const hexEscape = (c: string) => (c.charCodeAt(0) < 0x80 ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c);

/** ClickHouse's string literal: a backslash and a quote escaped by a backslash, control characters as \xHH. */
const clickhouseText = (value: string) => `'${value.replaceAll(/[\\']/g, (c) => `\\${c}`).replaceAll(CONTROL, hexEscape)}'`;

/**
 * ClickHouse's backquoted identifier: a backslash escaped, a backquote doubled (which 18.16 reads
 * as one, and which parsers that know no backslash escape in identifiers read alike), control
 * characters as \xHH.
 */
const clickhouseIdentifier = (name: string) => `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '``').replaceAll(CONTROL, hexEscape)}\``;

/** Powers of ten 10^0 to 10^22, each exactly a double (5^22 < 2^53), as literals ClickHouse reads exactly (strtod). */
const POWERS_OF_TEN = `[${Array.from({ length: 23 }, (_, k) => `1e${k}`).join(', ')}]`;

/**
 * ClickHouse 18.16 reads a text as a double to within a unit in the last place, not always the
 * nearest (toFloat64OrNull('-5.94') is 2^-50 off), so a plain decimal of at most 15 significant
 * digits and a power of ten within 10^22 is read exactly: its digits as an integer, multiplied or
 * divided once by the power, both exact doubles, so the one rounding is IEEE's (docs/aggregates.md,
 * "On a cluster"). Anything else (longer, or a larger exponent) goes to toFloat64OrNull.
 */
function clickhouseDecimal(t: string): string {
  const trimmed = `replaceRegexpAll(${t}, '^[ \\t]+|[ \\t]+$', '')`;
  const mantissa = `replaceRegexpOne(${trimmed}, '[eE].*$', '')`;
  const significant = `replaceRegexpOne(replaceRegexpAll(${mantissa}, '[^0-9]', ''), '^0+', '')`;
  const power = `(toInt32OrZero(replaceRegexpOne(${trimmed}, '^[^eE]*([eE][+]?)?', '')) - toInt32(length(replaceRegexpOne(${mantissa}, '^[^.]*[.]?', ''))))`;
  const magnitude = `toFloat64(toUInt64OrZero(${significant}))`;
  const exact = `if(substring(${mantissa}, 1, 1) = '-', -1., 1.) * if(${power} >= 0, ${magnitude} * ${POWERS_OF_TEN}[${power} + 1], ${magnitude} / ${POWERS_OF_TEN}[1 - ${power}])`;
  return `if(length(${significant}) <= 15 AND abs(${power}) <= 22, ${exact}, toFloat64OrNull(replaceRegexpOne(${trimmed}, '^[+]', '')))`;
}

/**
 * ClickHouse (18.16 on): backquoted identifiers and quoted strings with backslash escapes; a
 * number of the engine (an integer, float or decimal type) as toFloat64; text by the rule
 * (clickhouseDecimal); its query is rendered by clickhouse-sql.ts (no window functions, CTEs or
 * GROUPING SETS there).
 */
const clickhouse: Dialect = {
  name: 'clickhouse',
  identifier: clickhouseIdentifier,
  text: clickhouseText,
  double: 'Float64',
  bigint: 'Int64',
  string: 'String',
  number: (x, type) => {
    if (type === 'number' || type === 'decimal') return `toFloat64(${x})`;
    const t = type === 'text' ? x : `toString(${x})`;
    return `if(length(${t}) <= ${NUMBER_TEXT_LENGTH} AND match(${t}, ${clickhouse.text(NUMBER_PATTERN)}), ${clickhouseDecimal(t)}, NULL)`;
  },
  infinity: 'inf',
  random: 'rand64()',
  argMin: (value, key) => `argMin(${value}, ${key})`,
  values: (rows) => `SELECT ${rows.map(([k, gi]) => `(${k}, ${gi})`).join(', ')}`,
};

/** A table name (schema.table allowed), each part quoted in the dialect. */
export const tableName = (table: string, dialect: Dialect): string => table.split('.').map(dialect.identifier).join('.');

export const DIALECT: Readonly<Record<DialectName, Dialect>> = { duckdb, postgres, bigquery, spark, clickhouse };
