// One-line mechanisms: calibration, its verified privacy, and release in one object.
import { gaussianPrivacy, laplacePrivacy, type GaussianPrivacy, type LaplacePrivacy } from './accounting.js';
import {
  calibrateGaussian, calibrateLaplace, type CalibrationOptions, type GaussianCalibration, type GaussianCalibrationOptions, type LaplaceCalibration,
} from './calibrate.js';
import { sample, type Kernel, type SampleOptions } from './sample.js';
import { FINITE_ENTRIES, options as checkOptions, vector } from './validate.js';

export interface GaussianMechanism extends GaussianCalibration {
  /** The privacy the scales give, verified from the scales themselves (never better than asked). */
  readonly privacy: GaussianPrivacy;
  /** A new Float64Array: the query plus noise. The query is left untouched. */
  release(query: Float64Array | readonly number[], options?: SampleOptions): Float64Array;
}

export interface LaplaceMechanism extends LaplaceCalibration {
  readonly privacy: LaplacePrivacy;
  release(query: Float64Array | readonly number[], options?: SampleOptions): Float64Array;
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

/** A Gaussian mechanism for (epsilon, delta)-DP (or mu-GDP): calibrateGaussian's options. */
export function gaussianMechanism(options: GaussianCalibrationOptions): GaussianMechanism {
  const calibration = calibrateGaussian(options);
  const privacy = gaussianPrivacy({ scales: calibration.scales, sensitivity: calibration.sensitivity });
  return { ...calibration, privacy, release: releaser('gaussianSamples', calibration) };
}

/** A Laplace mechanism for pure epsilon-DP: calibrateLaplace's options. */
export function laplaceMechanism(options: CalibrationOptions): LaplaceMechanism {
  const calibration = calibrateLaplace(options);
  const privacy = laplacePrivacy({ scales: calibration.scales, sensitivity: calibration.sensitivity });
  return { ...calibration, privacy, release: releaser('laplaceSamples', calibration) };
}

export interface Recommendation {
  gaussian: GaussianCalibration;
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
