// Differentially private coordinate descent (DP-CD, Mangold et al. 2022) with per-coordinate
// Gaussian noise, and the journal's "improved DP-CD" (section VI-A, appendix C), which replaces
// DP-CD's noise scales (proportional to the clipping thresholds: the `spr` allocation) by the
// optimal non-identical scales of docs/calibration.md, "Allocations".
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
//    post-processing of the releases. The average is a floating-point sum of n terms, so Delta_j
//    is raised by 2 n gamma_n (docs/mechanisms.md, "Floating-point safety": queries the library computes).
//  - A run is the adaptive composition of passes * d such mechanisms; Gaussian mechanisms compose
//    exactly in Gaussian DP (Dong, Roth & Su 2019): the run is mu-GDP with
//    mu^2 = sum over updates of (Delta_j / sigma_j)^2 = passes * sum_j (Delta_j / sigma_j)^2.
//  - Each pass is one release of gaussianMechanism's kind for the profile Delta (weighed by the
//    step sizes for `optimal`), at distance mu / sqrt(passes), its coordinates released one at a
//    time (releaseBlock: independent noise, the law of one release), and the run is that
//    mechanism composed `passes` times. mu is the largest distance whose run meets (epsilon,
//    delta) by the run's own figures (calibrateGridGaussian): in continuous mode mu0(epsilon,
//    delta) less 2^-40, and in grid mode (the default) a little less, for the discrete Gaussian
//    noise of the rounded sensitivities g ceil(Delta_j / g), accounted by the Gaussians around it
//    (docs/accounting.md, "Discrete Gaussian"). Every released gradient is then an exact multiple
//    of the grid g: no low bit of a release depends on the data.
//  - The clipping thresholds, step sizes and number of passes are the caller's public choices:
//    nothing computed from the data may set them, since they set the noise (the step sizes weigh
//    the optimal allocation). So privateCoordinateDescent requires `stepSizes` and has no default
//    from the features (coordinateDescent's 1 / M_j, which the paper assumes public, would make
//    the scales of two neighbouring datasets differ). Public bounds on the features give them:
//    |x_ij| <= B_j bounds M_j by B_j^2 (squared loss) or B_j^2 / 4 (logistic), so gamma_j = 1 / that.
import { type PrivacyBudget, readBudgetArgument } from '../accounting/ledger.js';
import { calibrateGridGaussian, GAUSSIAN_NOTIONS } from '../accounting/distance.js';
import { compose } from '../accounting/combinators.js';
import type { GdpPrivacy, Privacy, ZcdpPrivacy } from '../accounting/privacy.js';
import { ALLOCATIONS, type Allocation, type Profile } from '../calibrate/allocations.js';
import { type GaussianTarget, readTarget } from '../core/target.js';
import { frozenResult } from '../core/frozen.js';
import { GAUSSIAN } from '../noise/families.js';
import { summationFactor } from '../core/summation.js';
import { type Entries, FINITE_ENTRIES, fail, integerIn, numberIn, oneOf, readOptions, type Range, vector, vectorLength } from '../core/validate.js';
import { type Mode, type ModeOptions, readMode } from '../mechanisms/grid.js';
import { type GaussianMechanism, independentMechanism, releaseBlock } from '../mechanisms/independent.js';
import { sourceOf, type Rng } from '../noise/random.js';

/**
 * The losses: least squares (LASSO, ridge) and logistic regression.
 *
 * @group Applications
 */
export const LOSSES = ['squared', 'logistic'] as const;
/**
 * `squared`: (1/2)(<w, x> - y)^2; `logistic`: log(1 + exp(-y <w, x>)) with y in {-1, +1}.
 *
 * @group Applications
 */
export type Loss = (typeof LOSSES)[number];

/**
 * How the optimal allocation weighs the noise: by the step sizes (default) or uniformly (the paper's).
 *
 * @group Applications
 */
export const NOISE_WEIGHTS = ['step-sizes', 'uniform'] as const;
/**
 * What the `optimal` allocation minimises: see PrivateCoordinateDescentOptions.noiseWeights.
 *
 * @group Applications
 */
export type NoiseWeights = (typeof NOISE_WEIGHTS)[number];

/**
 * An empirical risk minimisation problem.
 *
 * @group Applications
 */
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

/**
 * Options of coordinateDescent: the problem, and the passes and step sizes.
 *
 * @group Applications
 */
export interface CoordinateDescentOptions extends CoordinateDescentProblem {
  /** Passes over the coordinates; each pass updates every coordinate once. */
  passes: number;
  /** Per-coordinate step sizes gamma_j > 0 (default 1 / M_j, from coordinateSmoothness). */
  stepSizes?: Float64Array | readonly number[];
}

/**
 * Options of privateCoordinateDescent: coordinateDescent's, the target (`epsilon` and `delta`, `mu`
 * or `rho`: the whole run meets it under replace-one neighbours), and the clipping and noise.
 *
 * @group Applications
 */
export type PrivateCoordinateDescentOptions = CoordinateDescentOptions &
  GaussianTarget & {
    /**
     * Per-coordinate step sizes gamma_j > 0, required: they must not come from the private data
     * (they weigh the noise). From public feature bounds |x_ij| <= B_j: 1 / B_j^2 for the squared
     * loss, 4 / B_j^2 for the logistic loss.
     */
    stepSizes: Float64Array | readonly number[];
    /** Clipping thresholds C_j >= 0: every record's coordinate-j gradient is clipped to [-C_j, C_j]. */
    clip: Float64Array | readonly number[];
    /** `optimal` (default; improved DP-CD), `spr` (DP-CD: scales proportional to C_j) or `iid`. */
    allocation?: Allocation;
    /**
     * The error that `optimal` minimises, sum_j w_j sigma_j^2: `step-sizes` (default) takes
     * w_j = gamma_j, so that it minimises the increase of F that the noise causes to first order
     * (noise n_j moves w_j by gamma_j n_j, which costs M_j gamma_j^2 n_j^2 / 2 = gamma_j n_j^2 / 2
     * with gamma_j = 1 / M_j); `uniform` takes w_j = 1 (the noise's MSE). Ignored by `spr`, `iid`.
     */
    noiseWeights?: NoiseWeights;
    /** A ledger (createBudget) charged the run's `privacy` once the options and the records' shape are checked, before any record is read. */
    budget?: PrivacyBudget;
    /** The random source (default: the platform CSPRNG; createRng({ seed }) for experiments). */
    rng?: Rng;
    /** 'grid' (default: every update's noisy gradient exact on a power-of-two grid, discrete Gaussian noise) or 'continuous' (simulations only: not floating-point safe). */
    mode?: Mode;
    /** Grid mode's step, a power of two (default: fine enough that rounding costs at most 2^-10 of the smallest sensitivity). */
    grid?: number;
  };

/**
 * What privateCoordinateDescent returns.
 *
 * @group Applications
 */
export interface PrivateCoordinateDescentResult {
  /** The parameter vector w after the last pass. */
  readonly parameters: Float64Array;
  /** sigma_j: the standard deviation of the noise added to coordinate j's averaged clipped gradient at each of its updates. */
  readonly scales: Float64Array;
  /** Delta_j: the sensitivity of coordinate j's averaged clipped gradient, 2 C_j / n raised to cover the floating-point sum (by 2.2e-12 relative at n = 100). */
  readonly sensitivity: Float64Array;
  /** The step sizes gamma_j used. */
  readonly stepSizes: Float64Array;
  /** The distance the run is calibrated to: mu0(epsilon, delta) less 2^-40 (continuous), or the largest mu whose grid noise meets (epsilon, delta) by its own figures (grid). */
  readonly mu: number;
  /** The run's own distance: sqrt(sum over all updates of (Delta_j / sigma_j)^2), or in grid mode sqrt(2 rho) for the rounded sensitivities (which the tighter Gaussian route may let exceed `mu`). */
  readonly runMu: number;
  /** The privacy of the whole run: mu-GDP (continuous) or rho-zCDP with the Gaussian route (grid), the pass's mechanism composed over the passes. */
  readonly privacy: GdpPrivacy | ZcdpPrivacy;
  /** 'grid' or 'continuous'. */
  readonly mode: Mode;
  /** Grid mode: every released gradient was an exact multiple of this power of two. */
  readonly grid: number | undefined;
  /** Updates in total: passes * d. */
  readonly updates: number;
}

/** Features and labels within +-1e100, so no loss or gradient can overflow for bounded w. */
const DATA_LIMIT = 1e100;
const FEATURE_ENTRIES: Entries = { min: -DATA_LIMIT, max: DATA_LIMIT, basic: 'a finite number', range: `a number >= -${DATA_LIMIT} and <= ${DATA_LIMIT}` };
/** Logistic labels: -1 or 1 (the range lets the check below find the others), in the same words whatever the value. */
const LOGISTIC_LABELS: Entries = { min: -1, max: 1, basic: '-1 or 1 for the logistic loss', range: '-1 or 1 for the logistic loss' };
/** Clipping thresholds: 0 or in [1e-100, 1e100], so 2 C / n stays within calibrateGaussian's domain. */
const CLIP_ENTRIES: Entries = { min: 1e-100, max: 1e100, zero: true, basic: 'a finite number >= 0', range: '0 or between 1e-100 and 1e+100' };
const STEP_ENTRIES: Entries = { min: 1e-100, max: 1e100, basic: 'a finite number > 0', range: 'between 1e-100 and 1e+100' };
const STRENGTH: Range = { min: 0, max: 1e100 };
const PASSES: Range = { min: 1, max: 1e6 };

const PROBLEM_OPTIONS = ['features', 'labels', 'loss', 'l1', 'l2'] as const;
const DESCENT_OPTIONS = [...PROBLEM_OPTIONS, 'passes', 'stepSizes'] as const;
const PRIVATE_OPTIONS = [...DESCENT_OPTIONS, 'clip', 'epsilon', 'delta', 'mu', 'rho', 'allocation', 'noiseWeights', 'budget', 'rng', 'mode', 'grid'] as const;

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

/** A problem's public part: the loss, the regularisation and the records' shape (n and d), no record read. */
type ProblemShape = Omit<Problem, 'x' | 'y'>;

function readShape(o: Record<string, unknown>): ProblemShape {
  const loss = oneOf('loss', o.loss, LOSSES);
  const n = vectorLength('labels', o.labels, { private: true });
  if (n === 0) fail(RangeError, 'labels.length', 'at least 1', 0);
  const m = vectorLength('features', o.features, { arrays: false, private: true });
  if (m === 0) fail(RangeError, 'features.length', 'at least 1', 0);
  if (m % n !== 0) throw new RangeError(`dpnoise: \`features.length\` must be a multiple of \`labels.length\` (${n}); got ${m}.`);
  return {
    n,
    d: m / n,
    loss,
    l1: o.l1 === undefined ? 0 : numberIn('l1', o.l1, STRENGTH),
    l2: o.l2 === undefined ? 0 : numberIn('l2', o.l2, STRENGTH),
  };
}

/** The problem: its shape (readShape), then its records, of that shape. */
function readProblem(o: Record<string, unknown>, shape: ProblemShape = readShape(o)): Problem {
  const { n, d, loss } = shape;
  // The records are private: errors name an entry, never its value.
  const y = vector('labels', o.labels, loss === 'logistic' ? LOGISTIC_LABELS : FEATURE_ENTRIES, { length: n, private: true });
  if (loss === 'logistic') {
    const bad = y.findIndex((v) => v !== 1 && v !== -1);
    if (bad >= 0) fail(RangeError, `labels[${bad}]`, '-1 or 1 for the logistic loss', y[bad], { private: true });
  }
  const x = vector('features', o.features, FEATURE_ENTRIES, { arrays: false, length: n * d, private: true });
  return { ...shape, x, y };
}

/** M_j: the coordinate-wise smoothness constants of the (unregularised) average loss. */
function smoothness({ x, n, d, loss }: Problem): Float64Array {
  const m = new Float64Array(d);
  for (let i = 0, k = 0; i < n; i++) for (let j = 0; j < d; j++, k++) m[j]! += x[k]! * x[k]!;
  const factor = loss === 'squared' ? 1 / n : 1 / (4 * n);
  for (let j = 0; j < d; j++) m[j]! *= factor;
  return m;
}

/** The given step sizes, public. */
function givenStepSizes(o: Record<string, unknown>, d: number): Float64Array {
  return Float64Array.from(vector('stepSizes', o.stepSizes, STEP_ENTRIES, { length: d }));
}

function readStepSizes(o: Record<string, unknown>, p: Problem): Float64Array {
  if (o.stepSizes !== undefined) return givenStepSizes(o, p.d);
  const m = smoothness(p);
  const zero = m.findIndex((v) => !(v > 0));
  if (zero >= 0) throw new RangeError(`dpnoise: feature column ${zero} is all zeros, so it has no default step size; drop it or pass \`stepSizes\`.`);
  const steps = m.map((v) => 1 / v);
  const bad = steps.findIndex((s) => !(s >= STEP_ENTRIES.min && s <= STEP_ENTRIES.max));
  // Named by its coordinate, not shown: it is computed from the features.
  if (bad >= 0)
    throw new RangeError(`dpnoise: the default step size of coordinate ${bad} is outside [1e-100, 1e100]; rescale the features or pass \`stepSizes\`.`);
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

/** Draws one pass's noise and returns the release of coordinate j's averaged clipped gradient. */
type NoisyPass = (pass: number) => (j: number, average: number) => number;

/**
 * `passes` cyclic passes of proximal coordinate descent from w = 0. With `clip`, every record's
 * coordinate gradient is clipped to [-C_j, C_j]; with `noisyPass`, the averages are released with noise.
 */
function descend(p: Problem, passes: number, steps: Float64Array, clip?: Float64Array, noisyPass?: NoisyPass): Float64Array {
  const { x, y, n, d, loss, l1, l2 } = p;
  const w = new Float64Array(d);
  const z = new Float64Array(n); // z_i = <w, x_i>
  for (let pass = 0; pass < passes; pass++) {
    const release = noisyPass?.(pass);
    for (let j = 0; j < d; j++) {
      const c = clip ? clip[j]! : Infinity;
      let sum = 0;
      for (let i = 0, k = j; i < n; i++, k += d) {
        const g = derivative(loss, z[i]!, y[i]!) * x[k]!;
        sum += Math.min(c, Math.max(g, -c));
      }
      const gradient = release ? release(j, sum / n) : sum / n;
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
 *
 * @example
 * ```ts
 * import { coordinateSmoothness } from 'dpnoise';
 *
 * const features = new Float64Array([1, 2, 3, 4]); // 2 records, 2 features
 * const problem = { features, labels: [1, -1], loss: 'squared' } as const;
 * console.log(coordinateSmoothness(problem)); // [5, 10]: the mean x_ij^2
 * ```
 *
 * @group Applications
 */
export function coordinateSmoothness(problem: CoordinateDescentProblem): Float64Array {
  return smoothness(readProblem(readOptions('problem', problem, PROBLEM_OPTIONS)));
}

/**
 * F(w) = (1/n) sum_i loss(<w, x_i>, y_i) + l1 ||w||_1 + (l2 / 2) ||w||_2^2.
 *
 * @example
 * ```ts
 * import { objective } from 'dpnoise';
 *
 * const features = new Float64Array([1, 0, 0, 1]); // 2 records, 2 features
 * const problem = { features, labels: [1, -1], loss: 'logistic' } as const;
 * console.log(objective(problem, [0, 0])); // log 2 = 0.6931
 * ```
 *
 * @group Applications
 */
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
 *
 * @example
 * ```ts
 * import { coordinateDescent } from 'dpnoise';
 *
 * const features = new Float64Array([1, 0, 0, 1, 1, 1]); // 3 records, 2 features
 * const labels = [1, 2, 3];
 * const w = coordinateDescent({ features, labels, loss: 'squared', passes: 100 });
 * console.log(w); // [1, 2]: the least-squares fit
 * ```
 *
 * @group Applications
 */
export function coordinateDescent(options: CoordinateDescentOptions): Float64Array {
  const o = readOptions('options', options, DESCENT_OPTIONS);
  const p = readProblem(o);
  const passes = integerIn('passes', o.passes, PASSES);
  return descend(p, passes, readStepSizes(o, p));
}

/**
 * One pass's mechanism (independent Gaussian noise for the d averages, as gaussianMechanism
 * releases it) at the run's distance `runMu` split evenly over the passes, and the run's privacy:
 * the mechanism's composed `passes` times.
 */
function passMechanism(profile: Profile, mode: ModeOptions, passes: number, runMu: number): { mechanism: GaussianMechanism; privacy: Privacy } {
  const mechanism = independentMechanism(GAUSSIAN, { notion: 'gdp', mu: runMu / Math.sqrt(passes) }, profile, mode) as GaussianMechanism;
  return { mechanism, privacy: passes === 1 ? mechanism.privacy : compose([{ privacy: mechanism.privacy, times: passes }]) };
}

/**
 * (epsilon, delta)-DP proximal coordinate descent under replace-one neighbours: `passes` cyclic
 * passes from w = 0, each coordinate gradient clipped per record to [-C_j, C_j], averaged and
 * released with Gaussian noise of standard deviation sigma_j (by default exact discrete Gaussian
 * noise on a grid, as the mechanisms release). The scales are calibrated for the whole run (the
 * composition of all passes * d updates, see the top of this file): allocation `spr` is DP-CD
 * (sigma_j proportional to C_j), `optimal` the improved DP-CD.
 *
 * @example
 * ```ts
 * import { coordinateDescent, createRng, gaussianNoise } from 'dpnoise';
 * import { objective, privateCoordinateDescent } from 'dpnoise';
 *
 * // A small regression: n records of d features (row-major), labels
 * // about 2 x_0 - x_1.
 * const n = 1000;
 * const d = 3;
 * const rng = createRng({ seed: 7 });
 * const features = gaussianNoise(n * d, 1, { rng });
 * const labels = Float64Array.from(
 *   { length: n },
 *   (_, i) => 2 * features[i * d]! - features[i * d + 1]! + Math.sin(i),
 * );
 * const problem = { features, labels, loss: 'squared', l1: 0.01 } as const;
 *
 * const result = privateCoordinateDescent({
 *   ...problem,
 *   stepSizes: [1, 1, 1], // public: standard-normal features have M_j = E x^2 = 1
 *   passes: 5,
 *   clip: [2, 2, 2],
 *   epsilon: 1,
 *   delta: 1e-6,
 *   rng,
 * });
 * // Not private: the reference optimum.
 * const best = coordinateDescent({ ...problem, passes: 50 });
 * console.log(result.parameters); // about [2, -1, 0]
 * console.log(objective(problem, result.parameters), objective(problem, best));
 * ```
 *
 * @group Applications
 */
export function privateCoordinateDescent(options: PrivateCoordinateDescentOptions): PrivateCoordinateDescentResult {
  const o = readOptions('options', options, PRIVATE_OPTIONS);
  const shape = readShape(o);
  const passes = integerIn('passes', o.passes, PASSES);
  const clip = Float64Array.from(vector('clip', o.clip, CLIP_ENTRIES, { length: shape.d }));
  const target = readTarget(o, GAUSSIAN_NOTIONS);
  const allocation = o.allocation === undefined ? 'optimal' : oneOf('allocation', o.allocation, ALLOCATIONS);
  const noiseWeights = o.noiseWeights === undefined ? 'step-sizes' : oneOf('noiseWeights', o.noiseWeights, NOISE_WEIGHTS);
  const mode = readMode(o);
  sourceOf(o.rng); // throws for anything but a generator from createRng
  const rng = o.rng as Rng | undefined;
  const budget = o.budget === undefined ? undefined : readBudgetArgument(o.budget);
  if (o.stepSizes === undefined) {
    throw new TypeError(
      'dpnoise: `stepSizes` is required by privateCoordinateDescent: step sizes computed from the private features would make the noise depend on them. Give public values, e.g. from bounds |x_ij| <= B_j: 1 / B_j^2 (squared loss) or 4 / B_j^2 (logistic loss).',
    );
  }
  const steps = givenStepSizes(o, shape.d);

  // Delta_j = 2 C_j / n, raised to cover the floating-point sum over the n records.
  const sensitivity = clip.map((c) => ((2 * c) / shape.n) * summationFactor(shape.n));
  const weighted = allocation === 'optimal' && noiseWeights === 'step-sizes';
  const profile: Profile = { lambda: sensitivity, weights: weighted ? steps : undefined, grouped: false, allocation, p: 2 };
  // The run's distance: the largest whose `passes` passes meet the budget by their own figures
  // (for continuous noise mu0 itself, less 2^-40), by the one Gaussian calibration.
  const [mu, { mechanism, privacy }] = calibrateGridGaussian(target, (runMu) => passMechanism(profile, mode, passes, runMu));
  // Everything public is read and the run calibrated: the budget is charged before a record is read.
  budget?.spend(privacy);
  const p = readProblem(o, shape);
  // Update j of a pass releases coordinate j alone: the pass is the mechanism's release, its
  // coordinates drawn independently, each as soon as its query is known.
  const noisyPass: NoisyPass = () => (j, average) => releaseBlock(mechanism, j, Float64Array.of(average), rng === undefined ? undefined : { rng })[0]!;
  const parameters = descend(p, passes, steps, clip, noisyPass);
  const runMu = privacy.kind === 'gdp' ? privacy.mu : Math.sqrt(2 * (privacy as ZcdpPrivacy).rho);
  const { scales, grid } = mechanism;
  return frozenResult(
    {
      parameters,
      scales,
      sensitivity,
      stepSizes: steps,
      mu,
      runMu,
      privacy: privacy as GdpPrivacy | ZcdpPrivacy,
      mode: mode.mode,
      grid,
      updates: passes * p.d,
    },
    ['parameters'],
  );
}
