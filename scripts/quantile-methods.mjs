// The two quantile methods side by side (docs/aggregates.md, "Quantiles"), as `aggregate` runs
// them at pure epsilon: (1) on dense data (4000 values spread evenly over [0, 100]), the rms rank
// error of each method's value against the plan's predicted sd, at epsilon 0.2 and 1, with 1, 5
// and 9 quantiles (the tree's measured error over its worst boundary's sd gives the plan's 0.43);
// (2) on scikit-learn's diabetes data at epsilon 1, 100 seeds, the mean relative error of k
// evenly spaced quantiles of `target` on [0, 400] and `bmi` on [15, 50] by each method: the
// crossover. Run after `npm run build`: node scripts/quantile-methods.mjs [dist folder's parent]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(process.argv[2] ?? new URL('..', import.meta.url).pathname);
const { aggregate, planAggregate } = await import(`${root}/dist/aggregate/index.js`);
const { createBudget, createRng } = await import(`${root}/dist/index.js`);
const METHODS = ['exponential', 'tree'];
const evenly = (k) => Array.from({ length: k }, (_, i) => Math.round(((i + 1) / (k + 1)) * 100) / 100);
const release = (epsilon, rows, quantile, quantileMethod, seed) =>
  aggregate({ epsilon, budget: createBudget({ epsilon }), table: rows, quantile, quantileMethod, rng: createRng({ seed }) });

// (1) Rank errors on dense data.
const dense = Array.from({ length: 4000 }, (_, i) => ({ x: (i + 0.5) / 40 }));
const rankOf = (v) => Math.max(0, Math.min(4000, Math.ceil(v * 40 - 0.5))); // values below v
for (const epsilon of [0.2, 1]) {
  for (const k of [1, 5, 9]) {
    const quantile = { x: { bounds: [0, 100], q: evenly(k) } };
    const cells = [];
    for (const method of METHODS) {
      const plan = planAggregate({ epsilon, quantile, quantileMethod: method });
      const predicted = Math.sqrt(plan.accuracy.reduce((s, l) => s + l.sd ** 2, 0) / k);
      let squares = 0;
      for (let seed = 0; seed < 60; seed++) {
        const r = await release(epsilon, dense, quantile, method, seed);
        for (const q of quantile.x.q) squares += (rankOf(r.rows[0][`quantile(x, ${q})`].value) - q * 4000) ** 2;
      }
      cells.push(`${method}: rms rank error ${Math.sqrt(squares / (60 * k)).toFixed(1)}, predicted ${predicted.toFixed(1)}`);
    }
    console.log(`dense, epsilon ${epsilon}, ${k} quantile(s): ${cells.join('; ')}`);
  }
}

// (2) The crossover on real data.
const [head, ...lines] = readFileSync(new URL('../examples/data/diabetes.csv', import.meta.url), 'utf8')
  .trim()
  .split('\n');
const names = head.split(',');
const rows = lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [names[i], Number(v)])));
const quantileOf = (xs, q) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * xs.length) - 1)];
for (const [column, bounds] of [
  ['target', [0, 400]],
  ['bmi', [15, 50]],
]) {
  for (const k of [1, 2, 3, 4, 5, 6, 9]) {
    const qs = evenly(k);
    const truth = qs.map((q) =>
      quantileOf(
        rows.map((r) => r[column]),
        q,
      ),
    );
    const cells = [];
    for (const method of METHODS) {
      let error = 0;
      for (let seed = 0; seed < 100; seed++) {
        const r = await release(1, rows, { [column]: { bounds, q: qs } }, method, seed);
        qs.forEach((q, i) => {
          error += Math.abs(r.rows[0][`quantile(${column}, ${q})`].value - truth[i]) / truth[i];
        });
      }
      cells.push(`${method} ${((100 * error) / (100 * k)).toFixed(2)}%`);
    }
    const chosen = planAggregate({ epsilon: 1, quantile: { [column]: { bounds, q: qs } } }).accuracy[0].mechanism;
    console.log(`diabetes ${column}, ${k} quantile(s): ${cells.join(', ')}; the plan picks ${chosen === 'exponential' ? 'exponential' : 'tree'}`);
  }
}
