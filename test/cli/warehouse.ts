// What the command line's warehouse tests share: a printed query run as a warehouse would run it,
// here by DuckDB over the same rows, its result saved as CSV.
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

/** Runs the query in the file `sql` over the table `people` made from the CSV file `people`, and saves its result as CSV at `result`. */
export async function runAsWarehouse(sql: string, people: string, result: string): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const c = await instance.connect();
    await c.run(`CREATE TABLE people AS SELECT * FROM '${people}'`);
    const query = readFileSync(sql, 'utf8')
      .replace(/^--.*\n/gm, '')
      .replace(/;\s*$/, '');
    await c.run(`COPY (${query}) TO '${result}' (HEADER)`);
  } finally {
    instance.closeSync();
  }
}
