// One-line mechanisms: calibration, its verified privacy, and release in one object.
import { gaussianPrivacy, laplacePrivacy, zcdpPrivacy, type GaussianPrivacy, type LaplacePrivacy, type ZcdpPrivacy } from './accounting.js';
import {
  calibrateGaussian, calibrateLaplace, type CalibrationOptions, type GaussianCalibration, type GaussianCalibrationOptions, type LaplaceCalibration,
} from './calibrate.js';
import { sample, type Kernel, type SampleOptions } from './sample.js';
import { defaultGrid, gridScales, gridSensitivity, MODES, type Mode, readGrid, toGrid, zcdpMu } from './grid.js';
import { CompensatedSum } from './memory.js';
import { DELTA, GAUSSIAN_EPSILON, gaussianMu } from './privacy.js';
import { FINITE_ENTRIES, numberIn, oneOf, options as checkOptions, PROFILE_ENTRIES, vector } from './validate.js';

/** A calibrated Gaussian mechanism. */
export interface GaussianMechanism extends GaussianCalibration {
  /** The privacy the scales give, verified from the scales themselves (never weaker than asked);
   * rho-zCDP in grid mode. */
  readonly privacy: GaussianPrivacy | ZcdpPrivacy;
  /** 'grid': values rounded to `grid`, exact discrete Gaussian noise, multiples of `grid` out. */
  readonly mode: Mode;
  /** The grid step (grid mode only). */
  readonly grid?: number;
  /** A new Float64Array: the query plus noise. The query is left untouched. */
  release(query: Float64Array | readonly number[], options?: SampleOptions): Float64Array;
}

/** A calibrated Laplace mechanism. */
export interface LaplaceMechanism extends LaplaceCalibration {
  /** The privacy its scales give (in grid mode, with the rounding), never weaker than asked. */
  readonly privacy: LaplacePrivacy;
  /** 'grid': values rounded to `grid`, exact discrete Laplace noise, multiples of `grid` out. */
  readonly mode: Mode;
  /** The grid step (grid mode only). */
  readonly grid?: number;
  /** A new Float64Array: the query plus noise (in grid mode, rounded to the grid). The query is left untouched. */
  release(query: Float64Array | readonly number[], options?: SampleOptions): Float64Array;
}

/** Options of laplaceMechanism: calibrateLaplace's, and the mode. */
export interface LaplaceMechanismOptions extends CalibrationOptions {
  /** 'continuous' (default) or 'grid' (floating-point-safe exact discrete noise). */
  mode?: Mode;
  /** Grid mode's step, a power of two (default: at most 1/16 of the smallest sensitivity). */
  grid?: number;
}

/** The release of a calibration: its scales (expanded over groups) added to a copy of the query. */
function releaser(kernel: Kernel, calibration: GaussianCalibration | LaplaceCalibration) {
  const { scales, sizes } = calibration;
  const length = sizes ? sizes.reduce((a, b) => a + b, 0) : scales.length;
  return (query: Float64Array | readonly number[], options?: SampleOptions): Float64Array => {
    const copy = Float64Array.from(vector('query', query, FINITE_ENTRIES, { length }));
    return sample(kernel, copy, true, sizes ? { sizes, scales } : scales, options);
  };
}

/** Options of gaussianMechanism: calibrateGaussian's, and the mode. */
export interface GaussianMechanismOptions extends GaussianCalibrationOptions {
  /** 'continuous' (default) or 'grid' (floating-point-safe exact discrete noise; needs epsilon and delta). */
  mode?: Mode;
  /** Grid mode's step, a power of two (default: at most 1/16 of the smallest sensitivity). */
  grid?: number;
}

/** A Gaussian mechanism for (epsilon, delta)-DP (or mu-GDP): calibrateGaussian's options, and `mode`/`grid`. */
export function gaussianMechanism(options: GaussianMechanismOptions): GaussianMechanism {
  const o = checkOptions('options', options, ['sensitivity', 'groups', 'epsilon', 'delta', 'mu', 'allocation', 'errorPower', 'weights', 'mode', 'grid']);
  const { mode: modeOption, grid: gridOption, ...rest } = o;
  const mode = modeOption === undefined ? 'continuous' : oneOf('mode', modeOption, MODES);
  if (mode === 'continuous') {
    if (gridOption !== undefined) throw new TypeError('dpnoise: `grid` applies to `mode: \'grid\'` only.');
    const calibration = calibrateGaussian(rest as GaussianCalibrationOptions);
    const privacy = gaussianPrivacy({ scales: calibration.scales, sensitivity: calibration.sensitivity });
    return { ...calibration, privacy, mode, release: releaser('gaussianSamples', calibration) };
  }
  return gridGaussianMechanism(rest, gridOption);
}

/**
 * Grid mode: discrete Gaussian noise of integer variance parameters s_i on the grid. Coordinates
 * are independent, each (Delta_i^2 / (2 s_i))-zCDP for its integer change Delta_i, so the release
 * is rho-zCDP with rho the sum (CKS 2020); rho is calibrated so that the zCDP-to-(epsilon, delta)
 * conversion meets the request, and the s_i are rounded up.
 */
function gridGaussianMechanism(o: Record<string, unknown>, gridOption: unknown): GaussianMechanism {
  if (o.groups !== undefined) throw new TypeError('dpnoise: grid mode takes a per-coordinate `sensitivity`, not `groups`.');
  if (o.mu !== undefined) throw new TypeError('dpnoise: grid mode takes `epsilon` and `delta`, not `mu`.');
  const lambda = vector('sensitivity', o.sensitivity, PROFILE_ENTRIES);
  const grid = gridOption === undefined ? defaultGrid(lambda) : readGrid(gridOption);
  const sensitivity = gridSensitivity(lambda, grid);
  const epsilon = numberIn('epsilon', o.epsilon, GAUSSIAN_EPSILON);
  const delta = numberIn('delta', o.delta, DELTA);
  const mu = zcdpMu(epsilon, delta, gaussianMu(epsilon, delta));
  const { epsilon: _e, delta: _d, ...allocation } = o;
  const calibration = calibrateGaussian({ ...allocation, sensitivity, mu } as GaussianCalibrationOptions);
  const variances = gridScales(calibration.scales.map((sigma) => (sigma / grid) ** 2), 1);
  const rho = new CompensatedSum();
  sensitivity.forEach((l, i) => l > 0 && rho.add((l / grid) ** 2 / (2 * variances[i]!)));
  const privacy = zcdpPrivacy(rho.value * (1 + 2 ** -50));
  const scales = variances.map((s) => Math.sqrt(s) * grid);
  const release = (query: Float64Array | readonly number[], options?: SampleOptions): Float64Array => {
    const units = toGrid(vector('query', query, FINITE_ENTRIES, { length: lambda.length }), grid);
    return sample('discreteGaussianSamples', units, true, variances, options).map((k) => k * grid);
  };
  return { ...calibration, epsilon, delta, scales, sensitivity, privacy, mode: 'grid', grid, release };
}

/** A Laplace mechanism for pure epsilon-DP: calibrateLaplace's options, and `mode`/`grid`. */
export function laplaceMechanism(options: LaplaceMechanismOptions): LaplaceMechanism {
  const o = checkOptions('options', options, ['sensitivity', 'groups', 'epsilon', 'allocation', 'errorPower', 'weights', 'mode', 'grid']);
  const { mode: modeOption, grid: gridOption, ...rest } = o;
  const mode = modeOption === undefined ? 'continuous' : oneOf('mode', modeOption, MODES);
  if (mode === 'continuous') {
    if (gridOption !== undefined) throw new TypeError('dpnoise: `grid` applies to `mode: \'grid\'` only.');
    const calibration = calibrateLaplace(rest as unknown as CalibrationOptions);
    const privacy = laplacePrivacy({ scales: calibration.scales, sensitivity: calibration.sensitivity });
    return { ...calibration, privacy, mode, release: releaser('laplaceSamples', calibration) };
  }
  return gridLaplaceMechanism(rest, gridOption);
}

/** Grid mode: calibrate to the rounded sensitivities, then integer scales rounded up. */
function gridLaplaceMechanism(o: Record<string, unknown>, gridOption: unknown): LaplaceMechanism {
  if (o.groups !== undefined) throw new TypeError('dpnoise: grid mode takes a per-coordinate `sensitivity`, not `groups`.');
  const lambda = vector('sensitivity', o.sensitivity, PROFILE_ENTRIES);
  const grid = gridOption === undefined ? defaultGrid(lambda) : readGrid(gridOption);
  const sensitivity = gridSensitivity(lambda, grid);
  const calibration = calibrateLaplace({ ...o, sensitivity } as unknown as CalibrationOptions);
  const steps = gridScales(calibration.scales, grid);
  const scales = steps.map((t) => t * grid);
  const privacy = laplacePrivacy({ scales, sensitivity });
  const release = (query: Float64Array | readonly number[], options?: SampleOptions): Float64Array => {
    const units = toGrid(vector('query', query, FINITE_ENTRIES, { length: lambda.length }), grid);
    return sample('discreteLaplaceSamples', units, true, steps, options).map((k) => k * grid);
  };
  return { ...calibration, scales, sensitivity, privacy, mode: 'grid', grid, release };
}

/** What `recommend` returns. */
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
 */
export function recommend(options: Omit<GaussianCalibrationOptions, 'allocation' | 'mu'> & { epsilon: number; delta: number }): Recommendation {
  const o = checkOptions('options', options, ['sensitivity', 'groups', 'epsilon', 'delta', 'errorPower', 'weights']);
  const gaussian = calibrateGaussian(o as GaussianCalibrationOptions);
  const { delta: _delta, ...rest } = o;
  const laplace = calibrateLaplace(rest as unknown as CalibrationOptions);
  return { gaussian, laplace, best: laplace.error < gaussian.error ? 'laplace' : 'gaussian' };
}
