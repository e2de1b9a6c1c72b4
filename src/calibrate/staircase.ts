// The staircase mechanism's costs and calibration (docs/staircase.md): the moments E|X|^p of the
// 1-D staircase in closed form (p = 1, 2), its best shape gamma, and the split of a pure epsilon
// across the coordinates of a sensitivity profile that minimises sum_i w_i lambda_i^p V_p(eps_i).
import { type Budget, budgetOf, readBudget, type Target } from '../core/budget.js';
import { frozenResult } from '../core/frozen.js';
import { readOptions } from '../core/validate.js';
import { type Allocation, laplaceCalibration, type Profile, PROFILE_OPTIONS, type ProfileOptions, readProfile } from './allocations.js';

/** The largest errorPower the staircase takes: beyond it the moments overflow at the smallest budgets. */
export const STAIRCASE_POWERS = 8;

/** Eulerian numbers A(j, m), j <= STAIRCASE_POWERS: sum over k >= 0 of k^j b^k = sum_m A(j, m) b^(m+1) / (1 - b)^(j+1) for j >= 1. */
const EULERIAN: number[][] = [[1]];
for (let j = 1; j <= STAIRCASE_POWERS; j++) {
  const previous = EULERIAN[j - 1]!;
  EULERIAN.push(Array.from({ length: j }, (_, m) => (m + 1) * (previous[m] ?? 0) + (j - m) * (previous[m - 1] ?? 0)));
}

/** Binomial coefficients C(n, k) for n <= STAIRCASE_POWERS + 1 (Pascal's triangle, exact in doubles). */
const BINOMIALS: number[][] = [[1]];
for (let n = 1; n <= STAIRCASE_POWERS + 1; n++)
  BINOMIALS.push(Array.from({ length: n + 1 }, (_, k) => (BINOMIALS[n - 1]![k - 1] ?? 0) + (BINOMIALS[n - 1]![k] ?? 0)));

/**
 * E|X|^p of the staircase of sensitivity 1 and budget epsilon as a function of its shape gamma,
 * for a whole p from 1 to STAIRCASE_POWERS (docs/staircase.md, "Moments"): with b = e^-epsilon
 * and S_j = sum over k >= 0 of k^j b^k (Eulerian numbers over (1 - b)^(j+1)),
 *   E|X|^p = (1 - b) / ((p + 1) (gamma + b (1 - gamma))) sum_{j <= p} C(p + 1, j) (gamma^(p+1-j) + b (1 - gamma^(p+1-j))) S_j,
 * every term positive, so no cancellation. The terms that do not depend on gamma are computed once,
 * as a shape search asks for many gammas at one epsilon.
 */
function momentOf(p: number, epsilon: number): (gamma: number) => number {
  const b = Math.exp(-epsilon);
  const ob = -Math.expm1(-epsilon); // 1 - b without cancellation
  const binomials = BINOMIALS[p + 1]!;
  const terms = new Float64Array(p + 1); // C(p + 1, j) S_j
  let over = 1 / ob; // 1 / (1 - b)^(j+1)
  for (let j = 0; j <= p; j++) {
    // S_j (1 - b)^(j+1) = sum_m A(j, m) b^(m+1) by Horner's rule (1 for j = 0)
    const eulerian = EULERIAN[j]!;
    let S = 0;
    for (let m = eulerian.length - 1; m >= 0; m--) S = S * b + eulerian[m]!;
    terms[j] = binomials[j]! * (j > 0 ? S * b : S) * over;
    over /= ob;
  }
  const scale = ob / (p + 1);
  return (gamma) => {
    let sum = 0;
    let g = gamma; // gamma^(p+1-j), from j = p down
    for (let j = p; j >= 0; j--) {
      sum += terms[j]! * (g + b * (1 - g));
      g *= gamma;
    }
    return (scale * sum) / (gamma + b * (1 - gamma));
  };
}

/** E|X|^p of the staircase of sensitivity 1, budget epsilon and shape gamma (momentOf). */
export function staircaseMoment(p: number, gamma: number, epsilon: number): number {
  return momentOf(p, epsilon)(gamma);
}

/** Golden-section steps: the bracket shrinks by 0.618 per step, to 1e-16 of [0, 1]. */
const GOLDEN_STEPS = 80;
const INVERSE_PHI = (Math.sqrt(5) - 1) / 2;

/** The minimiser in [0, 1] of a unimodal f, by golden-section search. */
export function goldenMinimum(f: (x: number) => number): number {
  let [a, b] = [0, 1];
  for (let step = 0; step < GOLDEN_STEPS; step++) {
    const c = b - INVERSE_PHI * (b - a);
    const d = a + INVERSE_PHI * (b - a);
    if (f(c) < f(d)) b = d;
    else a = c;
  }
  return (a + b) / 2;
}

/** The gamma in [0, 1] of least E|X|^p: 1 / (1 + e^(epsilon/2)) for p = 1, by golden-section search otherwise (one minimum: docs/staircase.md). */
export function staircaseShape(p: number, epsilon: number): number {
  if (p === 1) return 1 / (1 + Math.exp(epsilon / 2));
  return goldenMinimum(momentOf(p, epsilon));
}

/** V_p(epsilon): the least E|X|^p over the shapes, for sensitivity 1. */
export function staircaseCost(p: number, epsilon: number): number {
  return staircaseMoment(p, staircaseShape(p, epsilon), epsilon);
}

/** -V_p'(epsilon), from the moment's derivative at the best shape (the envelope theorem), by a central difference. */
function costSlope(p: number, epsilon: number): number {
  const gamma = staircaseShape(p, epsilon);
  const h = epsilon * 1e-4;
  return (staircaseMoment(p, gamma, epsilon - h) - staircaseMoment(p, gamma, epsilon + h)) / (2 * h);
}

/**
 * The largest budget one coordinate gets: beyond it e^-eps underflows, and its error (below
 * e^-350) is nothing. A split capped there still meets epsilon (it spends less).
 */
const LARGEST_SHARE = 700;

/** The table that inverts -V_p': log-spaced budgets from LARGEST_SHARE 2^-SPAN to LARGEST_SHARE, about 205 per octave. */
const SPAN = 70;
const TABLE_POINTS = 14337;

/** log eps and log(-V_p'(eps)) (decreasing) at the table's budgets, computed once per p. */
const slopeTables = new Map<number, { logE: Float64Array; logSlope: Float64Array }>();

function slopeTable(p: number): { logE: Float64Array; logSlope: Float64Array } {
  let table = slopeTables.get(p);
  if (table === undefined) {
    const logE = new Float64Array(TABLE_POINTS);
    const logSlope = new Float64Array(TABLE_POINTS);
    for (let t = 0; t < TABLE_POINTS; t++) {
      const e = LARGEST_SHARE * 2 ** (-SPAN + (SPAN * t) / (TABLE_POINTS - 1));
      logE[t] = Math.log(e);
      logSlope[t] = Math.log(costSlope(p, e));
    }
    table = { logE, logSlope };
    slopeTables.set(p, table);
  }
  return table;
}

/**
 * The optimal split: eps_i with c_i (-V_p'(eps_i)) = nu for every coordinate of weight c_i =
 * w_i lambda_i^p > 0 (given as log c_i, NaN for lambda_i = 0: c_i itself underflows for
 * lambda_i near 2^-400), and nu such that sum eps_i = epsilon. -V_p' is decreasing, so eps_i(nu) is
 * read off a log-log table of it, and the sum is decreasing in nu: a bracketed root search.
 * Returns the split at the nu whose sum is below epsilon (the safe side).
 */
function optimalSplit(p: number, logWeights: Float64Array, epsilon: number): Float64Array {
  const { logE, logSlope } = slopeTable(p);
  /** log eps_i for log(nu / c_i) = y, clamped to the table. */
  const inverse = (y: number): number => {
    if (y >= logSlope[0]!) return logE[0]!;
    if (y <= logSlope[TABLE_POINTS - 1]!) return logE[TABLE_POINTS - 1]!;
    let [lo, hi] = [0, TABLE_POINTS - 1];
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (logSlope[mid]! > y) lo = mid;
      else hi = mid;
    }
    const f = (y - logSlope[lo]!) / (logSlope[hi]! - logSlope[lo]!);
    return logE[lo]! + f * (logE[hi]! - logE[lo]!);
  };
  const split = (logNu: number) => logWeights.map((lc) => (Number.isNaN(lc) ? 0 : Math.exp(inverse(logNu - lc))));
  const sum = (eps: Float64Array) => eps.reduce((s, e) => s + e, 0);
  // The Illinois method on log nu (regula falsi, halving the weight of an end kept twice): the
  // excess sum - epsilon falls with log nu, and the bracket [lo, hi] keeps it above 0 at lo and at
  // most 0 at hi, so split(hi) is always on the safe side. log nu = log c_i + log(-V_p') lies
  // within [-1500, 1500] for every weight in the domains.
  let [lo, hi] = [-1500, 1500];
  let [above, below] = [sum(split(lo)) - epsilon, sum(split(hi)) - epsilon];
  let kept = 0; // which end stayed last time: 1 lo, -1 hi
  for (let step = 0; step < 200 && hi - lo > 1e-13 * Math.max(1, Math.abs(hi)) && below < 0; step++) {
    const mid = hi - (below * (hi - lo)) / (below - above);
    const excess = sum(split(mid)) - epsilon;
    if (excess > 0) {
      [lo, above] = [mid, excess];
      if (kept === -1) below /= 2;
      kept = -1;
    } else {
      [hi, below] = [mid, excess];
      if (kept === 1) above /= 2;
      kept = 1;
    }
  }
  return split(hi);
}

/** Scales the split down, if need be, so that its sum in exact arithmetic cannot pass epsilon (each addition rounds by at most 2^-53 of the sum). */
function withinBudget(eps: Float64Array, epsilon: number): Float64Array {
  const limit = epsilon * (1 - (eps.length + 2) * 2 ** -52);
  const total = eps.reduce((s, e) => s + e, 0);
  return total <= limit ? eps : eps.map((e) => e * (limit / total) * (1 - 2 ** -52));
}

/**
 * The options of calibrateStaircase: per-coordinate `sensitivity`, pure `epsilon`, and the
 * allocation, its errorPower (a whole number from 1 to 8) and weights.
 *
 * @group Calibration
 */
export interface StaircaseCalibrationOptions extends Omit<ProfileOptions, 'groups'> {
  /** The privacy budget epsilon (> 0): pure epsilon-DP. */
  epsilon: number;
}

/**
 * A staircase calibration: per coordinate, the budget eps_i, the shape gamma_i and the
 * sensitivity its steps are measured in.
 *
 * @group Calibration
 */
export interface StaircaseCalibration {
  /** The noise family. */
  readonly family: 'staircase';
  /** The budget calibrated to: `{ epsilon }` (pure epsilon-DP). */
  readonly budget: Budget;
  /** The allocation used. */
  readonly allocation: Allocation;
  /** The p of the error E|X|^p the allocation minimises: 1 or 2. */
  readonly errorPower: number;
  /** Each coordinate's step width: its sensitivity (iid: the largest sensitivity, for every coordinate). */
  readonly sensitivity: Float64Array;
  /** Each coordinate's budget eps_i; they add up to at most epsilon. */
  readonly epsilons: Float64Array;
  /** Each coordinate's shape gamma_i in [0, 1]: the share of a step at the higher density. */
  readonly gammas: Float64Array;
  /** Expected error sum_i w_i E|X_i|^p. */
  readonly error: number;
  /** The optimal i.n.i.d. Laplace calibration's error for the same profile, epsilon and p, divided by this one's. */
  readonly gain: number;
}

/**
 * Calibrates independent staircase noise (Geng & Viswanath), the optimal pure epsilon-DP noise
 * for one real query, to a sensitivity profile: the budget is split across the coordinates
 * (`optimal`: minimising sum_i w_i lambda_i^p V_p(eps_i); `spr`: eps / K each; `iid`: eps / K and
 * the largest sensitivity everywhere), each coordinate with the staircase shape of least error.
 * The product is epsilon-DP under the box bound (each coordinate moves by at most its
 * sensitivity). errorPower is 1 (l1 error), 2 (the MSE, the default) or a higher whole number up
 * to 8 (E|X|^p). No coordinate gets more
 * than 700 (its error is then below e^-350).
 *
 * @example
 * ```ts
 * import { calibrateStaircase } from 'dpnoise';
 *
 * const s = calibrateStaircase({ sensitivity: [0.15, 0.85], epsilon: 3, errorPower: 1 });
 * console.log(s.epsilons); // 0.8591, 2.1409
 * console.log(s.error, s.gain); // 0.4996, 1.144 (i.n.i.d. Laplace: 0.5714)
 * ```
 *
 * @group Calibration
 */
export function calibrateStaircase(options: StaircaseCalibrationOptions): StaircaseCalibration {
  const o = readOptions('options', options, [...PROFILE_OPTIONS, 'epsilon']);
  const { target, profile } = readStaircaseOptions(o);
  return frozenResult(staircaseCalibration(target, profile));
}

/** Whether the staircase takes this errorPower: a whole number from 1 to STAIRCASE_POWERS. */
export const staircasePower = (p: number): boolean => Number.isInteger(p) && p >= 1 && p <= STAIRCASE_POWERS;

/** A staircase's budget and profile, validated: pure epsilon, sensitivity per coordinate (no groups), errorPower a whole number from 1 to 8. */
export function readStaircaseOptions(o: Record<string, unknown>): { target: Target & { notion: 'pure' }; profile: Profile } {
  if (o.groups !== undefined) throw new TypeError('dpnoise: the staircase takes `sensitivity` per coordinate, not `groups`.');
  const target = readBudget(o, ['pure']) as Target & { notion: 'pure' };
  const profile = readProfile(o, true);
  if (!staircasePower(profile.p))
    throw new RangeError(`dpnoise: \`errorPower\` must be a whole number from 1 to ${STAIRCASE_POWERS} for the staircase; got ${profile.p}.`);
  return { target, profile };
}

/** calibrateStaircase for options already read (not frozen). */
export function staircaseCalibration(target: Target & { notion: 'pure' }, profile: Profile): StaircaseCalibration {
  const { lambda, allocation } = profile;
  const p = profile.p;
  const K = lambda.length;
  const weights = profile.weights ?? new Float64Array(K).fill(1);
  const largest = lambda.reduce((m, x) => Math.max(m, x), 0);
  const sensitivity = allocation === 'iid' ? new Float64Array(K).fill(largest) : lambda;
  const noised = sensitivity.reduce((n, x) => n + (x > 0 ? 1 : 0), 0);
  let epsilons: Float64Array;
  if (allocation === 'optimal') {
    epsilons = optimalSplit(
      p,
      sensitivity.map((x, i) => (x > 0 ? Math.log(weights[i]!) + p * Math.log(x) : Number.NaN)),
      target.epsilon,
    );
  } else {
    epsilons = sensitivity.map((x) => (x > 0 ? Math.min(LARGEST_SHARE, target.epsilon / noised) : 0));
  }
  epsilons = withinBudget(epsilons, target.epsilon);
  // Every noised coordinate must get a budget: with none it would get no noise (or infinite noise).
  const starved = sensitivity.findIndex((x, i) => x > 0 && !(epsilons[i]! > 0));
  if (starved >= 0) throw new RangeError(`dpnoise: coordinate ${starved} of the staircase gets no share of epsilon; use a larger epsilon.`);
  const gammas = epsilons.map((e) => (e > 0 ? staircaseShape(p, e) : 0.5));
  const error = epsilons.reduce((s, e, i) => s + (e > 0 ? weights[i]! * sensitivity[i]! ** p * staircaseMoment(p, gammas[i]!, e) : 0), 0);
  const laplace = laplaceCalibration(target, { ...profile, allocation: 'optimal' }).error;
  return {
    family: 'staircase',
    budget: budgetOf(target),
    allocation,
    errorPower: p,
    sensitivity,
    epsilons,
    gammas,
    error,
    gain: error > 0 ? laplace / error : 1,
  };
}
