// Differentially private PCA (the journal paper's section VI-B): release the upper triangle of
// A = X^T X with per-entry noise (sensitivity 1 on the diagonal, 1/2 off it, for unit rows under
// add/remove of one user), mirror it, and keep the top-k eigenvectors. Compares identical (iid)
// and optimal non-identical (optimal) noise on the same sensitivity profile by the subspace
// recovery error SRE = ||(I - U_hat U_hat^T) U||_F^2 / k against the noiseless top-k subspace U.
// Run: node examples/pca.mjs   (after `npm ci`)
import {
  addGaussianNoise,
  addLaplaceNoise,
  createRng,
  gaussianMu,
  gramMatrix,
  privateCovariance,
  subspaceError,
  syntheticPcaData,
  topEigenvectors,
} from 'dpnoise';

const n = 5000; // users
const d = 20; // features
const k = 3; // rank of the subspace
const delta = 1e-5; // Gaussian only; Laplace noise is pure epsilon-DP
const epsilons = [0.5, 1, 2, 4];
const trials = 50;

// Fully random model: a random k-dimensional subspace, Gaussian points in it plus isotropic
// noise of the same size, every row normalised to unit l2 norm.
const { rows } = syntheticPcaData({ n, d, k, noise: 1, rng: createRng({ seed: 'pca-example-data' }) });
const exact = gramMatrix(rows);
const truth = topEigenvectors(exact, d, k);
const sre = (matrix) => subspaceError(topEigenvectors(matrix, d, k), truth, d, k);

const settings = [
  ['Gaussian', 'iid', { noise: 'gaussian', delta, allocation: 'iid' }],
  ['Gaussian', 'optimal', { noise: 'gaussian', delta, allocation: 'optimal' }],
  ['Laplace', 'iid', { noise: 'laplace', allocation: 'iid' }],
  ['Laplace', 'optimal', { noise: 'laplace', allocation: 'optimal' }],
];

const results = settings.map(() => []);
const gains = settings.map(() => []);
for (const epsilon of epsilons) {
  settings.forEach(([, , options], s) => {
    let sum = 0;
    for (let t = 0; t < trials; t++) {
      // One seed per (epsilon, trial), shared by iid and optimal: the same standard draws,
      // scaled differently, so the comparison is paired (simulation only: seeded noise is not private).
      const rng = createRng({ seed: `pca-example-${epsilon}-${t}` });
      const release = privateCovariance({ data: rows, epsilon, rng, ...options });
      sum += sre(release.matrix);
      if (t === 0) gains[s].push(release.calibration.gain);
    }
    results[s].push(sum / trials);
  });
}

const cell = (x) => (x >= 0.001 ? x.toFixed(4) : x.toExponential(1)).padStart(9);
console.log(`DP-PCA: n = ${n} unit rows in R^${d}, top-${k} subspace, mean SRE over ${trials} trials`);
console.log(
  `(SRE = ||(I - U_hat U_hat^T) U||_F^2 / k; 0 is exact, ${(1 - k / d).toFixed(2)} is a random subspace; Gaussian delta = ${delta.toExponential()})\n`,
);
console.log(`mechanism  noise      ${epsilons.map((e) => `eps=${e}`.padStart(9)).join('')}   MSE gain of optimal`);
settings.forEach(([family, allocation], s) => {
  const gain = allocation === 'optimal' ? `   ${gains[s][0].toFixed(3)}` : '';
  console.log(`${family.padEnd(10)} ${allocation.padEnd(10)} ${results[s].map(cell).join('')}${gain}`);
});
for (const [family, iid, optimal] of [
  ['Gaussian', 0, 1],
  ['Laplace', 2, 3],
]) {
  const ratios = results[optimal].map((x, i) => (x / results[iid][i]).toFixed(3));
  console.log(`${family}: SRE of optimal / iid = ${ratios.join(', ')}`);
}

// For reference: noise calibrated to the joint sensitivity of the whole upper triangle instead
// of the per-entry box bound. For a unit row, sum_{i<=j} (x_i x_j)^2 <= 1 (l2 sensitivity 1,
// Dwork et al.'s "Analyze Gauss") and sum_{i<=j} |x_i x_j| <= (d + 1)/2 (l1 sensitivity).
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
const reference = [
  ['Gaussian', (eps, rng) => addGaussianNoise(upperOf(exact), 1 / gaussianMu(eps, delta), { rng })],
  ['Laplace', (eps, rng) => addLaplaceNoise(upperOf(exact), (d + 1) / 2 / eps, { rng })],
];
console.log('\nReference, iid noise on the joint (not per-entry) sensitivity:');
for (const [family, release] of reference) {
  const means = epsilons.map((epsilon) => {
    let sum = 0;
    for (let t = 0; t < trials; t++) sum += sre(mirror(release(epsilon, createRng({ seed: `pca-example-${epsilon}-${t}` }))));
    return sum / trials;
  });
  console.log(`${family.padEnd(10)} ${(family === 'Gaussian' ? 'l2 = 1' : `l1 = ${(d + 1) / 2}`).padEnd(10)} ${means.map(cell).join('')}`);
}
