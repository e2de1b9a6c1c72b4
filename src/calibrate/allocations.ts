// Per-coordinate noise scales for a sensitivity profile (docs/calibration.md, "Allocations").
//
// Every allocation has the shape scale_i = c * g_i with g_i = lambda_i^alpha * w_i^-gamma:
// iid (g = 1), spr (g = lambda) and optimal (alpha = q/(p+q), gamma = 1/(p+q)). The privacy
// constraint is sum_i (lambda_i / scale_i)^q <= budget^q, with q = 2 and budget mu0 for Gaussian
// noise, q = 1 and budget epsilon for Laplace noise, which fixes c. Long profiles stream through
// WebAssembly in chunks: one pass for the sums that give c, one pass that writes the scales.
//
// Groups (for example the layers of a network) are entries with a multiplicity: group g holds
// n_g coordinates sharing one scale, with a group sensitivity s_g (l2 for Gaussian, l1 for
// Laplace noise). The constraint is the same over groups, and the error counts every coordinate,
// so groups are the weighted problem with w_g = n_g (docs/calibration.md, "Allocations": the weighted formula).
import { largestMeeting } from '../math/search.js';
import { type PrivacyTarget, targetOf, type GaussianTarget, readTarget, type ValidTarget } from '../core/target.js';
import { PROFILE_ENTRIES, SAFETY, WEIGHT_ENTRIES } from '../core/domains.js';
import { frozenResult } from '../core/frozen.js';
import { CompensatedSum } from '../core/summation.js';
import { numberIn, oneOf, readOptions, type Range, readSizes, vector } from '../core/validate.js';
import { GAUSSIAN_NOTIONS, gaussianDistance } from '../accounting/distance.js';
import { oneCall } from '../engine/accountant.js';
import { certifies } from '../accounting/privacy.js';
import { independentPrivacy } from '../accounting/independent.js';
import { type NoiseName, GAUSSIAN, LAPLACE, type NoiseFamily } from '../noise/families.js';
import { copyIn, forEachChunk, view } from '../wasm/chunks.js';
import { wasm, type WasmExports } from '../wasm/loader.js';

/**
 * The allocations, `optimal` first.
 *
 * @group Calibration
 */
export const ALLOCATIONS = ['optimal', 'iid', 'spr'] as const;
/**
 * `optimal` minimises the error; `iid` gives every coordinate the same scale; `spr` scales with the sensitivity.
 *
 * @group Calibration
 */
export type Allocation = (typeof ALLOCATIONS)[number];

/** Accepted error powers p (beyond 100 the error moments overflow). */
const ERROR_POWER: Range = { min: 0, max: 100, minOpen: true };

/**
 * Coordinates in groups: n_g = sizes[g] coordinates share one scale; sensitivity[g] bounds the group.
 *
 * @group Calibration
 */
export interface Groups {
  /** n_g, the number of coordinates in each group (whole numbers >= 1). */
  sizes: Float64Array | readonly number[];
  /** Per-group sensitivity: the l2 norm of the group's change (Gaussian), its l1 norm (Laplace). */
  sensitivity: Float64Array | readonly number[];
}

/**
 * The profile and allocation options every calibration takes.
 *
 * @group Calibration
 */
export interface ProfileOptions {
  /** Per-coordinate sensitivities lambda_i >= 0 (0 or between 2^-400 and 2^400). */
  sensitivity?: Float64Array | readonly number[];
  /** Groups of coordinates with one scale each, in place of `sensitivity`. */
  groups?: Groups;
  /** How to spread the noise over the coordinates (default `optimal`). */
  allocation?: Allocation;
  /** The p of the error sum_i w_i E|n_i|^p that `optimal` minimises (default 2, the MSE). */
  errorPower?: number;
  /** Positive per-coordinate weights w_i of the error (default all 1; not with groups). */
  weights?: Float64Array | readonly number[];
}

/**
 * The options of calibrateLaplace: the profile, and pure `epsilon`.
 *
 * @group Calibration
 */
export interface LaplaceCalibrationOptions extends ProfileOptions {
  /** The privacy budget epsilon (> 0): pure epsilon-DP, or with `delta` (epsilon, delta)-DP. */
  epsilon: number;
  /** delta in [1e-300, 1): (epsilon, delta)-DP by the accountant; per coordinate, not with `groups`. */
  delta?: number;
}

/**
 * The options of calibrateGaussian: the profile, and a budget: `epsilon` and `delta`
 * ((epsilon, delta)-DP), `mu` (mu-GDP) or `rho` (rho-zCDP).
 *
 * @group Calibration
 */
export type GaussianCalibrationOptions = ProfileOptions & GaussianTarget;

/**
 * What a calibration returns (frozen; each read of an array field is a fresh copy).
 *
 * @group Calibration
 */
export interface Calibration {
  /** The noise. */
  readonly noise: NoiseName;
  /** The target calibrated to, as asked: `{ epsilon, delta }`, `{ epsilon }`, `{ mu }` or `{ rho }`. */
  readonly target: PrivacyTarget;
  /** The allocation used. */
  readonly allocation: Allocation;
  /** The p of the error the allocation minimises. */
  readonly errorPower: number;
  /** Noise scales, one per coordinate (one per group with groups): standard deviations
   * (Gaussian) or Laplace scales b_i. */
  readonly scales: Float64Array;
  /** With groups: the group sizes, for expanding the scales ({ sizes, scales } in the samplers). */
  readonly sizes?: Float64Array;
  /** The sensitivity of each entry of `scales` (per coordinate, or per group). */
  readonly sensitivity: Float64Array;
  /** Expected squared error sum_i E[n_i^2]. */
  readonly mse: number;
  /** Expected error sum_i w_i E|n_i|^p for the chosen errorPower p and weights w. */
  readonly error: number;
  /** The iid allocation's error divided by this one's (for p = 2 and unit weights, the MSE ratio). */
  readonly gain: number;
}

/**
 * A Gaussian calibration: standard deviations, and the distance mu they meet.
 *
 * @group Calibration
 */
export interface GaussianCalibration extends Calibration {
  readonly noise: 'gaussian';
  /** The Mahalanobis distance the scales are calibrated to: mu0(epsilon, delta), `mu`, or sqrt(2 rho). */
  readonly mu: number;
}

/**
 * A Laplace calibration: scales b_i for pure epsilon-DP (or, with `delta`, (epsilon, delta)-DP).
 *
 * @group Calibration
 */
export interface LaplaceCalibration extends Calibration {
  readonly noise: 'laplace';
}

/** A validated profile: what a calibration reads, checked once. */
export interface Profile {
  lambda: Float64Array;
  /** Error weights, or with groups the group sizes. */
  weights: Float64Array | undefined;
  /** The weights are group sizes: they also count in the MSE. */
  grouped: boolean;
  allocation: Allocation;
  p: number;
}

/**
 * The sensitivities of calibration options: `sensitivity` per coordinate, or `groups` with their
 * sizes (never both, and no `weights` with groups); with `copy`, arrays of the caller's are copied.
 */
export function readSensitivities(o: Record<string, unknown>, copy = false): { lambda: Float64Array; sizes: Float64Array | undefined } {
  if (o.groups === undefined) return { lambda: vector('sensitivity', o.sensitivity, PROFILE_ENTRIES, { copy }), sizes: undefined };
  if (o.sensitivity !== undefined || o.weights !== undefined) {
    throw new TypeError('dpnoise: give `groups` in place of `sensitivity` (and without `weights`).');
  }
  const groups = readOptions('groups', o.groups, ['sizes', 'sensitivity']);
  const lambda = vector('groups.sensitivity', groups.sensitivity, PROFILE_ENTRIES, { copy });
  return { lambda, sizes: readSizes('groups.sizes', groups.sizes, lambda.length) };
}

/** The profile options (PROFILE_OPTIONS) of a snapshot, validated once; with `copy` the caller's arrays are copied. */
export function readProfile(o: Record<string, unknown>, copy = false): Profile {
  const allocation = o.allocation === undefined ? 'optimal' : oneOf('allocation', o.allocation, ALLOCATIONS);
  const p = o.errorPower === undefined ? 2 : numberIn('errorPower', o.errorPower, ERROR_POWER);
  const { lambda, sizes } = readSensitivities(o, copy);
  if (sizes) return { lambda, weights: sizes, grouped: true, allocation, p };
  const weights = o.weights === undefined ? undefined : vector('weights', o.weights, WEIGHT_ENTRIES, { length: lambda.length, copy });
  return { lambda, weights, grouped: false, allocation, p };
}

/** The profile with other sensitivities (grid mode's rounded ones), the rest unchanged. */
export function withSensitivity(profile: Profile, lambda: Float64Array): Profile {
  return { ...profile, lambda };
}

/** A sum sum_i lambda_i^a w_i^b over the profile (w_i = 1 without weights). */
type Exponents = readonly [a: number, b: number];

/** Streams the profile through WebAssembly once and returns each requested sum. */
function profileSums(w: WasmExports, { lambda, weights }: Profile, requested: readonly Exponents[]): number[] {
  const weighted = weights !== undefined;
  // Where each requested sum comes from: 0 and 1 are the moment kernel's sum lambda and
  // sum lambda^2; 2 + k is the k-th distinct pair of the power kernel (the weights' exponent
  // matters only with weights).
  const powered: Exponents[] = [];
  const source = requested.map(([a, b]) => {
    if (!weighted || b === 0) {
      if (a === 1) return 0;
      if (a === 2) return 1;
    }
    let k = powered.findIndex(([c, d]) => c === a && (!weighted || d === b));
    if (k < 0) k = powered.push([a, b]) - 1;
    return 2 + k;
  });
  const sums = Array.from({ length: 2 + powered.length }, () => new CompensatedSum());
  const unused: Exponents = [0, 0];
  const [a1, b1] = powered[0] ?? unused;
  const [a2, b2] = powered[1] ?? unused;
  const [a3, b3] = powered[2] ?? unused;
  const results = view(w, w.resultsPointer(), 3);
  forEachChunk(lambda.length, w.chunkLength(), (start, n) => {
    copyIn(w, w.profilePointer(), lambda, start, n);
    w.profileMoments(n);
    sums[0]!.add(results[0]!);
    sums[1]!.add(results[1]!);
    if (powered.length > 0) {
      if (weights) copyIn(w, w.weightsPointer(), weights, start, n);
      w.powerSums(n, weighted, a1, b1, a2, b2, a3, b3);
      for (let k = 0; k < powered.length; k++) sums[2 + k]!.add(results[k]!);
    }
  });
  return source.map((k) => sums[k]!.value);
}

/** Writes c * lambda^alpha * w^-gamma for every coordinate into a new array. */
function fillScales(w: WasmExports, { lambda, weights }: Profile, alpha: number, gamma: number, c: number): Float64Array {
  const scales = new Float64Array(lambda.length);
  const weighted = weights !== undefined && gamma !== 0;
  forEachChunk(lambda.length, w.chunkLength(), (start, n) => {
    copyIn(w, w.profilePointer(), lambda, start, n);
    if (weighted) copyIn(w, w.weightsPointer(), weights, start, n);
    w.fillScales(n, weighted, alpha, gamma, c);
    scales.set(view(w, w.profilePointer(), n), start);
  });
  return scales;
}

/** x^(1/q) for q = 1 or 2: correctly rounded on every engine (x ** 0.5 need not be). */
const root = (x: number, q: 1 | 2) => (q === 2 ? Math.sqrt(x) : x);

/** What calibrateProfile computes: the scales and their figures. */
export interface Calibrated {
  scales: Float64Array;
  sizes: Float64Array | undefined;
  sensitivity: Float64Array;
  mse: number;
  error: number;
  gain: number;
}

/**
 * Scales for a validated profile: sum_i (lambda_i / scale_i)^q <= budget^q with q the family's
 * (budget: mu for Gaussian noise, epsilon for Laplace noise), allocated as the profile says.
 */
export function calibrateProfile(family: NoiseFamily, profile: Profile, budget: number): Calibrated {
  const w = wasm();
  const { lambda, allocation, p } = profile;
  const { q } = family;
  const K = lambda.length;
  const weighted = profile.weights !== undefined;
  const alpha = allocation === 'optimal' ? q / (p + q) : allocation === 'spr' ? 1 : 0;
  const gamma = allocation === 'optimal' ? 1 / (p + q) : 0;

  // With scale_i = c g_i: cost = sum (lambda/g)^q, errorSum = sum w g^p, squareSum = sum g^2.
  // For optimal, (lambda/g)^q = w g^p = lambda^(qp/(p+q)) w^(q/(p+q)). The exponents are formed
  // directly (not from alpha) so that 2/3, 1/3, ... hit the kernels' exact fast paths.
  const optimal: Exponents = [(q * p) / (p + q), q / (p + q)];
  // With groups the MSE counts each group's coordinates: squareSum = sum n_g g_g^2.
  const counted = profile.grouped ? 1 : 0;
  const requested: Exponents[] = [[q, 0]];
  if (weighted) requested.push([0, 1]);
  if (allocation === 'spr') requested.push([p, 1], [2, counted]);
  if (allocation === 'optimal') requested.push(optimal, [(2 * q) / (p + q), -2 / (p + q) + counted]);
  const [normQq = 0, ...rest] = profileSums(w, profile, requested);
  const sumW = weighted ? rest.shift()! : K;
  const normQ = root(normQq, q);
  const [cost, errorSum, squareSum] =
    allocation === 'iid' ? [normQq, sumW, profile.grouped ? sumW : K] : allocation === 'spr' ? [K, rest[0]!, rest[1]!] : [rest[0]!, rest[0]!, rest[1]!];

  const c = (SAFETY * root(cost, q)) / budget;
  const mse = family.variance * c * c * squareSum;
  // mse >= (largest scale)^2, so a finite mse means every scale is finite.
  if (!Number.isFinite(mse)) {
    throw new RangeError(
      `dpnoise: the noise for this profile and privacy level overflows double precision (mse ${mse}); use a larger epsilon or delta, or smaller sensitivities.`,
    );
  }
  const scales = allocation === 'iid' ? new Float64Array(K).fill(c) : fillScales(w, profile, alpha, gamma, c);
  // A scale that underflows to 0 would release its coordinate exactly: refuse it.
  let exact = -1;
  for (let i = 0; i < K && exact < 0; i++) if (lambda[i]! > 0 && !(scales[i]! > 0)) exact = i;
  if (exact >= 0) {
    throw new RangeError(
      `dpnoise: the noise scale of coordinate ${exact} (sensitivity ${lambda[exact]}) underflows to 0 at this privacy level; use a smaller epsilon or larger sensitivities.`,
    );
  }
  // gain = (c_iid / c)^p sum(w) / errorSum, where c_iid / c = normQ / cost^(1/q); a profile of
  // zeros gets no noise from any allocation.
  const gain = normQ === 0 ? 1 : w.exp(p * w.log(normQ / root(cost, q)) + w.log(sumW) - w.log(errorSum));
  return {
    scales,
    sizes: profile.grouped ? profile.weights : undefined, // an own property either way: never inherited
    sensitivity: lambda,
    mse,
    error: family.moment(w, p) * w.pow(c, p) * errorSum,
    gain,
  };
}

/** The profile options every calibration takes. */
export const PROFILE_OPTIONS = ['sensitivity', 'groups', 'allocation', 'errorPower', 'weights'] as const;

/** A frozen calibration result. */
function calibration<T extends Calibration>(fields: T): T {
  return frozenResult(fields);
}

/** calibrateGaussian for options already read: the target and the profile. */
export function gaussianCalibration(target: ValidTarget, profile: Profile, mu = gaussianDistance(target)): GaussianCalibration {
  const result = calibrateProfile(GAUSSIAN, profile, mu);
  return calibration({ noise: 'gaussian', target: targetOf(target), allocation: profile.allocation, errorPower: profile.p, mu, ...result });
}

/** calibrateLaplace for options already read. */
export function laplaceCalibration(target: ValidTarget & { notion: 'pure' }, profile: Profile): LaplaceCalibration {
  const result = calibrateProfile(LAPLACE, profile, target.epsilon);
  return calibration({ noise: 'laplace', target: targetOf(target), allocation: profile.allocation, errorPower: profile.p, ...result });
}

/**
 * Calibrates independent Gaussian noise for (epsilon, delta)-DP (or mu-GDP, or rho-zCDP): one
 * standard deviation per coordinate, allocated from the sensitivity profile (default `optimal`,
 * minimising the MSE).
 *
 * @example
 * ```ts
 * import { calibrateGaussian } from 'dpnoise';
 *
 * const g = calibrateGaussian({
 *   sensitivity: [0.1, 0.2, 0.4, 0.8],
 *   epsilon: 1,
 *   delta: 1e-6,
 * });
 * console.log(g.scales); // standard deviations: 1.636, 2.314, 3.272, 4.628
 * console.log(g.mse, g.gain); // 40.16, 1.511 (the iid allocation's MSE / this one's)
 * ```
 *
 * @group Calibration
 */
export function calibrateGaussian(options: GaussianCalibrationOptions): GaussianCalibration {
  const o = readOptions('options', options, [...PROFILE_OPTIONS, 'epsilon', 'delta', 'mu', 'rho']);
  const target = readTarget(o, GAUSSIAN_NOTIONS);
  return gaussianCalibration(target, readProfile(o));
}

/** The relative gap at which the search for (epsilon, delta)-Laplace's pure budget stops (the end that meets the budget is kept). */
const LAPLACE_SEARCH_GAP = 1e-3;

/**
 * The largest pure budget epsilonPure (to 0.1%, from below) whose Laplace noise `meets` an
 * (epsilon, delta) budget by the accountant (docs/accounting.md, "Calibrating by the accountant"),
 * by the one calibration search (largestMeeting; a larger epsilonPure only grows the privacy
 * loss). Pure epsilon-DP at epsilon meets (epsilon, delta): the search starts there, untried.
 * The search is one call of the accountant, with one work budget (engine/accountant.ts, oneCall): a try
 * it cannot pay for reads as not met, and the search ends on the budget that met (the safe side).
 */
export function largestPureBudget(epsilon: number, meets: (epsilonPure: number) => boolean): number {
  return oneCall(() => largestMeeting(meets, epsilon, { gap: LAPLACE_SEARCH_GAP, startMeets: true }));
}

/** The refusal of `delta` for Laplace noise by groups, or of an epsilon that is not positive. */
export function checkApproximateLaplace(target: ValidTarget & { notion: 'approximate' }, profile: Profile): void {
  if (profile.grouped) {
    throw new TypeError(
      'dpnoise: `delta` applies to Laplace noise per coordinate, not with `groups` (a group with an l1 sensitivity has no Laplace pair to account); give `sensitivity`, or no `delta`.',
    );
  }
  if (!(target.epsilon > 0)) throw new RangeError(`dpnoise: \`epsilon\` must be > 0 for Laplace noise; got ${target.epsilon}.`);
}

/** calibrateLaplace for (epsilon, delta): the allocation's shape at the largest pure budget whose Laplace noise is (epsilon, delta)-DP. */
export function approximateLaplaceCalibration(target: ValidTarget & { notion: 'approximate' }, profile: Profile): LaplaceCalibration {
  checkApproximateLaplace(target, profile);
  const at = (epsilonPure: number) => laplaceCalibration({ notion: 'pure', epsilon: epsilonPure }, profile);
  const epsilonPure = largestPureBudget(target.epsilon, (e) => {
    const scales = at(e).scales;
    return certifies(
      independentPrivacy('laplace', profile.lambda, (i) => scales[i]!),
      target.epsilon,
      target.delta,
    );
  });
  return calibration({ ...at(epsilonPure), target: targetOf(target) });
}

/**
 * Calibrates independent Laplace noise for pure epsilon-DP, or with `delta` for
 * (epsilon, delta)-DP by the accountant (smaller scales: many coordinates rarely all reach their
 * largest loss): one scale b_i per coordinate, allocated from the sensitivity profile (default
 * `optimal`, minimising the MSE). With `delta`, the scales are the allocation's at the largest
 * pure budget whose Laplace noise is (epsilon, delta)-DP, to 0.1%.
 *
 * @example
 * ```ts
 * import { calibrateLaplace } from 'dpnoise';
 *
 * const l = calibrateLaplace({ sensitivity: [0.1, 0.2, 0.4, 0.8], epsilon: 1 });
 * console.log(l.scales); // Laplace scales b_i: 0.911, 1.147, 1.446, 1.821
 * console.log(l.mse, l.gain); // 15.11, 1.191
 * // 100 coordinates: pure epsilon 1 costs scales 100; (1, 1e-6)-DP by the accountant, 41.51.
 * const d = calibrateLaplace({ sensitivity: new Array(100).fill(1), epsilon: 1, delta: 1e-6 });
 * console.log(d.scales[0]);
 * ```
 *
 * @group Calibration
 */
export function calibrateLaplace(options: LaplaceCalibrationOptions): LaplaceCalibration {
  const o = readOptions('options', options, [...PROFILE_OPTIONS, 'epsilon', 'delta']);
  const target = readTarget(o, ['pure', 'approximate']);
  if (target.notion === 'approximate') return approximateLaplaceCalibration(target, readProfile(o));
  return laplaceCalibration(target as ValidTarget & { notion: 'pure' }, readProfile(o));
}
