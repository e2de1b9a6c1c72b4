// The README's staircase table, like the journal's Table V-4: the l1 error of a two-coordinate
// query with sensitivities lambda = (0.15, 0.85) at pure epsilon, for the optimal i.n.i.d.
// Laplace calibration (the journal's first row), the 2-D l1 staircase of l1 sensitivity 1 (its
// second row, staircase2dError) and dpnoise's i.n.i.d. staircase (calibrateStaircase, the new
// row). Run after `npm run build`: node scripts/staircase-table.mjs.
import { calibrateLaplace, calibrateStaircase, staircase2dError } from 'dpnoise';

const sensitivity = [0.15, 0.85];
const EPSILONS = [0.5, 1, 1.5, 2, 2.5, 3, 5, 10];
const rows = [
  ['i.n.i.d. Laplace (optimal split)', (epsilon) => calibrateLaplace({ sensitivity, epsilon, errorPower: 1 }).error],
  ['2-D l1 staircase (Table V-4)', (epsilon) => staircase2dError(epsilon)],
  ['i.n.i.d. staircase (calibrateStaircase)', (epsilon) => calibrateStaircase({ sensitivity, epsilon, errorPower: 1 }).error],
];
console.log(`| l1 error, lambda = (0.15, 0.85) | ${EPSILONS.map((e) => `epsilon ${e}`).join(' | ')} |`);
console.log(`| --- |${' ---: |'.repeat(EPSILONS.length)}`);
for (const [label, error] of rows) console.log(`| ${label} | ${EPSILONS.map((e) => error(e).toFixed(4)).join(' | ')} |`);
