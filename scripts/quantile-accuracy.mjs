// dpnoise's side of the quantile accuracy in docs/aggregates.md ("Quantiles") and bench/RESULTS.md
// (bench/quantiles.mjs): `aggregate` at pure epsilon 1 on scikit-learn's diabetes data, 300 seeded
// repetitions each, the quantile alone, by the method the plan picks (the exponential mechanism for
// one quantile, the tree for nine): the median of `target` on [0, 400], the 90th percentile of
// `bmi` on [15, 50] and the nine deciles of `target`, as the mean relative error against the
// ceil(q n)-th smallest value, with the intervals' coverage and mean width.
// scripts/quantile_accuracy_diffprivlib.py gives diffprivlib's; scripts/quantile-methods.mjs
// compares the two methods. Run after `npm run build`: node scripts/quantile-accuracy.mjs
import { diabetesRows } from './diabetes.mjs';
import { fileURLToPath } from 'node:url';

/** The cases: column, bounds, quantiles. */
export const CASES = [
  ['target', [0, 400], [0.5]],
  ['bmi', [15, 50], [0.9]],
  ['target', [0, 400], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]],
];

/**
 * Each case's mean relative error, coverage, mean width and method (the plan's pick, or
 * `quantileMethod`), with the built package's `aggregate` and `createBudget`/`createRng`.
 */
export async function quantileAccuracy({ aggregate, createBudget, createRng }, { seeds = 300, quantileMethod } = {}) {
  const rows = diabetesRows();
  const quantileOf = (xs, q) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * xs.length) - 1)];
  const results = [];
  for (const [column, bounds, qs] of CASES) {
    const truth = qs.map((q) =>
      quantileOf(
        rows.map((r) => r[column]),
        q,
      ),
    );
    let error = 0;
    let covered = 0;
    let width = 0;
    let method;
    for (let seed = 0; seed < seeds; seed++) {
      const r = await aggregate({
        epsilon: 1,
        budget: createBudget({ epsilon: 1 }),
        table: rows,
        quantile: { [column]: { bounds, q: qs } },
        quantileMethod,
        rng: createRng({ seed }),
      });
      method = r.accuracy[0].mechanism === 'exponential' ? 'exponential' : 'tree';
      qs.forEach((q, i) => {
        const e = r.rows[0][`quantile(${column}, ${q})`];
        error += Math.abs(e.value - truth[i]) / truth[i];
        if (e.low <= truth[i] && truth[i] <= e.high) covered++;
        width += e.high - e.low;
      });
    }
    const n = seeds * qs.length;
    results.push({ column, bounds, qs, method, error: error / n, coverage: covered / n, width: width / n });
  }
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = new URL('..', import.meta.url).pathname;
  const { aggregate } = await import(`${root}/dist/aggregate/index.js`);
  const { createBudget, createRng } = await import(`${root}/dist/index.js`);
  for (const r of await quantileAccuracy({ aggregate, createBudget, createRng })) {
    console.log(
      `${r.column} q ${r.qs.join(',')} (${r.method}): mean relative error ${(100 * r.error).toFixed(2)}%, coverage ${r.coverage.toFixed(3)}, mean width ${r.width.toFixed(1)}`,
    );
  }
}
