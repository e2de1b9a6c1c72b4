// Differentially private coordinate descent (DP-CD, Mangold et al. 2022) with per-coordinate
// Gaussian noise, and the journal's "improved DP-CD" (section VI-A, appendix C), which replaces
// DP-CD's noise scales (proportional to the clipping thresholds: the `spr` allocation) by the
// optimal non-identical scales of docs/math.md, "Allocations".
//
// Which optimum: the noise n_j of an update moves w_j by gamma_j n_j, which raises F by about
// M_j gamma_j^2 n_j^2 / 2 = gamma_j n_j^2 / 2 for the usual step gamma_j = 1 / M_j. So by default
// `optimal` minimises sum_j gamma_j sigma_j^2 (calibrateGaussian's `weights` = the step sizes);
// `noiseWeights: 'uniform'` minimises the gradient noise's MSE sum_j sigma_j^2 instead, as in the
// journal. (With other step sizes the cost is M_j gamma_j^2 sigma_j^2; the weights stay gamma_j,
// which needs no data.) With thresholds C_j proportional to sqrt(M_j), `spr` already minimises
// the weighted cost (the two allocations coincide) and the unweighted optimum costs more than
// `spr`; the gain comes when C_j / sqrt(M_j) differs across coordinates.
//
// Problem: minimise F(w) = (1/n) sum_i loss(<w, x_i>, y_i) + l1 ||w||_1 + (l2 / 2) ||w||_2^2.
// Losses: squared (1/2)(z - y)^2, logistic log(1 + exp(-y z)) with labels y in {-1, +1}.
//
// One pass updates every coordinate once, in the order 0, 1, ..., d - 1. Update j computes every
// record's coordinate gradient g_ij at the current point, clips it to [-C_j, C_j], averages,
// adds N(0, sigma_j^2) and takes a proximal step: w_j <- prox(w_j - gamma_j (avg_j + noise_j)),
// the prox of gamma_j (l1 |.| + (l2 / 2) (.)^2) being soft-thresholding at gamma_j l1 followed by
// a division by 1 + gamma_j l2.
//
// Privacy accounting (replace-one neighbours: n is public, one record is replaced):
//  - Each update releases one number, avg_j + noise_j, a Gaussian mechanism with sensitivity
//    Delta_j = 2 C_j / n: record i's clipped term depends only on that record and the current
//    point (itself a function of the earlier releases), so replacing one record moves one term,
//    by at most 2 C_j; the distance is Delta_j / sigma_j. The iterates and the output are
//    post-processing of the releases.
//  - A run is the adaptive composition of passes * d such mechanisms; Gaussian mechanisms compose
//    exactly in Gaussian DP (Dong, Roth & Su 2019): the run is mu-GDP with
//    mu^2 = sum over updates of (Delta_j / sigma_j)^2 = passes * sum_j (Delta_j / sigma_j)^2.
//  - mu-GDP is (epsilon, delta(epsilon; mu))-DP (docs/math.md, "Gaussian privacy"), so the run is
//    (epsilon, delta)-DP when mu <= mu0(epsilon, delta). We calibrate one pass with
//    calibrateGaussian (sum_j (Delta_j / sigma_j)^2 <= mu0^2, scales rounded up by the library)
//    and multiply every scale by sqrt(passes), rounded up by a relative 2^-40: then
//    passes * sum_j (Delta_j / (sqrt(passes) sigma_j))^2 <= mu0^2. This equals calibrating the
//    whole run at once (the profile Delta repeated `passes` times) for every allocation, and the
//    code checks the total before drawing any noise.
//  - What the guarantee does not cover: the clipping thresholds, step sizes and number of passes
//    must not depend on the private data. The default step sizes 1 / M_j are computed from the
//    features (as in the paper, which assumes the smoothness constants M_j public); pass
//    `stepSizes` from public information for an end-to-end guarantee.
import { ALLOCATIONS, calibrateGaussian, type Allocation } from '../calibrate/allocations.js';
import { DELTA, MAX_SCALE } from '../core/domains.js';
import { sourceOf, type Rng } from '../noise/random.js';
import { gaussianNoise } from '../noise/samplers.js';
import { type Entries, FINITE_ENTRIES, integerIn, numberIn, oneOf, readOptions, type Range, vector } from '../core/validate.js';

/** The losses: least squares (LASSO, ridge) and logistic regression. */
export const LOSSES = ['squared', 'logistic'] as const;
/** `squared`: (1/2)(<w, x> - y)^2; `logistic`: log(1 + exp(-y <w, x>)) with y in {-1, +1}. */
export type Loss = (typeof LOSSES)[number];

/** How the optimal allocation weighs the noise: by the step sizes (default) or uniformly (the paper's). */
export const NOISE_WEIGHTS = ['step-sizes', 'uniform'] as const;
/** What the `optimal` allocation minimises: see PrivateCoordinateDescentOptions.noiseWeights. */
export type NoiseWeights = (typeof NOISE_WEIGHTS)[number];

/** An empirical risk minimisation problem. */
export interface CoordinateDescentProblem {
  /** The n x d feature matrix, row-major: entry (i, j) is features[i * d + j]. */
  features: Float64Array;
  /** The n labels (any finite numbers for `squared`, -1 or +1 for `logistic`). */
  labels: Float64Array | readonly number[];
  /** 'squared' or 'logistic' (labels +1 or -1). */
  loss: Loss;
  /** Strength of the l1 (LASSO) regulariser l1 ||w||_1 (default 0). */
  l1?: number;
  /** Strength of the l2 (ridge) regulariser (l2 / 2) ||w||_2^2 (default 0). */
  l2?: number;
}

export interface CoordinateDescentOptions extends CoordinateDescentProblem {
  /** Passes over the coordinates; each pass updates every coordinate once. */
  passes: number;
  /** Per-coordinate step sizes gamma_j > 0 (default 1 / M_j, from coordinateSmoothness). */
  stepSizes?: Float64Array | readonly number[];
}

export interface PrivateCoordinateDescentOptions extends CoordinateDescentOptions {
  /** Clipping thresholds C_j >= 0: every record's coordinate-j gradient is clipped to [-C_j, C_j]. */
  clip: Float64Array | readonly number[];
  /** The whole run is (epsilon, delta)-DP under replace-one neighbours. */
  epsilon: number;
  /** delta in [1e-300, 1). */
  delta: number;
  /** `optimal` (default; improved DP-CD), `spr` (DP-CD: scales proportional to C_j) or `iid`. */
  allocation?: Allocation;
  /**
   * The error that `optimal` minimises, sum_j w_j sigma_j^2: `step-sizes` (default) takes
   * w_j = gamma_j, so that it minimises the increase of F that the noise causes to first order
   * (noise n_j moves w_j by gamma_j n_j, which costs M_j gamma_j^2 n_j^2 / 2 = gamma_j n_j^2 / 2
   * with gamma_j = 1 / M_j); `uniform` takes w_j = 1 (the noise's MSE). Ignored by `spr`, `iid`.
   */
  noiseWeights?: NoiseWeights;
  /** The random source (default: the platform CSPRNG; createRng({ seed }) for experiments). */
  rng?: Rng;
}

/** What privateCoordinateDescent returns. */
export interface PrivateCoordinateDescentResult {
  /** The parameter vector w after the last pass. */
  parameters: Float64Array;
  /** sigma_j: the standard deviation of the noise added to coordinate j's averaged clipped gradient at each of its updates. */
  scales: Float64Array;
  /** Delta_j = 2 C_j / n: the sensitivity of coordinate j's averaged clipped gradient. */
  sensitivity: Float64Array;
  /** The step sizes gamma_j used. */
  stepSizes: Float64Array;
  /** mu0(epsilon, delta): the Gaussian-DP distance the whole run meets. */
  mu: number;
  /** sqrt(sum over all updates of (Delta_j / sigma_j)^2): the run's distance, at most `mu`. */
  runMu: number;
  /** Updates in total: passes * d. */
  updates: number;
}

/** Features and labels within +-1e100, so no loss or gradient can overflow for bounded w. */
const DATA_LIMIT = 1e100;
const FEATURE_ENTRIES: Entries = { min: -DATA_LIMIT, max: DATA_LIMIT, basic: 'a finite number', range: `a number >= -${DATA_LIMIT} and <= ${DATA_LIMIT}` };
/** Clipping thresholds: 0 or in [1e-100, 1e100], so 2 C / n stays within calibrateGaussian's domain. */
const CLIP_ENTRIES: Entries = { min: 1e-100, max: 1e100, zero: true, basic: 'a finite number >= 0', range: '0 or between 1e-100 and 1e+100' };
const STEP_ENTRIES: Entries = { min: 1e-100, max: 1e100, basic: 'a finite number > 0', range: 'between 1e-100 and 1e+100' };
const STRENGTH: Range = { min: 0, max: 1e100 };
const PASSES: Range = { min: 1, max: 1e6 };
/** Epsilon > 0: at 0 no noise is enough. */
const EPSILON: Range = { min: 0, max: 1e6, minOpen: true };

const PROBLEM_OPTIONS = ['features', 'labels', 'loss', 'l1', 'l2'] as const;
const DESCENT_OPTIONS = [...PROBLEM_OPTIONS, 'passes', 'stepSizes'] as const;
const PRIVATE_OPTIONS = [...DESCENT_OPTIONS, 'clip', 'epsilon', 'delta', 'allocation', 'noiseWeights', 'rng'] as const;

interface Problem {
  x: Float64Array;
  y: Float64Array;
  n: number;
  d: number;
  /** 'squared' or 'logistic' (labels +1 or -1). */
  loss: Loss;
  l1: number;
  l2: number;
}

function readProblem(o: Record<string, unknown>): Problem {
  const loss = oneOf('loss', o.loss, LOSSES);
  const y = vector('labels', o.labels, FEATURE_ENTRIES);
  if (loss === 'logistic') {
    const bad = y.findIndex((v) => v !== 1 && v !== -1);
    if (bad >= 0) throw new RangeError(`dpnoise: \`labels[${bad}]\` must be -1 or 1 for the logistic loss; got ${y[bad]}.`);
  }
  const n = y.length;
  const x = vector('features', o.features, FEATURE_ENTRIES, { arrays: false });
  if (x.length % n !== 0) {
    throw new RangeError(`dpnoise: \`features.length\` must be a multiple of \`labels.length\` (${n}); got ${x.length}.`);
  }
  return {
    x,
    y,
    n,
    d: x.length / n,
    loss,
    l1: o.l1 === undefined ? 0 : numberIn('l1', o.l1, STRENGTH),
    l2: o.l2 === undefined ? 0 : numberIn('l2', o.l2, STRENGTH),
  };
}

/** M_j: the coordinate-wise smoothness constants of the (unregularised) average loss. */
function smoothness({ x, n, d, loss }: Problem): Float64Array {
  const m = new Float64Array(d);
  for (let i = 0, k = 0; i < n; i++) for (let j = 0; j < d; j++, k++) m[j]! += x[k]! * x[k]!;
  const factor = loss === 'squared' ? 1 / n : 1 / (4 * n);
  for (let j = 0; j < d; j++) m[j]! *= factor;
  return m;
}

function readStepSizes(o: Record<string, unknown>, p: Problem): Float64Array {
  if (o.stepSizes !== undefined) return Float64Array.from(vector('stepSizes', o.stepSizes, STEP_ENTRIES, { length: p.d }));
  const m = smoothness(p);
  const zero = m.findIndex((v) => !(v > 0));
  if (zero >= 0) throw new RangeError(`dpnoise: feature column ${zero} is all zeros, so it has no default step size; drop it or pass \`stepSizes\`.`);
  const steps = m.map((v) => 1 / v);
  const bad = steps.findIndex((s) => !(s >= STEP_ENTRIES.min && s <= STEP_ENTRIES.max));
  if (bad >= 0) throw new RangeError(`dpnoise: the default step size of coordinate ${bad} (${steps[bad]}) is outside [1e-100, 1e100]; rescale the features or pass \`stepSizes\`.`);
  return steps;
}

/** d loss(z, y) / dz. */
function derivative(loss: Loss, z: number, y: number): number {
  return loss === 'squared' ? z - y : -y / (1 + Math.exp(y * z));
}

/** log(1 + e^t) without overflow. */
function softplus(t: number): number {
  return t > 0 ? t + Math.log1p(Math.exp(-t)) : Math.log1p(Math.exp(t));
}

/** The proximal operator of gamma (l1 |.| + (l2 / 2) (.)^2) at v. */
function prox(v: number, gamma: number, l1: number, l2: number): number {
  const t = gamma * l1;
  const s = v > t ? v - t : v < -t ? v + t : 0;
  return l2 === 0 ? s : s / (1 + gamma * l2);
}

/**
 * `passes` cyclic passes of proximal coordinate descent from w = 0. With `clip`, every record's
 * coordinate gradient is clipped to [-C_j, C_j]; with `noise`, noise() gives one pass's noise.
 */
function descend(p: Problem, passes: number, steps: Float64Array, clip?: Float64Array, noise?: () => Float64Array): Float64Array {
  const { x, y, n, d, loss, l1, l2 } = p;
  const w = new Float64Array(d);
  const z = new Float64Array(n); // z_i = <w, x_i>
  for (let pass = 0; pass < passes; pass++) {
    const eta = noise?.();
    for (let j = 0; j < d; j++) {
      const c = clip ? clip[j]! : Infinity;
      let sum = 0;
      for (let i = 0, k = j; i < n; i++, k += d) {
        const g = derivative(loss, z[i]!, y[i]!) * x[k]!;
        sum += g > c ? c : g < -c ? -c : g;
      }
      const gradient = sum / n + (eta ? eta[j]! : 0);
      const next = prox(w[j]! - steps[j]! * gradient, steps[j]!, l1, l2);
      const change = next - w[j]!;
      if (change !== 0) {
        for (let i = 0, k = j; i < n; i++, k += d) z[i]! += change * x[k]!;
        w[j] = next;
      }
    }
  }
  return w;
}

/**
 * M_j, the coordinate-wise smoothness constants of the average loss: (1/n) sum_i x_ij^2 for the
 * squared loss, a quarter of that for the logistic loss. Computed from the data, so not private.
 */
export function coordinateSmoothness(problem: CoordinateDescentProblem): Float64Array {
  return smoothness(readProblem(readOptions('problem', problem, PROBLEM_OPTIONS)));
}

/** F(w) = (1/n) sum_i loss(<w, x_i>, y_i) + l1 ||w||_1 + (l2 / 2) ||w||_2^2. */
export function objective(problem: CoordinateDescentProblem, parameters: Float64Array | readonly number[]): number {
  const p = readProblem(readOptions('problem', problem, PROBLEM_OPTIONS));
  const w = vector('parameters', parameters, FINITE_ENTRIES, { length: p.d });
  const { x, y, n, d, loss, l1, l2 } = p;
  let total = 0;
  for (let i = 0, k = 0; i < n; i++) {
    let z = 0;
    for (let j = 0; j < d; j++, k++) z += w[j]! * x[k]!;
    total += loss === 'squared' ? 0.5 * (z - y[i]!) ** 2 : softplus(-y[i]! * z);
  }
  let norm1 = 0;
  let norm2 = 0;
  for (let j = 0; j < d; j++) {
    norm1 += Math.abs(w[j]!);
    norm2 += w[j]! * w[j]!;
  }
  return total / n + l1 * norm1 + 0.5 * l2 * norm2;
}

/**
 * Non-private proximal coordinate descent (no clipping, no noise) from w = 0: the reference
 * optimum w* for relative errors (F(w) - F(w*)) / F(w*). Returns w after `passes` passes.
 */
export function coordinateDescent(options: CoordinateDescentOptions): Float64Array {
  const o = readOptions('options', options, DESCENT_OPTIONS);
  const p = readProblem(o);
  const passes = integerIn('passes', o.passes, PASSES);
  return descend(p, passes, readStepSizes(o, p));
}

/**
 * (epsilon, delta)-DP proximal coordinate descent under replace-one neighbours: `passes` cyclic
 * passes from w = 0, each coordinate gradient clipped per record to [-C_j, C_j], averaged and
 * perturbed with Gaussian noise of standard deviation sigma_j. The scales are calibrated for the
 * whole run (the Gaussian composition of all passes * d updates, see the top of this file):
 * allocation `spr` is DP-CD (sigma_j proportional to C_j), `optimal` the improved DP-CD.
 */
export function privateCoordinateDescent(options: PrivateCoordinateDescentOptions): PrivateCoordinateDescentResult {
  const o = readOptions('options', options, PRIVATE_OPTIONS);
  const p = readProblem(o);
  const passes = integerIn('passes', o.passes, PASSES);
  const clip = Float64Array.from(vector('clip', o.clip, CLIP_ENTRIES, { length: p.d }));
  const epsilon = numberIn('epsilon', o.epsilon, EPSILON);
  const delta = numberIn('delta', o.delta, DELTA);
  const allocation = o.allocation === undefined ? 'optimal' : oneOf('allocation', o.allocation, ALLOCATIONS);
  const noiseWeights = o.noiseWeights === undefined ? 'step-sizes' : oneOf('noiseWeights', o.noiseWeights, NOISE_WEIGHTS);
  sourceOf(o.rng); // throws for anything but a generator from createRng
  const rng = o.rng as Rng | undefined;
  const steps = readStepSizes(o, p);

  // One pass at (epsilon, delta), then every scale times sqrt(passes), rounded up.
  const sensitivity = clip.map((c) => (2 * c) / p.n);
  const weighted = allocation === 'optimal' && noiseWeights === 'step-sizes';
  const pass = calibrateGaussian({ sensitivity, epsilon, delta, allocation, ...(weighted ? { weights: steps } : {}) });
  const factor = Math.sqrt(passes) * (1 + 2 ** -40);
  const scales = pass.scales.map((s) => s * factor);

  // The whole run's distance: passes * sum_j (Delta_j / sigma_j)^2 (a 0 sensitivity costs nothing).
  let perPass = 0;
  for (let j = 0; j < p.d; j++) if (sensitivity[j]! > 0) perPass += (sensitivity[j]! / scales[j]!) ** 2;
  const runMu = Math.sqrt(passes * perPass);
  if (!(runMu <= pass.mu)) throw new Error(`dpnoise: internal error: the run's distance ${runMu} exceeds mu0 = ${pass.mu}.`);
  const largest = scales.reduce((a, b) => Math.max(a, b), 0);
  if (!(largest <= MAX_SCALE)) {
    throw new RangeError(`dpnoise: the noise for these clipping thresholds, passes and privacy level overflows (scale ${largest}); use a larger epsilon or delta, fewer passes, or smaller \`clip\`.`);
  }

  const sampleOptions = rng === undefined ? undefined : { rng };
  const parameters = descend(p, passes, steps, clip, () => gaussianNoise(p.d, scales, sampleOptions));
  return { parameters, scales, sensitivity, stepSizes: steps, mu: pass.mu, runMu, updates: passes * p.d };
}
