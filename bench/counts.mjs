// Counts and variances: not a speed but an accuracy comparison, dpnoise's against diffprivlib's on
// real data (docs/aggregates.md, "Counts on the grid of 1" and "Variances"). dpnoise's side here with the built package's
// `aggregate`; diffprivlib 0.6.6's by scripts/count_accuracy_diffprivlib.py with python3 ("—"
// where it or diffprivlib is missing). Pure epsilon 1, 300 seeds, scikit-learn's diabetes data.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRng } from 'dpnoise';
import { aggregate } from 'dpnoise/aggregate';
import { diabetesRows } from '../scripts/diabetes.mjs';
import { NONE } from './format.mjs';

export const title = 'Counts and variances against diffprivlib';

const SEEDS = 300;
/** Again over this many seeds: the two laws are the same, and 300 seeds leave their means 2% apart by chance. */
const MORE_SEEDS = 3000;
const EDGES = Array.from({ length: 11 }, (_, i) => 10 * i);

/** diffprivlib's mean absolute errors of the count and of the histogram's bins and mean relative errors of the variances, or the reason it did not run. */
function diffprivlib(seeds) {
  const script = fileURLToPath(new URL('../scripts/count_accuracy_diffprivlib.py', import.meta.url));
  const run = spawnSync('python3', [script, String(seeds)], { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' });
  if (run.status !== 0) return { reason: (run.stderr || run.error?.message || 'python3 failed').trim().split('\n').at(-1) };
  return { errors: Object.fromEntries([...run.stdout.matchAll(/^([\w()]+): mean (?:absolute|relative) error ([\d.]+)$/gm)].map((m) => [m[1], Number(m[2])])) };
}

/** The diabetes rows, and the truths: the rows of each sex, the bins of age. */
function data() {
  const rows = diabetesRows();
  const counts = [1, 2].map((s) => rows.filter((r) => r.sex === s).length);
  const bins = EDGES.slice(0, -1).map((low, k) => rows.filter((r) => r.age >= low && (k === EDGES.length - 2 ? r.age <= 100 : r.age < EDGES[k + 1])).length);
  return { rows, counts, bins };
}

/** dpnoise's mean absolute errors over SEEDS seeds, with and without `integerCounts` (whole numbers at least 0). */
async function dpnoise({ rows, counts, bins }, integerCounts, seeds) {
  let count = 0;
  let bin = 0;
  for (let seed = 0; seed < seeds; seed++) {
    const byGroup = await aggregate({ epsilon: 1, table: rows, groupBy: 'sex', groups: [1, 2], count: true, integerCounts, rng: createRng({ seed }) });
    for (const [g, r] of byGroup.rows.entries()) count += Math.abs(r.count.value - counts[g]);
    const histogram = await aggregate({ epsilon: 1, table: rows, histogram: { age: { bins: EDGES } }, integerCounts, rng: createRng({ seed }) });
    for (const [k, b] of histogram.rows[0]['histogram(age)'].entries()) bin += Math.abs(b.value - bins[k]);
  }
  return { count: count / (2 * seeds), histogram: bin / (bins.length * seeds) };
}

/** The variances compared: a column and its bounds. */
const VARIANCES = [
  ['bmi', [15, 50]],
  ['age', [0, 100]],
];

/** dpnoise's mean relative error of each variance over SEEDS seeds, each released alone at epsilon 1. */
async function variances({ rows }) {
  return Promise.all(
    VARIANCES.map(async ([column, bounds]) => {
      const x = rows.map((r) => Math.min(bounds[1], Math.max(bounds[0], r[column])));
      const mean = x.reduce((a, v) => a + v, 0) / x.length;
      const truth = x.reduce((a, v) => a + (v - mean) ** 2, 0) / x.length;
      let error = 0;
      for (let seed = 0; seed < SEEDS; seed++) {
        const r = await aggregate({ epsilon: 1, table: rows, variance: { [column]: bounds }, rng: createRng({ seed }) });
        error += Math.abs(r.rows[0][`variance(${column})`].value - truth) / truth;
      }
      return error / SEEDS;
    }),
  );
}

export async function run(ctx) {
  const d = data();
  /** The table's rows over `seeds` seeds. */
  const compared = async (seeds) => {
    ctx.log(`  dpnoise and diffprivlib, ${seeds} seeds ...`);
    const raw = await dpnoise(d, false, seeds);
    const whole = await dpnoise(d, true, seeds);
    const baseline = diffprivlib(seeds);
    const rows = ['count', 'histogram'].map((what) => {
      const other = baseline.errors?.[what];
      const ratio = (x) => (other === undefined ? NONE : `${(x / other).toFixed(3)}×`);
      return [what, raw[what].toFixed(4), whole[what].toFixed(4), other === undefined ? NONE : other.toFixed(4), ratio(raw[what]), ratio(whole[what])];
    });
    return { rows, notes: baseline.errors ? [] : [`diffprivlib did not run: ${baseline.reason}`] };
  };
  const columns = ['counts', 'dpnoise', 'dpnoise, whole', 'diffprivlib', 'dpnoise ÷ diffprivlib', 'whole ÷ diffprivlib'];
  ctx.log('  variances ...');
  const ours = await variances(d);
  const theirs = diffprivlib(SEEDS);
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const varianceTable = {
    heading: `Mean relative error of a variance on the diabetes data at pure epsilon 1, ${SEEDS} seeds`,
    text:
      'The population variance of the column clipped to its bounds, alone. *dpnoise*: `aggregate` with `variance` at epsilon 1 (the count, the centred sum and the centred squares in one vector; the count noisy). ' +
      "*diffprivlib*: `tools.var` at epsilon 1 (LaplaceBoundedDomain with sensitivity ((U - L) / n)^2 (n - 1): it takes the data set's size n as public, which dpnoise does not).",
    columns: ['variance', 'dpnoise', 'diffprivlib', 'dpnoise ÷ diffprivlib'],
    rows: VARIANCES.map(([column, bounds], k) => {
      const other = theirs.errors?.[`variance(${column})`];
      return [
        `${column} on [${bounds.join(', ')}]`,
        pct(ours[k]),
        other === undefined ? NONE : pct(other),
        other === undefined ? NONE : `${(ours[k] / other).toFixed(2)}×`,
      ];
    }),
    notes: theirs.errors ? [] : [`diffprivlib did not run: ${theirs.reason}`],
  };
  return [
    {
      heading: `Mean absolute error of counts on the diabetes data at pure epsilon 1, ${SEEDS} seeds`,
      text:
        "scikit-learn's diabetes data (442 rows; examples/data/diabetes.csv). *count*: the rows of each `sex` (2 groups); *histogram*: the 10 bins of `age` over [0, 100], 10 wide. " +
        '*dpnoise*: `aggregate` at epsilon 1 (Laplace noise, each statistic its own release), its counts on the grid of 1; *whole*: with `integerCounts` (whole numbers at least 0, post-processing). ' +
        '*diffprivlib*: `tools.count_nonzero` per group and `tools.histogram` at epsilon 1 (GeometricTruncated: discrete Laplace of scale 1, truncated to [0, n]), seeds 0 to 299. ' +
        'Before counts went on the grid of 1 (continuous-like noise on a fine grid), dpnoise erred 1.13 to 1.24 times diffprivlib here (issue 45).',
      columns,
      ...(await compared(SEEDS)),
    },
    {
      heading: `The same over ${MORE_SEEDS} seeds`,
      text: 'As above, seeds 0 to 2999 on both sides. Both add discrete Laplace noise of scale 1, whose mean absolute error is 2p / (1 - p^2) = 0.851 (p = 1/e): the counts differ by chance, each mean having a standard error of about 0.014 here (0.044 over 300 seeds). Where diffprivlib truncates at 0, dpnoise gets the same from `integerCounts`.',
      columns,
      ...(await compared(MORE_SEEDS)),
    },
    varianceTable,
  ];
}
