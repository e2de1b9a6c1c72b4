// Differentially private coordinate descent: DP-CD (noise scales proportional to the clipping
// thresholds, the 'spr' allocation) against improved DP-CD (the 'optimal' allocation), on a
// synthetic LASSO and a synthetic logistic regression whose features have very different scales.
// Run: node examples/coordinate-descent.mjs   (after `npm ci`)
import { coordinateDescent, createRng, gaussianNoise, objective, privateCoordinateDescent } from 'dpnoise';

const n = 5000; // records
const d = 10; // features
const delta = 1e-5;
const seeds = 5;
const passesList = [1, 2, 5, 10, 20, 50];

// Feature j has a public range [-B_j, B_j], B_j from 0.1 to 10, and fills it unequally (typical
// size 3% to 60% of the range, like rare indicators next to dense measurements). The features
// are correlated (0.9 before clamping to the range), so that descent takes several passes.
const B = Array.from({ length: d }, (_, j) => 10 ** (-1 + (2 * j) / (d - 1)));
const fill = [0.5, 0.03, 0.2, 0.08, 0.4, 0.05, 0.3, 0.15, 0.04, 0.6];
const rho = 0.9;
const rng = createRng({ seed: 'coordinate-descent-example' });
const z = gaussianNoise(n * d, 1, { rng });
const shared = gaussianNoise(n, 1, { rng });
const e = gaussianNoise(n, 1, { rng }); // regression noise
const u = gaussianNoise(n, 1, { rng }); // classification noise
const features = new Float64Array(n * d);
const wTrue = B.map((b, j) => (j % 3 === 2 ? 0 : (j % 2 ? -0.5 : 0.5) / (b * fill[j])));
const regression = new Float64Array(n);
const classes = new Float64Array(n);
for (let i = 0; i < n; i++) {
  let t = 0;
  for (let j = 0; j < d; j++) {
    const x = B[j] * Math.max(-1, Math.min(1, fill[j] * (Math.sqrt(1 - rho * rho) * z[i * d + j] + rho * shared[i])));
    features[i * d + j] = x;
    t += wTrue[j] * x;
  }
  regression[i] = t + 0.5 * e[i];
  classes[i] = t + 0.5 * u[i] > 0 ? 1 : -1;
}

// What the analyst knows publicly, from the data's codebook rather than from the data: each
// feature's range [-B_j, B_j] and its typical size s_j = fill_j B_j. Clipping thresholds come from
// the ranges: |g_ij| = |loss'| |x_ij| <= |loss'| B_j, and |loss'| <= 1 for the logistic loss (so
// clipping never bites there). Step sizes come from the typical sizes: M_j = (1/n) sum_i x_ij^2 is
// about s_j^2, so gamma_j = 1 / s_j^2 (4 / s_j^2 for the logistic loss, whose curvature is at most
// 1/4). The paper takes 1 / M_j from the data itself; privateCoordinateDescent needs public step
// sizes, since they weigh the noise. Improved DP-CD gains because C_j / sqrt(M_j) = 1 / fill_j
// differs across the features (were it constant, spr would already be optimal).
const typical = B.map((b, j) => fill[j] * b);
const problems = [
  ['LASSO (squared loss, l1 = 0.02), clip C_j = B_j', { features, labels: regression, loss: 'squared', l1: 0.02 }, typical.map((t) => 1 / (t * t))],
  ['logistic regression (l2 = 0.001), clip C_j = B_j', { features, labels: classes, loss: 'logistic', l2: 1e-3 }, typical.map((t) => 4 / (t * t))],
];

const fmt = (x) => x.toExponential(2).padStart(11);
console.log(`Private coordinate descent, n = ${n} records, d = ${d} features with ranges from ${B[0]} to ${B[d - 1]}.`);
console.log(`Relative error (F(w) - F(w*)) / F(w*) after the given passes, mean over ${seeds} seeds;`);
console.log(`(epsilon, ${delta.toExponential()})-DP for the whole run under replace-one neighbours.`);
console.log(`'improved' is the optimal allocation for the objective (noise weighted by the step sizes);`);
console.log(`'unweighted' is the optimal allocation for the gradient noise's MSE.`);
for (const [title, problem, stepSizes] of problems) {
  const fStar = objective(problem, coordinateDescent({ ...problem, passes: 1000 }));
  const clip = B;
  for (const epsilon of [1, 3]) {
    console.log(`\n${title}, epsilon = ${epsilon}`);
    console.log('passes | DP-CD (spr) | improved (optimal) | improved / DP-CD | unweighted optimal');
    const best = { spr: [Infinity, 0], optimal: [Infinity, 0] };
    for (const passes of passesList) {
      const error = (allocation, noiseWeights) => {
        let sum = 0;
        for (let seed = 0; seed < seeds; seed++) {
          const r = privateCoordinateDescent({ ...problem, stepSizes, passes, clip, epsilon, delta, allocation, noiseWeights, rng: createRng({ seed }) });
          sum += (objective(problem, r.parameters) - fStar) / fStar;
        }
        return sum / seeds;
      };
      const spr = error('spr', 'uniform');
      const optimal = error('optimal', 'step-sizes');
      const unweighted = error('optimal', 'uniform');
      console.log(
        `${String(passes).padStart(6)} | ${fmt(spr)} | ${fmt(optimal).padStart(18)} | ${(optimal / spr).toFixed(3).padStart(16)} | ${fmt(unweighted).padStart(18)}`,
      );
      if (spr < best.spr[0]) best.spr = [spr, passes];
      if (optimal < best.optimal[0]) best.optimal = [optimal, passes];
    }
    console.log(
      `best number of passes: DP-CD ${best.spr[0].toExponential(2)} (${best.spr[1]}), improved ${best.optimal[0].toExponential(2)} (${best.optimal[1]})`,
    );
  }
}
