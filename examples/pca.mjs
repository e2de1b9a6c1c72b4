// Differentially private PCA (the journal paper's section VI-B): release the upper triangle of
// A = X^T X with Gaussian noise, mirror it, keep the top-k eigenvectors, and score the subspace by
// SRE = ||(I - U_hat U_hat^T) U||_F^2 / k against the noiseless top-k subspace U (0 is exact).
//
// What it shows, and what to take from it:
// 1. Rows of l2 norm at most 1: one user moves the whole upper triangle by at most 1 in l2 norm
//    (sum over i <= j of (x_i x_j)^2 <= 1), so use that joint sensitivity with identical noise
//    ("Analyze Gauss"). The per-entry bounds (1 on the diagonal, 1/2 off it) add up to far more,
//    and per-entry noise, optimal or not, is tens of times worse here.
// 2. Rows in a box, feature i in [-r_i, r_i] with very different ranges (features in their own
//    units): entry (i, j) moves by r_i r_j, and all can at once, so the per-entry profile is the
//    exact model; there the optimal non-identical allocation beats identical noise.
// Run: node examples/pca.mjs   (after `npm ci`)
import { createRng, gaussianMechanism, gramMatrix, privateCovariance, subspaceError, syntheticPcaData, topEigenvectors } from 'dpnoise';

const n = 5000; // users
const d = 20; // features
const k = 3; // rank of the subspace
const delta = 1e-5;
const epsilons = [0.5, 1, 2, 4];
const trials = 30;

// Fully random model: a random k-dimensional subspace, Gaussian points in it plus isotropic
// noise of the same size, every row normalised to unit l2 norm.
const { rows } = syntheticPcaData({ n, d, k, noise: 1, rng: createRng({ seed: 'pca-example-data' }) });

const upperOf = (m) => {
  const u = [];
  for (let i = 0; i < d; i++) for (let j = i; j < d; j++) u.push(m[i * d + j]);
  return Float64Array.from(u);
};
const mirror = (u) => {
  const m = new Float64Array(d * d);
  for (let i = 0, e = 0; i < d; i++) for (let j = i; j < d; j++, e++) m[i * d + j] = m[j * d + i] = u[e];
  return m;
};

/** Mean SRE over the trials of a release of the exact Gram matrix, for each epsilon (one seed per trial, shared by the rows compared). */
function meanSre(exact, release) {
  const truth = topEigenvectors(exact, d, k);
  return epsilons.map((epsilon) => {
    let sum = 0;
    for (let t = 0; t < trials; t++) {
      const rng = createRng({ seed: `pca-example-${epsilon}-${t}` }); // simulation only: seeded noise is not private
      sum += subspaceError(topEigenvectors(release(epsilon, rng), d, k), truth, d, k);
    }
    return sum / trials;
  });
}

const cell = (x) => (x >= 0.001 ? x.toFixed(4) : x.toExponential(1)).padStart(9);
const header = `${'noise'.padEnd(34)}${epsilons.map((e) => `eps=${e}`.padStart(9)).join('')}`;
const show = (label, means) => console.log(`${label.padEnd(34)}${means.map(cell).join('')}`);

// 1. Unit rows.
const unitExact = gramMatrix(rows);
console.log(`DP-PCA, Gaussian (delta ${delta}), n = ${n} rows in R^${d}, top-${k} subspace, mean SRE over ${trials} trials\n`);
console.log(`1. Rows of l2 norm <= 1 (the joint l2 sensitivity is 1):\n${header}`);
const joint = (epsilon, rng) =>
  mirror(
    gaussianMechanism({ groups: { sizes: [(d * (d + 1)) / 2], sensitivity: [1] }, epsilon, delta, mode: 'continuous' }).release(upperOf(unitExact), { rng }),
  );
show('joint sensitivity, identical noise', meanSre(unitExact, joint));
for (const allocation of ['iid', 'optimal']) {
  const perEntry = (epsilon, rng) => privateCovariance({ data: rows, noise: 'gaussian', epsilon, delta, allocation, mode: 'continuous', rng }).matrix;
  show(`per-entry bounds, ${allocation}`, meanSre(unitExact, perEntry));
}

// 2. The same rows with feature i scaled to [-r_i, r_i], ranges from 1 down to 1/30.
const ranges = Array.from({ length: d }, (_, i) => 30 ** (-i / (d - 1)));
const boxRows = rows.map((row) => Float64Array.from(row, (x, i) => x * ranges[i]));
const boxExact = gramMatrix(boxRows);
const sensitivity = [];
for (let i = 0; i < d; i++) for (let j = i; j < d; j++) sensitivity.push(ranges[i] * ranges[j]);
console.log(`\n2. Rows in a box, feature ranges 1 to 1/30 (the per-entry bounds r_i r_j are the exact model):\n${header}`);
const results = {};
for (const allocation of ['iid', 'optimal']) {
  const box = (epsilon, rng) => mirror(gaussianMechanism({ sensitivity, epsilon, delta, allocation, mode: 'continuous' }).release(upperOf(boxExact), { rng }));
  results[allocation] = meanSre(boxExact, box);
  show(`per-entry bounds, ${allocation}`, results[allocation]);
}
const gain = gaussianMechanism({ sensitivity, epsilon: 1, delta }).gain;
console.log(
  `\nIn the box, optimal / iid SRE = ${results.optimal.map((x, i) => (x / results.iid[i]).toFixed(3)).join(', ')} (the allocation's MSE gain: ${gain.toFixed(2)}).`,
);
