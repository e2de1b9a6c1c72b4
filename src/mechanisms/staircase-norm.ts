// The joint staircase mechanism (docs/staircase.md, "The joint staircase"): one staircase on the
// l1 or l2 norm of the whole noise vector, for a box sensitivity profile whose norm is the step
// width, with the shape of least error, released in floating point.
import { type PurePrivacy, purePrivacy } from '../accounting/privacy.js';
import { type PrivacyTarget, targetOf, readTarget, type ValidTarget } from '../core/target.js';
import { frozenResult } from '../core/frozen.js';
import { fail, oneOf, readOptions } from '../core/validate.js';
import { laplaceCalibration, readProfile } from '../calibrate/allocations.js';
import { bestNormShape } from '../calibrate/staircase-norms.js';
import { drawNormShape, MOST_DIMENSIONS, type NormShape, NORMS } from '../noise/staircase-norm.js';
import { queryEntries } from './grid.js';
import { readReleaseOptions, releaseArrays, type ReleaseOptions } from './release-options.js';

/**
 * The options of staircaseNormMechanism.
 *
 * @group Mechanisms
 */
export interface StaircaseNormMechanismOptions {
  /** The sensitivity profile (box neighbours: coordinate i moves by at most sensitivity[i]); 1 to 1000 coordinates. */
  sensitivity: Float64Array | readonly number[];
  /** The budget epsilon (> 0): pure epsilon-DP. */
  epsilon: number;
  /** The norm the staircase's steps follow: 'l1' or 'l2'. */
  norm: 'l1' | 'l2';
  /** 1: the l1 error E||X||_1; 2 (default): the squared l2 error E||X||_2^2. */
  errorPower?: 1 | 2;
  /** 'continuous', required: the joint staircase has no exact grid form yet, so its low bits are not protected. */
  mode: 'continuous';
}

/**
 * A calibrated joint staircase mechanism; also a shape for staircaseNormNoise.
 *
 * @group Mechanisms
 */
export interface StaircaseNormMechanism {
  /** The noise. */
  readonly noise: 'staircase';
  /** The target calibrated to: `{ epsilon }`. */
  readonly target: PrivacyTarget;
  /** The norm whose shells are the steps. */
  readonly norm: 'l1' | 'l2';
  /** The number of coordinates. */
  readonly dimension: number;
  /** The p of the error minimised: 1 (E||X||_1) or 2 (E||X||_2^2). */
  readonly errorPower: 1 | 2;
  /** The profile, as given. */
  readonly sensitivity: Float64Array;
  /** The step width: the profile's norm (its l1 or l2 norm), rounded up. */
  readonly normSensitivity: number;
  /** The budget the noise spends (epsilon, at most 700). */
  readonly epsilon: number;
  /** The shape of least error. */
  readonly gamma: number;
  /** The expected error, E||X||_1 or E||X||_2^2. */
  readonly error: number;
  /** The optimal i.n.i.d. Laplace calibration's error for the same profile, epsilon and p, divided by this one's. */
  readonly gain: number;
  /** Pure epsilon-DP. */
  readonly privacy: PurePrivacy;
  /** Always 'continuous': released in floating point. */
  readonly mode: 'continuous';
  /** A new Float64Array (or `out`): the query plus one joint staircase draw. The query is left untouched unless it is `out`. */
  release(query: Float64Array | readonly number[], options?: ReleaseOptions): Float64Array;
}

/** 2^-52: the relative error per operation of a sum of d terms is within d of these. */
const ULP = 2 ** -52;

/**
 * The l1 or l2 norm of a profile, rounded up past the error of its computation: a sum of d
 * non-negative terms is within (d - 1) ulp of itself, a square root halves the error of its
 * argument, so (d + 2) ulp covers either.
 */
function normAbove(lambda: Float64Array, norm: 'l1' | 'l2'): number {
  const sum = lambda.reduce((s, x) => s + (norm === 'l1' ? x : x * x), 0);
  return (norm === 'l1' ? sum : Math.sqrt(sum)) * (1 + (lambda.length + 2) * ULP);
}

/**
 * The joint staircase mechanism (Kulesza, Suresh & Wang 2025): noise whose density is a staircase
 * in the l1 or l2 norm of the whole vector, with step width the profile's norm (for box
 * neighbours, the most a neighbour moves the query in that norm) and the shape of least error.
 * Pure epsilon-DP. It beats the i.n.i.d. staircase (staircaseMechanism) for flat profiles and large
 * epsilon, and loses to it for spread ones (README, "Which mechanism when"); `gain` compares it
 * with i.n.i.d. Laplace. Released in floating point: `mode: 'continuous'` is required.
 *
 * @example
 * ```ts
 * import { createRng, staircaseNormMechanism } from 'dpnoise';
 *
 * const m = staircaseNormMechanism({ sensitivity: [1, 1, 1, 1], epsilon: 5, norm: 'l2', errorPower: 1, mode: 'continuous' });
 * console.log(m.gamma, m.error, m.gain); // the shape, E||X||_1, and the gain over i.n.i.d. Laplace
 * console.log(m.release([10, 20, 30, 40], { rng: createRng({ seed: 1 }) }));
 * ```
 *
 * @group Mechanisms
 */
export function staircaseNormMechanism(options: StaircaseNormMechanismOptions): StaircaseNormMechanism {
  const o = readOptions('options', options, ['sensitivity', 'epsilon', 'norm', 'errorPower', 'mode']);
  const target = readTarget(o, ['pure']) as ValidTarget & { notion: 'pure' };
  const norm = oneOf('norm', o.norm, NORMS);
  if (o.errorPower !== undefined && o.errorPower !== 1 && o.errorPower !== 2) fail(RangeError, 'errorPower', '1 or 2', o.errorPower);
  if (o.mode !== 'continuous') fail(RangeError, 'mode', "'continuous' for the joint staircase (it has no exact grid form yet)", o.mode);
  const p = o.errorPower === 1 ? 1 : 2;
  const profile = readProfile({ sensitivity: o.sensitivity, errorPower: p }, true);
  const dimension = profile.lambda.length;
  if (dimension > MOST_DIMENSIONS) fail(RangeError, 'sensitivity', `at most ${MOST_DIMENSIONS} coordinates long`, o.sensitivity);
  const width = normAbove(profile.lambda, norm);
  if (!(width > 0)) fail(RangeError, 'sensitivity', 'above 0 somewhere', o.sensitivity);
  const epsilon = Math.min(target.epsilon, 700);
  const best = bestNormShape(dimension, norm, p, epsilon);
  const error = best.error * width ** p;
  const shape: NormShape = { norm, dimension, width, epsilon, gamma: best.gamma };
  const entries = queryEntries(Number.MAX_VALUE);
  const privacy = purePrivacy(target.epsilon, 'staircase');
  const release = (query: Float64Array | readonly number[], releaseOptions?: ReleaseOptions): Float64Array => {
    const { random, out, given, budget } = readReleaseOptions(releaseOptions, dimension);
    const { exact, target } = releaseArrays('query', query, entries, dimension, out, { budget, privacy });
    const noise = drawNormShape(shape, random);
    for (let i = 0; i < dimension; i++) target[i] = exact[i]! + noise[i]!;
    return given ?? target;
  };
  return frozenResult({
    noise: 'staircase',
    target: targetOf(target),
    norm,
    dimension,
    errorPower: p,
    sensitivity: profile.lambda,
    normSensitivity: width,
    epsilon,
    gamma: best.gamma,
    error,
    gain: laplaceCalibration(target, { ...profile, allocation: 'optimal' }).error / error,
    privacy,
    mode: 'continuous',
    release,
  }) as StaircaseNormMechanism;
}
