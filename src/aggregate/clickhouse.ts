// The ClickHouse engine (engine.ts): a table, or a Distributed table over shards, on a server
// reached by its HTTP interface with the fetch built into Node and browsers, so that it needs no
// package (@clickhouse/client speaks to 18.16 too, but dpnoise sends one POST per query and
// reads JSON: nothing the client adds). The clipping, contribution bounding and totals run in the
// cluster (clickhouse-sql.ts); only the totals come back.
import { type Column, type ColumnType, DIALECT, tableName } from './dialect.js';
import type { Engine } from './engine.js';

/** ClickHouse's type names of numbers (integers, floats, decimals), Nullable or not: read as numbers; String as text. */
const NUMBER_TYPES = /^(Nullable\()?(U?Int(8|16|32|64)|Float(32|64)|Decimal(32|64|128)?\(.*\))\)?$/;
const TEXT_TYPES = /^(LowCardinality\()?(Nullable\()?String\)?\)?$/;

/** A ClickHouse type name as a column type. */
export const columnType = (name: string): ColumnType => (NUMBER_TYPES.test(name) ? 'number' : TEXT_TYPES.test(name) ? 'text' : 'other');

/**
 * Settings of every query: a query as long as 16 MiB (a long list of declared groups; the
 * default is 256 KiB), and 64-bit integers as JSON strings (read exactly).
 */
const SETTINGS = { max_query_size: '16777216', output_format_json_quote_64bit_integers: '1' };

/** A failure of the server: its code (`Code: 60`) as the error's, its message as ClickHouse wrote it. */
class ServerError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** The server's message without its stack: "Code: 60, e.displayText() = DB::Exception: Table x doesn't exist., e.what() = ..." as "Table x doesn't exist.". */
const displayText = (body: string) => /e\.displayText\(\) = DB::Exception: ([\s\S]*?)(, e\.what\(\)|$)/.exec(body)?.[1]?.trim() ?? body.trim().slice(0, 500);

/**
 * The server at `url` (http or https; user and password in it, or as its `user` and `password`
 * parameters), as a function running a query and returning its JSON result. Credentials go in an
 * Authorization header (fetch refuses a URL that holds them) and are never part of a message.
 */
function serverAt(url: string): (sql: string) => Promise<{ meta: Array<{ name: string; type: string }>; data: Record<string, unknown>[] }> {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new TypeError('dpnoise: `table.clickhouse` must be the URL of a ClickHouse server (http://host:8123); got a string that is not a URL.');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new TypeError(
      `dpnoise: \`table.clickhouse\` must be an http or https URL of a ClickHouse server; got one of protocol ${JSON.stringify(base.protocol)}.`,
    );
  const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8' };
  if (base.username !== '' || base.password !== '') {
    const credentials = `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`;
    headers.Authorization = `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(credentials)))}`;
    base.username = '';
    base.password = '';
  }
  for (const [name, value] of Object.entries(SETTINGS)) base.searchParams.set(name, value);
  const endpoint = base.toString();
  return async (sql) => {
    let response: Response;
    try {
      response = await fetch(endpoint, { method: 'POST', headers, body: `${sql}\nFORMAT JSON` });
    } catch (error) {
      const cause = (error as { cause?: { code?: unknown } }).cause?.code;
      throw new Error(`dpnoise: cannot connect to the ClickHouse server of \`table.clickhouse\` (${typeof cause === 'string' ? cause : 'no answer'}).`);
    }
    const body = await response.text();
    if (!response.ok) throw new ServerError(displayText(body), `ClickHouse ${/^Code: (\d+)/.exec(body)?.[1] ?? response.status}`);
    return JSON.parse(body);
  };
}

/** A ClickHouse engine over `table` (database.table allowed) on the server at `clickhouse`. */
export async function openClickHouse(source: { clickhouse: string; table: string }): Promise<Engine> {
  const query = serverAt(source.clickhouse);
  const from = tableName(source.table, DIALECT.clickhouse);
  return {
    dialect: 'clickhouse',
    from,
    columns: async (): Promise<Column[]> => {
      try {
        // DESCRIBE reads the schema only.
        const { data } = await query(`DESCRIBE TABLE ${from}`);
        return data.map((r) => ({ name: String(r.name), type: columnType(String(r.type)) }));
      } catch (error) {
        // The server's message names the table or the failure, not the data (no row is read).
        if (error instanceof ServerError) throw new Error(`dpnoise: ClickHouse cannot read the table ${from}: ${error.message}`);
        throw error;
      }
    },
    rows: async (sql) => (await query(sql)).data,
    close: async () => {},
  };
}
