// dpnoise's side of the quantile accuracy in docs/aggregates.md ("Quantiles"): `aggregate` at pure
// epsilon 1 on scikit-learn's diabetes data, 300 seeded repetitions each, the quantile alone: the
// median of `target` on [0, 400], the 90th percentile of `bmi` on [15, 50] and the nine deciles of
// `target`, as the mean relative error against the ceil(q n)-th smallest value, with the
// intervals' coverage and mean width. scripts/quantile_accuracy_diffprivlib.py gives diffprivlib's.
// Run after `npm run build`: node scripts/quantile-accuracy.mjs [dist folder's parent]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(process.argv[2] ?? new URL('..', import.meta.url).pathname);
const { aggregate } = await import(`${root}/dist/aggregate/index.js`);
const { createBudget, createRng } = await import(`${root}/dist/index.js`);

const [head, ...lines] = readFileSync(new URL('../examples/data/diabetes.csv', import.meta.url), 'utf8')
  .trim()
  .split('\n');
const names = head.split(',');
const rows = lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [names[i], Number(v)])));
const quantileOf = (xs, q) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * xs.length) - 1)];

for (const [column, bounds, qs] of [
  ['target', [0, 400], [0.5]],
  ['bmi', [15, 50], [0.9]],
  ['target', [0, 400], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]],
]) {
  const truth = qs.map((q) =>
    quantileOf(
      rows.map((r) => r[column]),
      q,
    ),
  );
  let error = 0;
  let covered = 0;
  let width = 0;
  for (let seed = 0; seed < 300; seed++) {
    const r = await aggregate(
      createBudget({ epsilon: 1 }),
      { epsilon: 1 },
      { table: rows, quantile: { [column]: { bounds, q: qs } }, rng: createRng({ seed }) },
    );
    qs.forEach((q, i) => {
      const e = r.rows[0][`quantile(${column}, ${q})`];
      error += Math.abs(e.value - truth[i]) / truth[i];
      if (e.low <= truth[i] && truth[i] <= e.high) covered++;
      width += e.high - e.low;
    });
  }
  const n = 300 * qs.length;
  console.log(
    `${column} q ${qs.join(',')}: mean relative error ${((100 * error) / n).toFixed(2)}%, coverage ${(covered / n).toFixed(3)}, mean width ${(width / n).toFixed(1)}`,
  );
}
