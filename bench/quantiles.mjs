// Quantiles: not a speed but an accuracy comparison, dpnoise's against diffprivlib's on real data
// (docs/aggregates.md, "Quantiles"). dpnoise's side by scripts/quantile-accuracy.mjs with the
// built package (the plan's pick, and the tree alone for comparison); diffprivlib 0.6.6's by
// scripts/quantile_accuracy_diffprivlib.py with python3 ("—" where it or diffprivlib is missing).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createBudget, createRng } from 'dpnoise';
import { aggregate } from 'dpnoise/aggregate';
import { quantileAccuracy } from '../scripts/quantile-accuracy.mjs';
import { NONE } from './format.mjs';

export const title = 'Quantiles';

const SEEDS = 300;
/** The single quantiles again over this many seeds, where the two are close. */
const MORE_SEEDS = 3000;

/** diffprivlib's mean relative errors by "column q" over `seeds` seeds, or the reason it did not run. */
function diffprivlib(seeds) {
  const script = fileURLToPath(new URL('../scripts/quantile_accuracy_diffprivlib.py', import.meta.url));
  const run = spawnSync('python3', [script, String(seeds)], { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' });
  if (run.status !== 0) return { reason: (run.stderr || run.error?.message || 'python3 failed').trim().split('\n').at(-1) };
  return {
    errors: Object.fromEntries(
      [...run.stdout.matchAll(/^(\w+) q ([\d.]+): mean relative error ([\d.]+)%$/gm)].map((m) => [`${m[1]} ${m[2]}`, Number(m[3]) / 100]),
    ),
  };
}

export async function run(ctx) {
  const dpnoise = { aggregate, createBudget, createRng };
  ctx.log("  dpnoise, the plan's pick and the tree ...");
  const picked = await quantileAccuracy(dpnoise, { seeds: SEEDS });
  const tree = await quantileAccuracy(dpnoise, { seeds: SEEDS, quantileMethod: 'tree' });
  ctx.log('  diffprivlib ...');
  const baseline = diffprivlib(SEEDS);
  const pct = (x) => `${(100 * x).toFixed(3)}%`;
  const rows = picked.map((r, i) => {
    const name = `${r.column} q ${r.qs.length === 1 ? r.qs[0] : `${r.qs[0]} to ${r.qs.at(-1)} (${r.qs.length})`}`;
    const other = r.qs.length === 1 ? baseline.errors?.[`${r.column} ${r.qs[0]}`] : undefined;
    return [
      name,
      r.method,
      pct(r.error),
      pct(tree[i].error),
      other === undefined ? NONE : pct(other),
      other === undefined ? NONE : `${(r.error / other).toFixed(2)}×`,
      r.coverage.toFixed(3),
      r.width.toFixed(1),
    ];
  });
  return [
    {
      heading: `Mean relative error on the diabetes data at pure epsilon 1, ${SEEDS} seeds`,
      text:
        "scikit-learn's diabetes data (442 rows; examples/data/diabetes.csv): the quantile alone, against the ceil(q n)-th smallest value. " +
        '*dpnoise*: `aggregate` by the method its plan picks; *tree*: the same with `quantileMethod: tree`; *diffprivlib*: `tools.quantile` (its exponential mechanism over the intervals between the sorted values, sensitivity 1 for a data set of public size), seeds 0 to 299. ' +
        "Coverage and width are those of dpnoise's intervals at level 0.95 (diffprivlib gives none).",
      columns: ['quantile', 'dpnoise method', 'dpnoise', 'tree', 'diffprivlib', 'dpnoise ÷ diffprivlib', 'coverage', 'mean width'],
      rows,
      notes: baseline.errors ? [] : [`diffprivlib did not run: ${baseline.reason}`],
    },
    await moreSeeds(dpnoise, ctx, pct),
  ];
}

/** The single quantiles over MORE_SEEDS seeds: the two methods' spread over 300 is about 0.03 points. */
async function moreSeeds(dpnoise, ctx, pct) {
  ctx.log(`  the single quantiles over ${MORE_SEEDS} seeds ...`);
  const ours = (await quantileAccuracy(dpnoise, { seeds: MORE_SEEDS })).filter((r) => r.qs.length === 1);
  const baseline = diffprivlib(MORE_SEEDS);
  return {
    heading: `The single quantiles over ${MORE_SEEDS} seeds`,
    text: 'As above, seeds 0 to 2999 on both sides.',
    columns: ['quantile', 'dpnoise', 'diffprivlib', 'dpnoise ÷ diffprivlib'],
    rows: ours.map((r) => {
      const other = baseline.errors?.[`${r.column} ${r.qs[0]}`];
      return [
        `${r.column} q ${r.qs[0]}`,
        pct(r.error),
        other === undefined ? NONE : pct(other),
        other === undefined ? NONE : `${(r.error / other).toFixed(2)}×`,
      ];
    }),
    notes: baseline.errors ? [] : [`diffprivlib did not run: ${baseline.reason}`],
  };
}
