// How every engine reads a cell (docs/aggregates.md, "Reading values"): one rule, so that the same
// table gives the same totals in memory, in DuckDB and in PostgreSQL, and so that reading a value
// can never fail (a failure after the charge would let one row decide whether a release happens).
// A number is a number of the engine (finite), or text of a plain decimal; its value is the
// nearest double, and it is invalid where that is not finite. Units and groups are keyed by
// their text, a number by JavaScript's shortest text of it.

/** The longest text read as a number: PostgreSQL's NUMERIC takes every such decimal (at most 1000 digits, exponent below 10^4). */
export const NUMBER_TEXT_LENGTH = 1000;

/**
 * A plain decimal: optional spaces or tabs, a sign, digits with an optional point (or a point and
 * digits), an exponent of at most four digits, spaces or tabs. Written so that JavaScript, RE2
 * (DuckDB, BigQuery), Java (Spark SQL) and PostgreSQL's regular expressions read it alike: no
 * escapes, the point and the blanks in brackets (the tab a literal character).
 */
export const NUMBER_PATTERN = '^[ \t]*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]{1,4})?[ \t]*$';
const NUMBER = new RegExp(NUMBER_PATTERN);

/** Whether a text is read as a number (then Number() of it is its nearest double). */
export const isNumberText = (text: string): boolean => text.length <= NUMBER_TEXT_LENGTH && NUMBER.test(text);

/** A cell as a finite double, or undefined: a finite number, a bigint, or text read by the rule. */
export function readNumber(value: unknown): number | undefined {
  const x =
    typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : typeof value === 'string' && isNumberText(value) ? Number(value) : NaN;
  return Number.isFinite(x) ? x : undefined;
}

/**
 * The key of a unit or a group value in memory: its text, a finite number's (or bigint's) by
 * JavaScript's shortest text, so that 1, '1' and 1n are one unit; undefined for anything else (no
 * unit, no group).
 */
export function keyOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** The exact decimal of 2^1024 - 2^970: the least magnitude whose nearest double is infinite. */
export const OVERFLOW = String(2n ** 1024n - 2n ** 970n);
/** The exact decimal of 2^-1075: magnitudes up to it round to zero (a tie goes to the even zero). */
export const UNDERFLOW = `0.${String(5n ** 1075n).padStart(1075, '0')}`;
