// Joint staircase noise in d dimensions (docs/staircase.md, "Sampling the joint staircase"): a
// radius from the WebAssembly kernel (assembly/noise/staircase.ts, staircaseRadiusSamples) times a
// direction on the norm's unit sphere, from Gaussian (l2) or Laplace (l1) draws normalised.
import { MAX_SCALE } from '../core/domains.js';
import { fail, integerIn, numberIn, oneOf, readOptions } from '../core/validate.js';
import { type RandomSource, readRng } from './random.js';
import { drawValidated, type SampleOptions } from './samplers.js';

/** The norms of the joint staircase. */
export const NORMS = ['l1', 'l2'] as const;
/** The largest dimension the joint staircase takes (as staircaseNormError). */
export const MOST_DIMENSIONS = 1000;

/**
 * The parameters of one joint staircase: its norm and dimension, step width (the query's
 * sensitivity in that norm), budget and shape. A staircaseNormMechanism is one.
 *
 * @group Sampling
 */
export interface StaircaseNormShape {
  /** The norm whose shells are the steps: 'l1' or 'l2'. */
  norm: 'l1' | 'l2';
  /** The dimension d, 1 to 1000. */
  dimension: number;
  /** The step width Delta > 0: the query's sensitivity in the norm. */
  normSensitivity: number;
  /** The budget epsilon > 0 (at most 700). */
  epsilon: number;
  /** The shape gamma in [0, 1]: the share of a step at the higher density. */
  gamma: number;
}

/** A shape read and checked. */
export interface NormShape {
  readonly norm: 'l1' | 'l2';
  readonly dimension: number;
  readonly width: number;
  readonly epsilon: number;
  readonly gamma: number;
}

/** Reads a shape's own fields (a staircaseNormMechanism's other fields are allowed, and unread). */
export function readNormShape(shape: unknown): NormShape {
  const o = readOptions('shape', shape, [
    'norm',
    'dimension',
    'normSensitivity',
    'epsilon',
    'gamma',
    'noise',
    'target',
    'errorPower',
    'sensitivity',
    'error',
    'gain',
    'privacy',
    'mode',
    'release',
  ]);
  const norm = oneOf('norm', o.norm, NORMS);
  const dimension = integerIn('dimension', o.dimension, { min: 1, max: MOST_DIMENSIONS });
  const epsilon = numberIn('epsilon', o.epsilon, { min: 0, max: 700, minOpen: true });
  const width = numberIn('normSensitivity', o.normSensitivity, { min: 0, max: MAX_SCALE, minOpen: true });
  if (!(width / epsilon <= MAX_SCALE)) fail(RangeError, 'normSensitivity', `at most ${MAX_SCALE} epsilon`, width);
  const gamma = numberIn('gamma', o.gamma, { min: 0, max: 1 });
  return { norm, dimension, width, epsilon, gamma };
}

/**
 * One draw of the joint staircase for a checked shape: X = Delta R U, with R from the radius
 * kernel and U = Y / ||Y|| for d Gaussian (l2) or Laplace (l1) draws Y, which is uniform on the l2
 * sphere, and on the l1 sphere by the cone measure (|Y_i| / sum |Y_j| is Dirichlet(1, ..., 1)).
 * The radius and the direction come from two streams of the source; a direction of norm 0 (every
 * draw exactly 0) is drawn again.
 */
export function drawNormShape(shape: NormShape, source: RandomSource): Float64Array {
  const { norm, dimension, width, epsilon, gamma } = shape;
  const radius = drawValidated('staircaseRadiusSamples', new Float64Array(1), dimension, source.stream(), {
    staircase: { epsilons: new Float64Array([epsilon]), gammas: new Float64Array([gamma]) },
  })[0]!;
  for (;;) {
    const y = drawValidated(norm === 'l2' ? 'gaussianSamples' : 'laplaceSamples', new Float64Array(dimension), 1, source.stream());
    const length = norm === 'l2' ? Math.hypot(...y) : y.reduce((sum, v) => sum + Math.abs(v), 0);
    if (length > 0) return y.map((v) => ((width * radius) / length) * v);
  }
}

/**
 * A new Float64Array of `dimension` values: one draw of the joint staircase, whose density is
 * proportional to e^(-k eps) where ||x|| / Delta is in [k, k + gamma) and e^(-(k+1) eps) in
 * [k + gamma, k + 1), for the l1 or l2 norm. A noise generator in floating point, not a release: its
 * low bits are not protected (docs/mechanisms.md, "Floating-point safety").
 *
 * @example
 * ```ts
 * import { createRng, staircaseNormNoise } from 'dpnoise';
 *
 * const x = staircaseNormNoise({ norm: 'l2', dimension: 3, normSensitivity: 1, epsilon: 5, gamma: 0.1 }, { rng: createRng({ seed: 1 }) });
 * console.log(x.length); // 3
 * ```
 *
 * @group Sampling
 */
export function staircaseNormNoise(shape: StaircaseNormShape, options?: SampleOptions): Float64Array {
  const checked = readNormShape(shape);
  return drawNormShape(checked, readRng(options));
}
