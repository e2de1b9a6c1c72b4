// The noise families, one record each: everything that differs between Gaussian and Laplace noise
// for calibration (the privacy constraint's exponent, the moments), sampling (the continuous and
// the exact discrete kernel) and grid mode (the kernels' parameter in grid steps). The mechanisms,
// the samplers and the calibration take a family; adding one is a record here and its kernels.
import type { WasmExports } from '../wasm/exports.js';
import type { Kernel } from './samplers.js';

/**
 * The noises of the library's independent noise, for functions that offer several (the `noise` option; results' `noise`).
 *
 * @group Mechanisms
 */
export const NOISES = ['gaussian', 'laplace'] as const;

/**
 * A noise's name: 'gaussian' or 'laplace'.
 *
 * @group Mechanisms
 */
export type NoiseName = (typeof NOISES)[number];

/** What a noise family is to the rest of the library. */
export interface NoiseFamily {
  readonly name: NoiseName;
  /** The exponent q of the privacy constraint sum_i (lambda_i / scale_i)^q <= budget^q (l2 for Gaussian, l1 for Laplace). */
  readonly q: 1 | 2;
  /** Var(n) / scale^2. */
  readonly variance: number;
  /** E|n|^p at scale 1. */
  moment(w: WasmExports, p: number): number;
  /** The continuous sampler. */
  readonly kernel: Kernel;
  /** The exact discrete sampler of grid mode. */
  readonly gridKernel: Kernel;
  /** What a scale is called in messages ('standard deviation', 'scale'). */
  readonly scaleName: string;
  /** The discrete kernel's parameter for noise of `scale` in grid steps: the variance (Gaussian) or t (Laplace). */
  gridParameter(stepsScale: number): number;
  /** The scale, in grid steps, of the discrete noise drawn with `parameter`. */
  gridScale(parameter: number): number;
}

const LN2 = Math.LN2;
/** ln(sqrt(pi)), written out: an engine's Math.log may differ in the last bit. */
const LOG_SQRT_PI = 0.5723649429247001;

/**
 * Gaussian noise: (epsilon, delta)-DP, mu-GDP, rho-zCDP.
 */
export const GAUSSIAN: NoiseFamily = Object.freeze({
  name: 'gaussian',
  q: 2,
  variance: 1,
  // E|N(0,1)|^p = 2^(p/2) Gamma((p+1)/2) / sqrt(pi)
  moment: (w: WasmExports, p: number) => (p === 2 ? 1 : w.exp(0.5 * p * LN2 + w.logGamma(0.5 * (p + 1)) - LOG_SQRT_PI)),
  kernel: 'gaussianSamples',
  gridKernel: 'discreteGaussianSamples',
  scaleName: 'standard deviation',
  gridParameter: (steps: number) => steps * steps,
  gridScale: (variance: number) => Math.sqrt(variance),
});

/**
 * Laplace noise: pure epsilon-DP.
 */
export const LAPLACE: NoiseFamily = Object.freeze({
  name: 'laplace',
  q: 1,
  variance: 2,
  // E|Laplace(1)|^p = Gamma(p + 1)
  moment: (w: WasmExports, p: number) => (p === 2 ? 2 : p === 1 ? 1 : w.exp(w.logGamma(p + 1))),
  kernel: 'laplaceSamples',
  gridKernel: 'discreteLaplaceSamples',
  scaleName: 'scale',
  gridParameter: (steps: number) => steps,
  gridScale: (t: number) => t,
});
