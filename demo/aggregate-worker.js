// The "aggregate a CSV" page's work, in a Web Worker: DuckDB-Wasm reads the file the page was
// given (in the browser, through the File API: nothing is uploaded) and dpnoise/aggregate runs its
// plan on DuckDB-Wasm's connection, then adds the noise. DuckDB-Wasm's engine runs in a worker of
// its own; its ESM entry comes bundled with Apache Arrow by the demo server (scripts/serve.mjs).
import * as duckdb from '/demo/duckdb-wasm.js';
import { aggregate } from '/dist/aggregate/index.js';
import { createBudget, init } from '/dist/index.js';

const DIST = '/node_modules/@duckdb/duckdb-wasm/dist/';
const BUNDLES = {
  mvp: { mainModule: `${DIST}duckdb-mvp.wasm`, mainWorker: `${DIST}duckdb-browser-mvp.worker.js` },
  eh: { mainModule: `${DIST}duckdb-eh.wasm`, mainWorker: `${DIST}duckdb-browser-eh.worker.js` },
};

const ready = init(); // dpnoise's WebAssembly, once
let database;

/** DuckDB-Wasm, started once. */
async function open() {
  database ??= (async () => {
    const bundle = await duckdb.selectBundle(BUNDLES);
    const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), new Worker(bundle.mainWorker));
    await db.instantiate(bundle.mainModule);
    return db;
  })();
  return database;
}

addEventListener('message', async ({ data: { id, file, spec, privacy } }) => {
  try {
    await ready;
    const db = await open();
    await db.registerFileHandle('data.csv', file, duckdb.DuckDBDataProtocol.BROWSER_FILEREADER, true);
    const connection = await db.connect();
    try {
      await connection.query("CREATE OR REPLACE VIEW data AS SELECT * FROM read_csv_auto('data.csv')");
      // The page has charged its session budget; this one holds exactly this release.
      const budget = createBudget(privacy);
      const r = await aggregate({ ...privacy, budget, ...spec, table: { connection, table: 'data' } });
      postMessage({ id, result: { table: r.table, unit: r.unit, level: r.level, warnings: r.warnings } });
    } finally {
      await connection.close();
    }
  } catch (error) {
    postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
