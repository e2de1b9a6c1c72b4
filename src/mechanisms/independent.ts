// One-line mechanisms: calibration, its verified privacy, and release in one object.
//
// By default a release is exact on a grid (grid.ts, docs/math.md "Floating-point safety"):
// the query is rounded to a power-of-two grid and exact discrete Laplace or discrete Gaussian
// noise is added in integer grid units, so no floating-point low bit can tell neighbours apart.
// `mode: 'continuous'` adds floating-point noise instead (simulations, post-processing).
//
// A mechanism owns everything its release depends on: the options are read once, from the
// caller's own properties; the arrays are copied at construction; the object is frozen, and the
// arrays it shows are copies of its own, so changing them changes nothing.
import {
  gaussianPrivacy,
  laplaceFromEpsilon,
  laplacePrivacy,
  zcdpPrivacy,
  type GaussianPrivacy,
  type LaplacePrivacy,
  type ZcdpPrivacy,
} from '../accounting/privacy.js';
import { zcdpMu } from '../accounting/zcdp.js';
import {
  CALIBRATION_OPTIONS,
  calibrateGaussian,
  readSensitivities,
  calibrateLaplace,
  type Calibration,
  type CalibrationOptions,
  type GaussianCalibration,
  type GaussianCalibrationOptions,
  type LaplaceCalibration,
} from '../calibrate/allocations.js';
import { frozenResult } from '../core/frozen.js';
import { CompensatedSum } from '../core/summation.js';
import { readGaussianBudget, WEIGHT_ENTRIES } from '../core/domains.js';
import { readOptions, vector } from '../core/validate.js';
import { gaussianMu } from '../noise/profile.js';
import { readRng } from '../noise/random.js';
import { drawValidated, type Kernel, type SampleOptions, type Scales } from '../noise/samplers.js';
import { defaultGrid, gridSensitivity, gridUnits, type Mode, queryEntries, readMode, roundingScale } from './grid.js';

/**
 * A calibrated Gaussian mechanism.
 *
 * @group Mechanisms
 */
export interface GaussianMechanism extends Readonly<GaussianCalibration> {
  /** The privacy the release gives, verified from its own scales (never weaker than asked);
   * rho-zCDP in grid mode. */
  readonly privacy: GaussianPrivacy | ZcdpPrivacy;
  /** 'grid' (default): values rounded to `grid`, exact discrete Gaussian noise; 'continuous'. */
  readonly mode: Mode;
  /** The grid step (grid mode only): every released value is a multiple of it. */
  readonly grid?: number;
  /** Grid mode: whether a release does the same work whatever noise it draws (see the option). */
  readonly fixedWork: boolean;
  /** A new Float64Array: the query plus noise (in grid mode, on the grid). The query is left untouched. */
  release(query: Float64Array | readonly number[], options?: SampleOptions): Float64Array;
}

/**
 * A calibrated Laplace mechanism.
 *
 * @group Mechanisms
 */
export interface LaplaceMechanism extends Readonly<LaplaceCalibration> {
  /** The pure epsilon-DP the release gives (in grid mode, with the rounding), never weaker than asked. */
  readonly privacy: LaplacePrivacy;
  /** 'grid' (default): values rounded to `grid`, exact discrete Laplace noise; 'continuous'. */
  readonly mode: Mode;
  /** The grid step (grid mode only): every released value is a multiple of it. */
  readonly grid?: number;
  /** Grid mode: whether a release does the same work whatever noise it draws (see the option). */
  readonly fixedWork: boolean;
  /** A new Float64Array: the query plus noise (in grid mode, on the grid). The query is left untouched. */
  release(query: Float64Array | readonly number[], options?: SampleOptions): Float64Array;
}

/**
 * Options of laplaceMechanism: calibrateLaplace's, and the mode.
 *
 * @group Mechanisms
 */
export interface LaplaceMechanismOptions extends CalibrationOptions {
  /** 'grid' (default: floating-point-safe exact discrete noise) or 'continuous' (not floating-point safe). */
  mode?: Mode;
  /** Grid mode's step, a power of two (default: fine enough that rounding costs at most 2^-10 of the smallest sensitivity). */
  grid?: number;
  /**
   * Grid mode: draw with the same work whatever the noise (no shortcut taken for some outputs
   * only), so that a release's duration says nothing about its noise; somewhat slower (default false).
   */
  fixedWork?: boolean;
}

/**
 * Options of gaussianMechanism: calibrateGaussian's, and the mode.
 *
 * @group Mechanisms
 */
export interface GaussianMechanismOptions extends GaussianCalibrationOptions {
  /** 'grid' (default: floating-point-safe exact discrete noise) or 'continuous' (not floating-point safe). */
  mode?: Mode;
  /** Grid mode's step, a power of two (default: fine enough that rounding costs at most 2^-10 of the smallest sensitivity). */
  grid?: number;
  /**
   * Grid mode: draw with the same work whatever the noise (no shortcut taken for some outputs
   * only), so that a release's duration says nothing about its noise; somewhat slower (default false).
   */
  fixedWork?: boolean;
}

/** The caller's profile, copied once: per coordinate, or per group with the group sizes. */
interface OwnedProfile {
  lambda: Float64Array;
  sizes: Float64Array | undefined;
}

/** Calibration options with the owned profile (and sensitivities replaced, for grid mode). */
function withProfile(o: Record<string, unknown>, { sizes }: OwnedProfile, lambda: Float64Array, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { sensitivity: _s, groups: _g, mode: _m, grid: _r, fixedWork: _f, weights, ...rest } = o;
  const copiedWeights = weights === undefined ? {} : { weights: vector('weights', weights, WEIGHT_ENTRIES, { copy: true }) };
  return { ...rest, ...copiedWeights, ...(sizes ? { groups: { sizes, sensitivity: lambda } } : { sensitivity: lambda }), ...extra };
}

/**
 * A release: the noise of `kernel` with scales `scales` (per coordinate, or per group) added to a
 * copy of the query; in grid mode (`grid`) the query is rounded to the grid first, and `fixedWork`
 * keeps the work independent of the noise. The scales and sizes are the mechanism's own copies.
 */
function releaser(kernel: Kernel, scales: Float64Array, sizes: Float64Array | undefined, grid: number | undefined, fixedWork = false) {
  const length = sizes ? sizes.reduce((a, b) => a + b, 0) : scales.length;
  const entries = queryEntries(grid ?? Number.MAX_VALUE);
  const perCoordinate: Scales = sizes ? { ends: cumulative(sizes), scales } : scales;
  return (query: Float64Array | readonly number[], options?: SampleOptions): Float64Array => {
    const values = vector('query', query, entries, { length, copy: true });
    return drawValidated(kernel, values, perCoordinate, readRng(options).stream(), { add: true, grid, fixedWork });
  };
}

const largest = (a: Float64Array) => a.reduce((m, x) => Math.max(m, x), 0);

function cumulative(sizes: Float64Array): Float64Array {
  const ends = new Float64Array(sizes.length);
  sizes.reduce((end, n, g) => (ends[g] = end + n), 0);
  return ends;
}

/** The mechanism object: frozen, its arrays handed out as fresh copies of its own. */
function mechanism<T extends Calibration>(calibration: T, fields: Record<string, unknown>): T & Record<string, unknown> {
  return frozenResult({ ...calibration, ...fields });
}

/**
 * A Gaussian mechanism for (epsilon, delta)-DP (or mu-GDP): calibrateGaussian's options, and `mode`/`grid`.
 *
 * @example
 * ```ts
 * import { gaussianMechanism } from 'dpnoise';
 *
 * const m = gaussianMechanism({
 *   sensitivity: [0.1, 0.2, 0.4, 0.8],
 *   epsilon: 1,
 *   delta: 1e-6,
 * });
 * // A new Float64Array; every value is a multiple of m.grid (here 2^-14).
 * const released = m.release([12.5, 7.25, 3.0, 0.5]);
 * console.log(released, m.grid);
 * console.log(m.privacy.epsilon(1e-6), m.privacy.delta(1)); // <= 1, <= 1e-6
 * ```
 *
 * @group Mechanisms
 */
export function gaussianMechanism(options: GaussianMechanismOptions): GaussianMechanism {
  const o = readOptions('options', options, [...CALIBRATION_OPTIONS, 'delta', 'mu', 'mode', 'grid', 'fixedWork']);
  const { mode, grid, fixedWork } = readMode(o);
  const profile = readSensitivities(o, true);
  if (mode === 'continuous') {
    const calibration = calibrateGaussian(withProfile(o, profile, profile.lambda) as GaussianCalibrationOptions);
    const privacy = gaussianPrivacy({ scales: calibration.scales, sensitivity: calibration.sensitivity });
    const release = releaser('gaussianSamples', calibration.scales.slice(), calibration.sizes?.slice(), undefined);
    return mechanism(calibration, { privacy, mode, grid: undefined, fixedWork: false, release }) as unknown as GaussianMechanism;
  }
  return gridGaussianMechanism(o, profile, grid, fixedWork);
}

/**
 * Grid mode: discrete Gaussian noise of variance s_i (in grid units squared). Coordinates (or
 * groups) are independent and each is (Delta_i^2 / (2 s_i))-zCDP for its change Delta_i in
 * steps, so the release is rho-zCDP with rho the sum (CKS 2020); rho is calibrated so that the
 * zCDP-to-(epsilon, delta) conversion meets the request, and reported from the variances used.
 */
function gridGaussianMechanism(o: Record<string, unknown>, profile: OwnedProfile, gridOption: number | undefined, fixedWork: boolean): GaussianMechanism {
  const asked = readGaussianBudget(o);
  const budget = 'mu' in asked ? undefined : asked;
  const mu = budget ? zcdpMu(budget.epsilon, budget.delta, gaussianMu(budget.epsilon, budget.delta)) : (asked as { mu: number }).mu;
  if (budget && !(mu > 0)) {
    throw new RangeError(
      `dpnoise: grid mode's zCDP accounting cannot give epsilon ${budget.epsilon} with delta ${budget.delta}; use a larger epsilon or delta, or mode 'continuous'.`,
    );
  }
  const { epsilon: _e, delta: _d, mu: _m, ...rest } = o;
  const { lambda, sizes } = profile;
  const first = calibrateGaussian(withProfile(rest, profile, lambda, { mu }) as GaussianCalibrationOptions);
  const g = gridOption ?? defaultGrid(roundingScale(lambda, sizes, 2), largest(first.scales));
  const rounded = gridSensitivity(lambda, g, sizes, 2);
  const calibration = calibrateGaussian(withProfile(rest, profile, rounded, { mu }) as GaussianCalibrationOptions);
  const steps = gridUnits(calibration.scales, g, 'standard deviation');
  const variances = steps.map((sigma) => sigma * sigma);
  const rho = new CompensatedSum();
  rounded.forEach((l, i) => {
    if (l > 0) rho.add((l / g) ** 2 / (2 * variances[i]!));
  });
  const privacy = zcdpPrivacy(rho.value * (1 + 2 ** -50));
  const scales = variances.map((s) => Math.sqrt(s) * g);
  const release = releaser('discreteGaussianSamples', variances, sizes, g, fixedWork);
  return mechanism({ ...calibration, ...budget, scales }, { privacy, mode: 'grid', grid: g, fixedWork, release }) as unknown as GaussianMechanism;
}

/**
 * A Laplace mechanism for pure epsilon-DP: calibrateLaplace's options, and `mode`/`grid`.
 *
 * @example
 * ```ts
 * import { laplaceMechanism } from 'dpnoise';
 *
 * const m = laplaceMechanism({ sensitivity: [0.1, 0.2, 0.4, 0.8], epsilon: 1 });
 * // A new Float64Array; every value is a multiple of m.grid.
 * const released = m.release([12.5, 7.25, 3.0, 0.5]);
 * console.log(released, m.privacy.epsilonPure); // epsilonPure <= 1
 * ```
 *
 * @group Mechanisms
 */
export function laplaceMechanism(options: LaplaceMechanismOptions): LaplaceMechanism {
  const o = readOptions('options', options, [...CALIBRATION_OPTIONS, 'mode', 'grid', 'fixedWork']);
  const { mode, grid, fixedWork } = readMode(o);
  const profile = readSensitivities(o, true);
  if (mode === 'continuous') {
    const calibration = calibrateLaplace(withProfile(o, profile, profile.lambda) as unknown as CalibrationOptions);
    const privacy = laplacePrivacy({ scales: calibration.scales, sensitivity: calibration.sensitivity });
    const release = releaser('laplaceSamples', calibration.scales.slice(), calibration.sizes?.slice(), undefined);
    return mechanism(calibration, { privacy, mode, grid: undefined, fixedWork: false, release }) as unknown as LaplaceMechanism;
  }
  return gridLaplaceMechanism(o, profile, grid, fixedWork);
}

/** Grid mode: calibrate to the rounded sensitivities; the scales in grid units need not be integers. */
function gridLaplaceMechanism(o: Record<string, unknown>, profile: OwnedProfile, gridOption: number | undefined, fixedWork: boolean): LaplaceMechanism {
  const { lambda, sizes } = profile;
  const first = calibrateLaplace(withProfile(o, profile, lambda) as unknown as CalibrationOptions);
  const g = gridOption ?? defaultGrid(roundingScale(lambda, sizes, 1), largest(first.scales));
  const rounded = gridSensitivity(lambda, g, sizes, 1);
  const calibration = calibrateLaplace(withProfile(o, profile, rounded) as unknown as CalibrationOptions);
  const steps = gridUnits(calibration.scales, g, 'scale');
  const epsilon = new CompensatedSum();
  rounded.forEach((l, i) => {
    if (l > 0) epsilon.add(l / g / steps[i]!);
  });
  const privacy = laplaceFromEpsilon(epsilon.value * (1 + 2 ** -50));
  const release = releaser('discreteLaplaceSamples', steps, sizes, g, fixedWork);
  return mechanism(calibration, { privacy, mode: 'grid', grid: g, fixedWork, release }) as unknown as LaplaceMechanism;
}

/**
 * What `recommend` returns.
 *
 * @group Calibration
 */
export interface Recommendation {
  /** The optimal Gaussian calibration ((epsilon, delta)-DP). */
  gaussian: GaussianCalibration;
  /** The optimal Laplace calibration (pure epsilon-DP). */
  laplace: LaplaceCalibration;
  /** The one with the lower error (Laplace also gives pure epsilon-DP). */
  best: 'gaussian' | 'laplace';
}

/**
 * The optimal Gaussian ((epsilon, delta)-DP) and Laplace (epsilon-DP) calibrations side by side,
 * and which has the lower error. With spread-out profiles Laplace can win even in high dimensions.
 *
 * @example
 * ```ts
 * import { recommend } from 'dpnoise';
 *
 * const r = recommend({ sensitivity: [0.1, 0.2, 0.4, 0.8], epsilon: 1, delta: 1e-6 });
 * console.log(r.best, r.gaussian.mse, r.laplace.mse); // 'laplace' 40.16 15.11
 * ```
 *
 * @group Calibration
 */
export function recommend(options: Omit<GaussianCalibrationOptions, 'allocation' | 'mu'> & { epsilon: number; delta: number }): Recommendation {
  const o = readOptions('options', options, ['sensitivity', 'groups', 'epsilon', 'delta', 'errorPower', 'weights']);
  const gaussian = calibrateGaussian(o as GaussianCalibrationOptions);
  const { delta: _delta, ...rest } = o;
  const laplace = calibrateLaplace(rest as unknown as CalibrationOptions);
  return { gaussian, laplace, best: laplace.error < gaussian.error ? 'laplace' : 'gaussian' };
}
