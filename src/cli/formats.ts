// The input formats of `dpnoise release`. Each turns the input text into the output text and
// changes only the noised values: CSV is parsed strictly by csv-parse and written back with
// RFC 4180 quoting, so every other field keeps its content; an NDJSON line keeps every byte but
// the noised values' spans, so big integers, 1e400, key order and spacing survive.
import { CsvError, parse } from 'csv-parse';
import { pipeline, type Readable } from 'node:stream';
import { lines, UsageError } from './io.js';

/** The noisy values of one row (values in --columns order; the line number for messages). */
export type Noise = (values: number[], line: number) => Float64Array;

/**
 * The other fields of the input (copied unchanged), told as they become known: a CSV file's
 * before any output, an NDJSON file's as each first appears (on the first line, or later).
 */
export type OtherFields = (fields: readonly string[]) => void;

/** Turns the input text into the output text, piece by piece. */
export type Format = (text: Readable, names: readonly string[], noise: Noise, others: OtherFields) => AsyncGenerator<string>;

/** A decimal number, or NaN (Number() alone would also take "0x10", "0b1", "Infinity" or ""). */
export const decimal = (text: string) => (/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : NaN);

/** A cell to be noised as a number; it is private, so an error names its place, never its text. */
function finite(text: string, where: string): number {
  const x = decimal(text);
  if (!Number.isFinite(x)) throw new UsageError(`${where}: the value is not a finite number.`);
  return x;
}

/** Each name's position in the header, which must hold it exactly once. */
function positions(header: readonly string[], names: readonly string[]): number[] {
  return names.map((name) => {
    const at = header.flatMap((field, i) => (field === name ? [i] : []));
    // The header's fields are not shown: in a file without a header row they are data.
    if (at.length === 0)
      throw new UsageError(
        `column "${name}" is not in the header (${header.length} fields, not named here: a file without a header row would show its first row of data).`,
      );
    if (at.length > 1) throw new UsageError(`column "${name}" appears ${at.length} times in the header, so which one to noise is ambiguous.`);
    return at[0]!;
  });
}

const quote = (field: string) => (/[",\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field);
/** One CSV line, each field quoted when it must be. */
export const csvLine = (fields: readonly string[]) => `${fields.map(quote).join(',')}\n`;

/**
 * CSV with a header row. Strict: a quote inside an unquoted field, an unclosed quote or a row
 * with another number of fields than the header is an error with its line number. A UTF-8 BOM
 * is dropped; blank lines are skipped.
 */
export const csv: Format = async function* (text, names, noise, others) {
  const parser = parse({ bom: true, skip_empty_lines: true, info: true });
  pipeline(text, parser, () => {});
  let where: number[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (where === undefined) {
        where = positions(record, names);
        others(record.filter((field) => !names.includes(field)));
      } else {
        const line = info.lines;
        const values = where.map((at, k) => finite(record[at]!, `line ${line}, column "${names[k]}"`));
        const noisy = noise(values, line);
        where.forEach((at, k) => {
          record[at] = String(noisy[k]);
        });
      }
      yield csvLine(record);
    }
  } catch (error) {
    // csv-parse's message can quote a field (an opening quote's); its title and line cannot.
    throw error instanceof CsvError ? new UsageError(`the input is not valid CSV: ${error.message.split(':', 1)[0]} at line ${error.lines}.`) : error;
  }
};

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

/** The end of the JSON string starting at `i` (its opening quote). */
function stringEnd(line: string, i: number): number {
  let j = i + 1;
  while (line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
  return j + 1;
}

/** The end of the JSON value starting at `i`. */
function valueEnd(line: string, i: number): number {
  const c = line[i];
  if (c === '"') return stringEnd(line, i);
  let j = i;
  if (c === '{' || c === '[') {
    for (let depth = 0; ; ) {
      const d = line[j];
      if (d === '"') {
        j = stringEnd(line, j);
        continue;
      }
      if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') depth--;
      j++;
      if (depth === 0) return j;
    }
  }
  while (j < line.length && !isSpace(line[j]) && line[j] !== ',' && line[j] !== '}') j++;
  return j;
}

/**
 * The spans [start, end) of the values of a JSON object's top-level keys, key by key (a key
 * may repeat). The text from `from` must already be known to be a valid JSON object.
 */
function valueSpans(line: string, from: number): Map<string, Array<[number, number]>> {
  const spans = new Map<string, Array<[number, number]>>();
  const skip = (i: number) => {
    while (isSpace(line[i])) i++;
    return i;
  };
  let i = skip(skip(from) + 1); // past '{'
  while (line[i] === '"') {
    const keyEnd = stringEnd(line, i);
    const key = JSON.parse(line.slice(i, keyEnd)) as string;
    const start = skip(skip(keyEnd) + 1); // past ':'
    const end = valueEnd(line, start);
    spans.set(key, [...(spans.get(key) ?? []), [start, end]]);
    i = skip(end);
    if (line[i] === ',') i = skip(i + 1);
  }
  return spans;
}

/**
 * NDJSON: one JSON object per line (blank lines are skipped). Each noised key must occur once
 * at the top level with a JSON number; the line is written back with only those numbers replaced.
 */
export const ndjson: Format = async function* (text, names, noise, others) {
  let n = 0;
  let first = true;
  const copied = new Set<string>();
  for await (const line of lines(text)) {
    n++;
    if (line.trim() === '') continue;
    const from = n === 1 && line.startsWith('\uFEFF') ? 1 : 0; // a BOM, kept as it is
    let record: unknown;
    try {
      record = JSON.parse(line.slice(from));
    } catch {
      throw new UsageError(`line ${n} is not JSON.`); // the parser's message quotes the line
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new UsageError(`line ${n} is not a JSON object.`);
    const spans = valueSpans(line, from);
    // Keys copied unchanged are announced as they first appear, on any line.
    const unseen = [...spans.keys()].filter((key) => !names.includes(key) && !copied.has(key));
    if (first || unseen.length > 0) others(unseen);
    for (const key of unseen) copied.add(key);
    first = false;
    const found = names.map((name) => {
      const at = spans.get(name) ?? [];
      if (at.length !== 1)
        throw new UsageError(`line ${n}: key "${name}" ${at.length === 0 ? 'is missing' : `appears ${at.length} times`}; it must appear once.`);
      return at[0]!;
    });
    const values = found.map(([start, end], k) => finite(line.slice(start, end), `line ${n}, key "${names[k]}"`));
    const noisy = noise(values, n);
    const byPosition = names.map((_, k) => k).sort((a, b) => found[a]![0] - found[b]![0]);
    let out = '';
    let at = 0;
    for (const k of byPosition) {
      out += line.slice(at, found[k]![0]) + String(noisy[k]);
      at = found[k]![1];
    }
    yield `${out + line.slice(at)}\n`;
  }
};
