// The PostgreSQL engine (engine.ts): a table (or view) on the caller's pg client or pool, or on a
// connection of its own from a connection string. The clipping, contribution bounding and totals
// run in the database; only the totals come back. `pg` is an optional peer dependency, loaded on
// first use.
import { type Column, type ColumnType, DIALECT, tableName } from './dialect.js';
import type { Engine } from './engine.js';

/** What dpnoise uses of a pg Client or Pool (`connect` and `end` of its own client only). */
interface Client {
  query(sql: string): Promise<{ rows: Record<string, unknown>[]; fields: Array<{ name: string; dataTypeID: number }> }>;
  connect(): Promise<unknown>;
  end(): Promise<void>;
}

interface PgModule {
  Client: new (options: { connectionString: string }) => Client;
}

/** pg, or an error that says how to get it. */
async function loadPg(): Promise<PgModule> {
  try {
    // A specifier in a variable: bundlers for the browser leave it alone.
    const specifier = 'pg';
    const module = (await import(/* @vite-ignore */ specifier)) as PgModule & { default?: PgModule };
    return module.default ?? module;
  } catch {
    throw new Error('dpnoise: aggregates over PostgreSQL tables need the package pg; install it with `npm install pg`.');
  }
}

/** A column's type by its type OID: int8, int2, int4, float4 and float8 are numbers, numeric a decimal, text, varchar, bpchar and name text. */
function columnType(oid: number): ColumnType {
  if ([20, 21, 23, 700, 701].includes(oid)) return 'number';
  if (oid === 1700) return 'decimal';
  return [25, 1043, 1042, 19].includes(oid) ? 'text' : 'other';
}

/** The server's own message, which names the table or column at fault (never the connection string, which may hold a password). */
const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * A PostgreSQL engine on the caller's client or pool (used as it is: the aggregate is one query),
 * or on a client of its own connected to `postgres`, a connection string (closed at the end).
 */
export async function openPostgres(source: { connection?: unknown; postgres?: string; table: string }): Promise<Engine> {
  let client: Client;
  let close = async () => {};
  if (source.postgres !== undefined) {
    const { Client } = await loadPg();
    let own: Client | undefined;
    try {
      own = new Client({ connectionString: source.postgres }); // throws for a malformed string
      await own.connect();
    } catch (error) {
      await own?.end().catch(() => {});
      throw new Error(`dpnoise: cannot connect to the PostgreSQL server of \`table.postgres\`: ${reason(error)}`);
    }
    client = own;
    close = () => own.end();
  } else {
    client = source.connection as Client;
  }
  const from = tableName(source.table, DIALECT.postgres);
  return {
    dialect: 'postgres',
    from,
    columns: async (): Promise<Column[]> => {
      try {
        const { fields } = await client.query(`SELECT * FROM ${from} LIMIT 0`);
        return fields.map((f) => ({ name: f.name, type: columnType(f.dataTypeID) }));
      } catch (error) {
        throw new Error(`dpnoise: PostgreSQL cannot read the table ${from}: ${reason(error)}`);
      }
    },
    rows: async (sql) => (await client.query(sql)).rows,
    close,
  };
}
