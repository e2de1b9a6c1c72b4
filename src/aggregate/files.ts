// Files DuckDB reads for an aggregate (docs/aggregates.md, "Files"), read so that nothing before
// the charge looks at a data row: a CSV file's header is read here, its delimiter taken from the
// header alone, and every column is then read as text under that header (DuckDB's sniffer, which
// reads thousands of rows to guess a dialect and types, never runs); an NDJSON file is read line
// by line as text, each line's keys taken from the JSON; a Parquet file's schema is its metadata.
// A row the reader cannot read (a wrong number of fields, bytes that are not UTF-8, a line beyond
// DuckDB's 2 MB, a line that is not a JSON object) is left out and counted as invalid after the
// charge. Only a local file is read: no URL, no glob.
import { describe } from '../core/validate.js';
import type { Column } from './dialect.js';
import { DIALECT } from './dialect.js';

const { identifier, text } = DIALECT.duckdb;

/** The formats, by the file's extension (with .gz, compressed). */
const FORMATS = [
  [/\.csv(\.gz)?$/i, 'csv'],
  [/\.tsv(\.gz)?$/i, 'tsv'],
  [/\.parquet$/i, 'parquet'],
  [/\.(ndjson|jsonl|json)(\.gz)?$/i, 'ndjson'],
] as const;
type Format = (typeof FORMATS)[number][1];

/** A file as DuckDB reads it: the FROM clause, its columns, and the query that counts the rows it could not read. */
export interface FileSource {
  readonly path: string;
  readonly from: string;
  readonly columns: Column[];
  readonly unread: string | undefined;
}

/** The header row is at most this long: more is not a header. */
const HEADER_BYTES = 1 << 20;
/** Delimiters taken from a header: the first that occurs in it outside quotes. */
const DELIMITERS = [',', '\t', ';', '|'];
/** A character no JSON line holds unescaped: the NDJSON reader's field delimiter, so that a line is one field. */
const UNIT_SEPARATOR = '\u001f';

/** Node's modules for files, loaded on first use through variable specifiers: bundlers for the browser (where files are not read) leave them alone. */
async function nodeModules() {
  const [fs, path, zlib] = ['node:fs', 'node:path', 'node:zlib'];
  return {
    fs: (await import(/* @vite-ignore */ fs)) as typeof import('node:fs'),
    path: (await import(/* @vite-ignore */ path)) as typeof import('node:path'),
    zlib: (await import(/* @vite-ignore */ zlib)) as typeof import('node:zlib'),
  };
}
type NodeModules = Awaited<ReturnType<typeof nodeModules>>;

/** The absolute path of a local regular file, or a TypeError before anything is read. */
export async function localFile(path: string): Promise<string> {
  const { fs, path: paths } = await nodeModules();
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) && !/^[a-z]:[\\/]/i.test(path))
    throw new TypeError(
      `dpnoise: \`table\` must be a local file; got ${JSON.stringify(path)}, which DuckDB would fetch (load remote data into a DuckDB table of your own and pass { connection, table }).`,
    );
  if (/[*?[\]{}]/.test(path))
    throw new TypeError(`dpnoise: \`table\` must name one file; got ${JSON.stringify(path)}, which DuckDB would read as a glob pattern of several.`);
  const absolute = paths.resolve(path);
  let isFile = false;
  try {
    isFile = fs.statSync(absolute).isFile();
  } catch {}
  if (!isFile) throw new TypeError(`dpnoise: \`table\` must be a file that exists; got ${JSON.stringify(path)}.`);
  return absolute;
}

/** The file's format, by its extension. */
export function formatOf(path: string): Format {
  const found = FORMATS.find(([pattern]) => pattern.test(path));
  if (found === undefined)
    throw new TypeError(`dpnoise: \`table\` must be a CSV, TSV, Parquet or NDJSON file (by its extension, .gz allowed); got ${JSON.stringify(path)}.`);
  return found[1];
}

/** The first bytes of a file, uncompressed. */
function head({ fs, zlib }: NodeModules, path: string): Uint8Array {
  const fd = fs.openSync(path, 'r');
  try {
    const buffer = new Uint8Array(HEADER_BYTES);
    const bytes = buffer.subarray(0, fs.readSync(fd, buffer, 0, HEADER_BYTES, 0));
    return /\.gz$/i.test(path) ? zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH }) : bytes;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The fields of a CSV file's first record (its header), and the delimiter they are split by. Only
 * that record's bytes are read as text: up to the first line end outside quotes (a byte search,
 * which UTF-8 allows).
 */
async function csvHeader(path: string, format: 'csv' | 'tsv'): Promise<{ names: string[]; delimiter: string }> {
  const bytes = head(await nodeModules(), path);
  let inQuotes = false;
  let end = 0;
  for (; end < bytes.length; end++) {
    const b = bytes[end];
    if (b === 0x22) inQuotes = !inQuotes;
    else if (!inQuotes && (b === 0x0a || b === 0x0d)) break;
  }
  if (end === HEADER_BYTES) throw new TypeError('dpnoise: the file must begin with a header row (its first line has no end).');
  let line: string;
  try {
    line = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end)); // drops a byte order mark
  } catch {
    throw new TypeError('dpnoise: the file must begin with a header row in UTF-8.');
  }
  if (line.trim() === '') throw new TypeError('dpnoise: the file must begin with a header row; its first line is empty.');
  const unquoted = line.replaceAll(/"[^"]*"/g, '');
  const delimiter = format === 'tsv' ? '\t' : (DELIMITERS.find((d) => unquoted.includes(d)) ?? ',');
  const names: string[] = [];
  let field = '';
  inQuotes = false;
  for (let i = 0; i <= line.length; i++) {
    const c = line[i];
    if (inQuotes && c === '"' && line[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (c === delimiter || c === undefined)) {
      names.push(field);
      field = '';
    } else field += c ?? '';
  }
  return { names, delimiter };
}

/**
 * The position of each needed column in a header, or a TypeError naming the column: missing, or
 * given twice. The header's other names are not shown (a file without one would show a row).
 */
function positions(names: readonly string[], needed: readonly string[]): number[] {
  return needed.map((name) => {
    const at = names.indexOf(name);
    if (at < 0)
      throw new TypeError(
        `dpnoise: the table has no column ${JSON.stringify(name)} (it has ${names.length} columns, not named here: a file without a header row would show its first row of data).`,
      );
    if (names.indexOf(name, at + 1) >= 0) throw new TypeError(`dpnoise: the table has two columns named ${JSON.stringify(name)}.`);
    return at;
  });
}

/** The text columns of a file read as text: each needed column once, under its name. */
const textColumns = (needed: readonly string[]): Column[] => needed.map((name) => ({ name, type: 'text' }));

/** The options every text read takes: no sniffing, rows it cannot read left out and recorded. */
const STRICT = 'auto_detect = false, ignore_errors = true, store_rejects = true';

/** A CSV or TSV file at a local `path` (localFile), each needed column as text (by default every column of its header, read once). */
export async function csvSource(path: string, format: 'csv' | 'tsv', wanted?: readonly string[]): Promise<FileSource> {
  const { names, delimiter } = await csvHeader(path, format);
  const needed = wanted ?? names;
  const at = positions(names, needed);
  const declared = names.map((_, i) => `${text(`c${i}`)}: 'VARCHAR'`).join(', ');
  const read = `read_csv(${text(path)}, header = true, columns = {${declared}}, delim = ${text(delimiter)}, quote = '"', escape = '"', allow_quoted_nulls = false, ${STRICT})`;
  const select = needed.map((name, i) => `c${at[i]} AS ${identifier(name)}`).join(', ');
  // Every column is read (a condition on all of them, always true): DuckDB 1.5.6 fails ("INTERNAL
  // Error: Attempted to access index 3 within vector of size 2") on a row it rejects when the query
  // reads some of its columns only, so that one bad row would stop the release.
  const all = `hash(${names.map((_, i) => `c${i}`).join(', ')}) IS NOT NULL`;
  return { path, from: `(SELECT ${select} FROM ${read} WHERE ${all})`, columns: textColumns(needed), unread: 'SELECT count(*) AS n FROM reject_errors' };
}

/** An NDJSON file: each line a row, each needed column its key's value as text (an object's as its JSON), where the line is a JSON object. */
function ndjsonSource(path: string, needed: readonly string[]): FileSource {
  const bad = needed.find((name) => /["\\]/.test(name));
  if (bad !== undefined) throw new TypeError(`dpnoise: an NDJSON file's column must be named without " or \\; got ${JSON.stringify(bad)}.`);
  const read = `read_csv(${text(path)}, header = false, columns = {'line': 'VARCHAR'}, delim = ${text(UNIT_SEPARATOR)}, quote = '', escape = '', ${STRICT})`;
  const lines = `(SELECT line, CASE WHEN json_valid(line) THEN json_type(line) = 'OBJECT' ELSE false END AS object FROM ${read} WHERE line IS NOT NULL)`;
  const select = needed.map((name) => `CASE WHEN object THEN json_extract_string(line, ${text(`$."${name}"`)}) END AS ${identifier(name)}`);
  return {
    path,
    from: `(SELECT ${select.join(', ')} FROM ${lines} l)`,
    columns: textColumns(needed),
    unread: `SELECT (SELECT count(*) FROM ${lines} l WHERE NOT object) + (SELECT count(*) FROM reject_errors) AS n`,
  };
}

/** The file at `path` as DuckDB reads it for the `needed` columns (a Parquet file's columns and types come from its schema, read by the engine). */
export async function fileSource(path: unknown, needed: readonly string[]): Promise<FileSource | { path: string; parquet: string }> {
  if (typeof path !== 'string') throw new TypeError(`dpnoise: \`table\` must be a file path; got ${describe(path)}.`);
  const format = formatOf(path);
  const file = await localFile(path);
  if (format === 'parquet') return { path: file, parquet: `read_parquet(${text(file)})` };
  return format === 'ndjson' ? ndjsonSource(file, needed) : csvSource(file, format, needed);
}
