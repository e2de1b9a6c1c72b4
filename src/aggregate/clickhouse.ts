// The ClickHouse engine (engine.ts): a table, or a Distributed table over shards, on a server
// reached by its HTTP interface with what Node and browsers have built in (node:http, or fetch),
// so that it needs no package (@clickhouse/client speaks to 18.16 too, but dpnoise sends one POST
// per query and reads JSON: nothing the client adds). The clipping, contribution bounding and
// totals run in the cluster (clickhouse-sql.ts); only the totals come back.
import { type Column, type ColumnType, DIALECT, tableName } from './dialect.js';
import type { Engine } from './engine.js';

interface HttpModule {
  request(
    url: string,
    options: { method: string; headers: Record<string, string> },
    callback: (response: { statusCode?: number; setEncoding(e: string): void; on(event: string, f: (x?: unknown) => void): void }) => void,
  ): { on(event: 'error', f: (error: unknown) => void): void; end(body: string): void };
}

/**
 * One POST, its status and body. Node's http, which waits for the answer as long as the query
 * runs (fetch gives up on a response whose headers take 5 minutes: a large aggregation's do, as
 * ClickHouse answers when the result is ready); fetch where there is no node:http (a browser).
 */
async function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  let http: HttpModule | undefined;
  try {
    // A specifier in a variable: bundlers for the browser leave it alone.
    const specifier = url.startsWith('https:') ? 'node:https' : 'node:http';
    http = (await import(/* @vite-ignore */ specifier)) as HttpModule;
  } catch {
    const response = await fetch(url, { method: 'POST', headers, body });
    return { status: response.status, text: await response.text() };
  }
  const request = http.request;
  return new Promise((resolve, reject) => {
    const call = request(url, { method: 'POST', headers }, (response) => {
      const chunks: string[] = [];
      response.setEncoding('utf8');
      response.on('data', (chunk) => chunks.push(chunk as string));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: chunks.join('') }));
      response.on('error', reject);
    });
    call.on('error', reject);
    call.end(body);
  });
}

/** ClickHouse's type names of numbers (integers, floats, decimals), Nullable or not: read as numbers; String as text. */
const NUMBER_TYPES = /^(Nullable\()?(U?Int(8|16|32|64)|Float(32|64)|Decimal(32|64|128)?\(.*\))\)?$/;
const TEXT_TYPES = /^(LowCardinality\()?(Nullable\()?String\)?\)?$/;

/** A ClickHouse type name as a column type. */
export const columnType = (name: string): ColumnType => (NUMBER_TYPES.test(name) ? 'number' : TEXT_TYPES.test(name) ? 'text' : 'other');

/**
 * Settings of every query, set over the URL's and the user profile's: a query as long as 16 MiB
 * (a long list of declared groups; the default is 256 KiB); 64-bit integers as JSON strings (read
 * exactly); the whole result buffered before the status is sent (wait_end_of_query: a failure
 * midway is an error status, never a result cut short); and none of the settings that would make
 * ClickHouse answer with part of the aggregation (docs/aggregates.md, "On a cluster"): each
 * shard's GROUP BY merged on the initiator (with distributed_group_by_no_merge a unit's rows on
 * two shards would be bounded twice), no shard skipped, and every limit that could cut the
 * reading, a GROUP BY or the result short an error, never a truncation (which rows are cut would
 * depend on the other rows).
 */
const SETTINGS = {
  max_query_size: '16777216',
  output_format_json_quote_64bit_integers: '1',
  wait_end_of_query: '1',
  distributed_group_by_no_merge: '0',
  skip_unavailable_shards: '0',
  max_parallel_replicas: '1',
  ...Object.fromEntries(
    ['read', 'group_by', 'sort', 'result', 'timeout', 'set', 'join', 'transfer', 'distinct'].map((limit) => [`${limit}_overflow_mode`, 'throw']),
  ),
};

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
  // A `query` parameter would be read before the body, as the start of the query.
  base.searchParams.delete('query');
  for (const [name, value] of Object.entries(SETTINGS)) base.searchParams.set(name, value);
  const endpoint = base.toString();
  return async (sql) => {
    let response: { status: number; text: string };
    try {
      response = await post(endpoint, headers, `${sql}\nFORMAT JSON`);
    } catch (error) {
      const e = error as { code?: unknown; cause?: { code?: unknown } };
      const code = e.code ?? e.cause?.code;
      throw new Error(`dpnoise: cannot connect to the ClickHouse server of \`table.clickhouse\` (${typeof code === 'string' ? code : 'no answer'}).`);
    }
    const body = response.text;
    if (response.status !== 200) throw new ServerError(displayText(body), `ClickHouse ${/^Code: (\d+)/.exec(body)?.[1] ?? response.status}`);
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
