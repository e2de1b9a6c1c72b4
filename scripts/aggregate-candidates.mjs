// The cost of groups selected privately, per candidate (docs/aggregates.md, "Partition selection"):
// n distinct group values of one unit each, with a quantile, in memory or from a CSV file, none
// released; the time of `aggregate` and the peak resident memory above the start. Run after
// `npm run build`, in a process of its own per case (node --expose-gc):
//   node --expose-gc scripts/aggregate-candidates.mjs memory|csv N [dist folder's parent]
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [source = 'memory', count = '10000', where] = process.argv.slice(2);
const n = Number(count);
const root = resolve(where ?? new URL('..', import.meta.url).pathname);
const { aggregate } = await import(`${root}/dist/aggregate/index.js`);
const { createBudget } = await import(`${root}/dist/index.js`);

let table = Array.from({ length: n }, (_, i) => ({ id: i, zip: `z${i}`, x: i % 100 }));
if (source === 'csv') {
  const file = join(mkdtempSync(join(tmpdir(), 'dpnoise-candidates-')), 'zips.csv');
  writeFileSync(file, `id,zip,x\n${table.map((r) => `${r.id},${r.zip},${r.x}`).join('\n')}\n`);
  table = file;
}
const spec = { table, privacyUnit: 'id', maxGroups: 1, groupBy: 'zip', count: true, quantile: { x: { bounds: [0, 100], q: 0.5 } } };
globalThis.gc?.();
const before = process.memoryUsage().rss;
let peak = before;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 5);
const start = performance.now();
const r = await aggregate({ epsilon: 1, delta: 1e-6, budget: createBudget({ epsilon: 1, delta: 1e-6 }), ...spec });
const ms = performance.now() - start;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
console.log(
  `${source}, ${n} candidates: ${r.groups.length} released, ${(ms / 1000).toFixed(2)} s, peak ${Math.round((peak - before) / 2 ** 20)} MB above the start`,
);
