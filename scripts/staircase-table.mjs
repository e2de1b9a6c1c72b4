// The README's staircase table, like the journal's Table V-4: the l1 error of a two-coordinate
// query with sensitivities lambda = (0.15, 0.85) at pure epsilon, for the optimal i.n.i.d.
// Laplace calibration (the journal's first row), the 2-D l1 staircase of l1 sensitivity 1 (its
// second row, staircase2dError) and dpnoise's i.n.i.d. staircase (calibrateStaircase, the new
// row); then which of the i.n.i.d. and the joint l1 and l2 staircases has the least l1 error for a
// few profiles. Run after `npm run build`: node scripts/staircase-table.mjs.
import { calibrateLaplace, calibrateStaircase, staircase2dError, staircaseNormError } from 'dpnoise';

const sensitivity = [0.15, 0.85];
const EPSILONS = [0.5, 1, 1.5, 2, 2.5, 3, 5, 10];
const rows = [
  ['i.n.i.d. Laplace (optimal split)', (epsilon) => calibrateLaplace({ sensitivity, epsilon, errorPower: 1 }).error],
  ['2-D l1 staircase (Table V-4)', (epsilon) => staircase2dError({ epsilon })],
  ['i.n.i.d. staircase (calibrateStaircase)', (epsilon) => calibrateStaircase({ sensitivity, epsilon, errorPower: 1 }).error],
];
console.log(`| l1 error, lambda = (0.15, 0.85) | ${EPSILONS.map((e) => `epsilon ${e}`).join(' | ')} |`);
console.log(`| --- |${' ---: |'.repeat(EPSILONS.length)}`);
for (const [label, error] of rows) console.log(`| ${label} | ${EPSILONS.map((e) => error(e).toFixed(4)).join(' | ')} |`);

// Which staircase wins where: the l1 error for a few profiles (K coordinates, box neighbours)
// of the i.n.i.d. staircase against the joint ones, whose sensitivity is the profile's l1 or l2
// norm (staircaseNormError scaled by it); the smallest in bold.
const norm1 = (l) => l.reduce((a, x) => a + x, 0);
const norm2 = (l) => Math.hypot(...l);
const profiles = [
  ['(0.15, 0.85)', [0.15, 0.85]],
  ['10 equal', Array(10).fill(1)],
  ['10 linear (1 to 10)', Array.from({ length: 10 }, (_, i) => i + 1)],
  ['10 steep (e^i)', Array.from({ length: 10 }, (_, i) => Math.exp(i - 9))],
];
const BUDGETS = [1, 5, 20];
console.log('');
console.log(`| profile | ${BUDGETS.map((e) => `epsilon ${e}: i.n.i.d. / joint l1 / joint l2`).join(' | ')} |`);
console.log(`| --- |${' ---: |'.repeat(BUDGETS.length)}`);
for (const [label, lambda] of profiles) {
  const cells = BUDGETS.map((epsilon) => {
    const d = lambda.length;
    const errors = [
      calibrateStaircase({ sensitivity: lambda, epsilon, errorPower: 1 }).error,
      staircaseNormError({ dimension: d, norm: 'l1', epsilon }) * norm1(lambda),
      staircaseNormError({ dimension: d, norm: 'l2', epsilon }) * norm2(lambda),
    ];
    const best = Math.min(...errors);
    return errors.map((x) => (x === best ? `**${x.toPrecision(3)}**` : x.toPrecision(3))).join(' / ');
  });
  console.log(`| ${label} | ${cells.join(' | ')} |`);
}
