// The joint staircase in d dimensions for the l1 or l2 norm (docs/staircase.md, "The joint
// staircase"): density proportional to b^phi(||x|| / Delta), its error minimised over the shape,
// to compare with the i.n.i.d. staircase of calibrateStaircase.
import { readTarget, type ValidTarget } from '../core/target.js';
import { fail, integerIn, oneOf, readOptions } from '../core/validate.js';
import { MOST_DIMENSIONS, NORMS } from '../noise/staircase-norm.js';
import { goldenMinimum } from './staircase.js';

/**
 * The options of staircaseNormError.
 *
 * @group Calibration
 */
export interface StaircaseNormOptions {
  /** The dimension d, 1 to 1000. */
  dimension: number;
  /** The norm the staircase's steps follow, and in which the sensitivity (1) is measured. */
  norm: 'l1' | 'l2';
  /** The privacy budget epsilon (> 0): pure epsilon-DP. */
  epsilon: number;
  /** 1: the l1 error E||X||_1 (default); 2: the squared l2 error E||X||_2^2. */
  errorPower?: 1 | 2;
}

/** The most steps summed; a budget that needs more is too small for the dimension. */
const MOST_STEPS = 1_000_000;

/** log(e^a + e^b). */
const logAdd = (a: number, b: number) => (a === -Infinity ? b : b === -Infinity ? a : Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b))));

/**
 * log T(m) for m = d, d + 1, d + 2, where T(m) = sum_k b^k ((k + gamma)^m - k^m) + b^(k+1) ((k+1)^m -
 * (k + gamma)^m): the radius R = ||X|| / Delta has density proportional to b^phi(r) r^(d-1), and
 * E R^j = d / (d + j) T(d + j) / T(d). Summed in logarithms (the powers overflow for large d) up
 * to where the terms fall below 2^-60 of the largest.
 */
function radialSums(d: number, gamma: number, epsilon: number): [number, number, number] {
  const logB = -epsilon;
  /** log((x + gap)^m - x^m) for gap > 0. */
  const logDifference = (x: number, gap: number, m: number) =>
    gap <= 0 ? -Infinity : x === 0 ? m * Math.log(gap) : m * Math.log(x + gap) + Math.log(-Math.expm1(m * Math.log(x / (x + gap))));
  const sums = [-Infinity, -Infinity, -Infinity];
  const peak = (d + 2) / epsilon; // where b^k k^(d+1) is largest
  // The sums end within about 42 / eps steps past the peak (e^-42 < 2^-60): refuse at once what would run too long.
  if (peak + 50 / epsilon > MOST_STEPS) throw tooSmall(d);
  for (let k = 0; k <= MOST_STEPS; k++) {
    let largest = -Infinity;
    for (let j = 0; j < 3; j++) {
      const m = d + j;
      const term = logAdd(k * logB + logDifference(k, gamma, m), (k + 1) * logB + logDifference(k + gamma, 1 - gamma, m));
      sums[j] = logAdd(sums[j]!, term);
      largest = Math.max(largest, term - sums[j]!);
    }
    if (k > peak && largest < -42) return sums as [number, number, number]; // e^-42 < 2^-60
  }
  throw tooSmall(d);
}

function tooSmall(d: number): RangeError {
  return new RangeError(`dpnoise: \`epsilon\` is too small for dimension ${d}: the staircase reaches past ${MOST_STEPS} steps.`);
}

/**
 * E||U||_1 for U uniform on the unit l2 sphere of R^d: d rho(d) / sqrt(pi) with rho(d) =
 * Gamma(d/2) / Gamma((d+1)/2), from rho(1) = sqrt(pi), rho(2) = 2 / sqrt(pi) and
 * rho(d + 2) = rho(d) d / (d + 1).
 */
function sphereL1Mean(d: number): number {
  let rho = d % 2 === 1 ? Math.sqrt(Math.PI) : 2 / Math.sqrt(Math.PI);
  for (let k = d % 2 === 1 ? 1 : 2; k < d; k += 2) rho *= k / (k + 1);
  return (d * rho) / Math.sqrt(Math.PI);
}

/**
 * The error of the joint staircase for d coordinates, sensitivity 1 in the chosen norm, pure
 * epsilon, minimised over the shape: E||X||_1 (errorPower 1) or E||X||_2^2 (errorPower 2). X = R
 * Delta U with R the radius above and U uniform on the norm's unit sphere, so the error is E R^p
 * times E||U||_1 (l2: d Gamma(d/2) / (sqrt(pi) Gamma((d+1)/2)); l1: 1) or E||U||_2^2 (l1: 2/(d+1);
 * l2: 1). For a box profile lambda, its sensitivity in the norm is ||lambda||_1 or ||lambda||_2,
 * and the error scales with its p-th power. d = 2, l1, errorPower 1 is staircase2dError.
 *
 * @example
 * ```ts
 * import { staircaseNormError } from 'dpnoise';
 *
 * console.log(staircaseNormError({ dimension: 2, norm: 'l1', epsilon: 3 })); // 0.5856 (Table V-4)
 * console.log(staircaseNormError({ dimension: 2, norm: 'l2', epsilon: 3 })); // its l2-ball twin
 * ```
 *
 * @group Calibration
 */
export function staircaseNormError(options: StaircaseNormOptions): number {
  const o = readOptions('options', options, ['dimension', 'norm', 'epsilon', 'errorPower']);
  const d = integerIn('dimension', o.dimension, { min: 1, max: MOST_DIMENSIONS });
  const norm = oneOf('norm', o.norm, NORMS);
  if (o.errorPower !== undefined && o.errorPower !== 1 && o.errorPower !== 2) fail(RangeError, 'errorPower', '1 or 2', o.errorPower);
  const { epsilon } = readTarget({ epsilon: o.epsilon }, ['pure']) as ValidTarget & { notion: 'pure' };
  return normError(d, norm, o.errorPower === 2 ? 2 : 1, Math.min(epsilon, 700));
}

/**
 * The l1 error E||X||_1 of the 2-D l1-shell staircase mechanism (l1 sensitivity 1), minimised over
 * its shape: the staircase row of the journal's Table V-4 (0.5856 at epsilon 3); staircaseNormError
 * in two dimensions for the l1 norm.
 *
 * @example
 * ```ts
 * import { staircase2dError } from 'dpnoise';
 *
 * console.log(staircase2dError({ epsilon: 3 })); // 0.5856
 * ```
 *
 * @group Calibration
 */
export function staircase2dError(options: { epsilon: number }): number {
  const o = readOptions('options', options, ['epsilon']);
  const target = readTarget({ epsilon: o.epsilon }, ['pure']) as ValidTarget & { notion: 'pure' };
  return normError(2, 'l1', 1, Math.min(target.epsilon, 700));
}

/** The joint staircase's least error for validated arguments. */
function normError(d: number, norm: 'l1' | 'l2', p: 1 | 2, epsilon: number): number {
  return bestNormShape(d, norm, p, epsilon).error;
}

/**
 * The joint staircase's shape of least error, and that error, for sensitivity 1 in the norm
 * (d, norm and p checked; epsilon in (0, 700]).
 */
export function bestNormShape(d: number, norm: 'l1' | 'l2', p: 1 | 2, epsilon: number): { gamma: number; error: number } {
  const direction = p === 1 ? (norm === 'l1' ? 1 : sphereL1Mean(d)) : norm === 'l2' ? 1 : 2 / (d + 1);
  const radial = (gamma: number) => {
    const sums = radialSums(d, gamma, epsilon);
    return (d / (d + p)) * Math.exp(sums[p] - sums[0]);
  };
  const gamma = goldenMinimum(radial);
  return { gamma, error: direction * radial(gamma) };
}
