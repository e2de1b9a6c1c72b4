// The README's allocation table: the means of scikit-learn's diabetes columns (examples/data/
// diabetes.csv, 442 patients) released at once by laplaceMechanism at epsilon 1, 2000 seeded
// releases per allocation, the mean relative error |released - true| / |true| of each column.
// Neighbours replace one patient (the count, 442, is public), so the mean of a column with public
// bounds [LOW, HIGH] moves by at most (HIGH - LOW) / 442. The columns have different units, which
// is what the allocations differ on: the plain optimal allocation (weights equal, the library's
// default) against errors weighed relative to each column's range (weights 1 / sensitivity^2, the
// default of `dpnoise release` and `aggregate`: for one vector, the rule spr) and identical noise
// (iid). Run after `npm run build`: node scripts/diabetes-means.mjs (a second).
import { readFileSync } from 'node:fs';
import { createRng, laplaceMechanism } from 'dpnoise';

/** Public bounds, chosen from what the columns measure (clinical ranges), not from the data. */
const BOUNDS = {
  age: [0, 100],
  bmi: [15, 50],
  bp: [50, 150],
  s1: [0, 400],
  s2: [0, 300],
  s3: [0, 150],
  s4: [0, 12],
  s5: [2, 8],
  s6: [40, 160],
  target: [0, 400],
};
const RELEASES = 2000;

const [header, ...lines] = readFileSync(new URL('../examples/data/diabetes.csv', import.meta.url), 'utf8')
  .trim()
  .split('\n');
const names = header.split(',');
const rows = lines.map((line) => line.split(',').map(Number));
const columns = Object.keys(BOUNDS);
const truth = columns.map((c) => {
  const [low, high] = BOUNDS[c];
  const j = names.indexOf(c);
  return rows.reduce((sum, row) => sum + Math.min(high, Math.max(low, row[j])), 0) / rows.length;
});
const sensitivity = columns.map((c) => (BOUNDS[c][1] - BOUNDS[c][0]) / rows.length);

const allocations = [
  ['optimal, weights equal (the library default)', {}],
  ['optimal, weights relative to range (release and aggregate default; = spr)', { weights: sensitivity.map((s) => 1 / s ** 2) }],
  ['iid (identical noise)', { allocation: 'iid' }],
];
const cells = (xs) => xs.map((x) => `${(100 * x).toPrecision(2)}%`);
console.log(`| allocation | ${columns.join(' | ')} | average | largest |`);
console.log(`| --- |${' ---: |'.repeat(columns.length + 2)}`);
for (const [label, options] of allocations) {
  const m = laplaceMechanism({ sensitivity, epsilon: 1, ...options });
  const rng = createRng({ seed: 'diabetes means' });
  const error = new Float64Array(columns.length);
  for (let r = 0; r < RELEASES; r++) {
    const released = m.release(truth, { rng });
    for (let i = 0; i < columns.length; i++) error[i] += Math.abs(released[i] - truth[i]) / Math.abs(truth[i]) / RELEASES;
  }
  const average = error.reduce((a, b) => a + b) / columns.length;
  console.log(`| ${label} | ${cells([...error, average, Math.max(...error)]).join(' | ')} |`);
}
