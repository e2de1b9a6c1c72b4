// The staircase mechanism's costs and calibration (docs/staircase.md): the moments E|X|^p of the
// 1-D staircase (in WebAssembly, assembly/calibrate/staircase.ts), its best shape gamma, and the
// split of a pure epsilon across the coordinates of a sensitivity profile that minimises
// sum_i w_i lambda_i^p V_p(eps_i), chunk by chunk in WebAssembly over a table made here once per p.
import { type PrivacyTarget, targetOf, readTarget, type ValidTarget } from '../core/target.js';
import { frozenResult } from '../core/frozen.js';
import { readOptions } from '../core/validate.js';
import { copyIn, forEachChunk, view } from '../wasm/chunks.js';
import { wasm, type WasmExports } from '../wasm/loader.js';
import { type Allocation, laplaceCalibration, type Profile, PROFILE_OPTIONS, type ProfileOptions, readProfile } from './allocations.js';

/** The largest errorPower the staircase takes: beyond it the moments overflow at the smallest budgets. */
export const STAIRCASE_POWERS = 8;

/** E|X|^p of the staircase of sensitivity 1 and budget epsilon as a function of its shape gamma (assembly/calibrate/staircase.ts, staircaseMoment). */
function momentOf(p: number, epsilon: number): (gamma: number) => number {
  const w = wasm();
  return (gamma) => w.staircaseMoment(p, gamma, epsilon);
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

/** -V_p'(epsilon), from the moment's derivative at the best shape gamma (the envelope theorem), by a central difference. */
function costSlope(p: number, epsilon: number, gamma: number): number {
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

/** The table's budgets: log eps = LOG_FIRST + t LOG_STEP, t < TABLE_POINTS. */
const LOG_FIRST = Math.log(LARGEST_SHARE) - SPAN * Math.LN2;
const LOG_STEP = (SPAN * Math.LN2) / (TABLE_POINTS - 1);

/** The table's columns at its budgets, computed once per p: log(-V_p'(eps)) (decreasing) and the best shape. */
interface SlopeTable {
  readonly logSlope: Float64Array;
  readonly shapes: Float64Array;
}
const slopeTables = new Map<number, SlopeTable>();

function slopeTable(p: number): SlopeTable {
  let table = slopeTables.get(p);
  if (table === undefined) {
    const logSlope = new Float64Array(TABLE_POINTS);
    const shapes = new Float64Array(TABLE_POINTS);
    for (let t = 0; t < TABLE_POINTS; t++) {
      const e = Math.exp(LOG_FIRST + t * LOG_STEP);
      shapes[t] = staircaseShape(p, e);
      logSlope[t] = Math.log(costSlope(p, e, shapes[t]!));
    }
    table = { logSlope, shapes };
    slopeTables.set(p, table);
  }
  return table;
}

/** Which p's table each module holds (the scalar and SIMD builds each have their own). */
const loaded = new WeakMap<WasmExports, number>();

/** The module with p's table in its memory. */
function withTable(p: number): WasmExports {
  const w = wasm();
  if (loaded.get(w) !== p) {
    const { logSlope, shapes } = slopeTable(p);
    w.staircaseTableGrid(LOG_FIRST, LOG_STEP);
    view(w, w.staircaseSlopePointer(), TABLE_POINTS).set(logSlope);
    view(w, w.staircaseShapePointer(), TABLE_POINTS).set(shapes);
    loaded.set(w, p);
  }
  return w;
}

/**
 * The optimal split: eps_i with c_i (-V_p'(eps_i)) = nu for every coordinate of weight c_i =
 * w_i lambda_i^p > 0 (given as log c_i, NaN for lambda_i = 0: c_i itself underflows for
 * lambda_i near 2^-400), and nu such that sum eps_i = epsilon. -V_p' is decreasing, so eps_i(nu) is
 * read off a log-log table of it (in WebAssembly, chunk by chunk), and the sum is decreasing in nu:
 * a bracketed root search. Returns the split at the nu whose sum is below epsilon (the safe side).
 */
function optimalSplit(p: number, logWeights: Float64Array, epsilon: number): Float64Array {
  const w = withTable(p);
  const K = logWeights.length;
  /** sum eps_i at log nu; with `into`, the eps_i too. */
  const split = (logNu: number, into?: Float64Array): number => {
    let sum = 0;
    forEachChunk(K, w.chunkLength(), (start, n) => {
      copyIn(w, w.profilePointer(), logWeights, start, n);
      sum += w.staircaseSplit(n, logNu, into !== undefined);
      into?.set(view(w, w.weightsPointer(), n), start);
    });
    return sum;
  };
  // The Illinois method on log nu (regula falsi, halving the weight of an end kept twice) for the
  // log of the sum over epsilon, which falls with log nu, and nearly linearly (the sum itself
  // spans hundreds of orders of magnitude across the bracket, which left the method crawling):
  // the bracket [lo, hi] keeps it above 0 at lo and at most 0 at hi, so split(hi) is always on the
  // safe side. log nu = log c_i + log(-V_p') lies within [-1500, 1500] for every weight in the
  // domains, and every sum is positive (each eps_i is at least the table's smallest budget).
  const excess = (logNu: number) => Math.log(split(logNu) / epsilon);
  let [lo, hi] = [-1500, 1500];
  let [above, below] = [excess(lo), excess(hi)];
  let kept = 0; // which end stayed last time: 1 lo, -1 hi
  for (let step = 0; step < 200 && hi - lo > 1e-13 * Math.max(1, Math.abs(hi)) && below < -1e-13; step++) {
    const mid = hi - (below * (hi - lo)) / (below - above);
    const e = excess(mid);
    if (e > 0) {
      [lo, above] = [mid, e];
      if (kept === -1) below /= 2;
      kept = -1;
    } else {
      [hi, below] = [mid, e];
      if (kept === 1) above /= 2;
      kept = 1;
    }
  }
  const epsilons = new Float64Array(K);
  split(hi, epsilons);
  return epsilons;
}

/**
 * Each coordinate's best shape (interpolated from p's table, or 1 / (1 + e^(eps/2)) for p = 1) and
 * the error sum_i c_i E|X_i|^p with c_i = w_i lambda_i^p, in WebAssembly chunk by chunk.
 */
function shapesAndError(p: number, epsilons: Float64Array, costWeights: (i: number) => number): { gammas: Float64Array; error: number } {
  const w = withTable(p);
  const gammas = new Float64Array(epsilons.length);
  let error = 0;
  forEachChunk(epsilons.length, w.chunkLength(), (start, n) => {
    copyIn(w, w.profilePointer(), epsilons, start, n);
    w.staircaseShapes(n, p);
    gammas.set(view(w, w.weightsPointer(), n), start);
    const moments = view(w, w.profilePointer(), n);
    for (let i = 0; i < n; i++) if (moments[i]! > 0) error += costWeights(start + i) * moments[i]!;
  });
  return { gammas, error };
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
  /** The noise. */
  readonly noise: 'staircase';
  /** The target calibrated to: `{ epsilon }` (pure epsilon-DP). */
  readonly target: PrivacyTarget;
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
export function readStaircaseOptions(o: Record<string, unknown>): { target: ValidTarget & { notion: 'pure' }; profile: Profile } {
  if (o.groups !== undefined) throw new TypeError('dpnoise: the staircase takes `sensitivity` per coordinate, not `groups`.');
  const target = readTarget(o, ['pure']) as ValidTarget & { notion: 'pure' };
  const profile = readProfile(o, true);
  if (!staircasePower(profile.p))
    throw new RangeError(`dpnoise: \`errorPower\` must be a whole number from 1 to ${STAIRCASE_POWERS} for the staircase; got ${profile.p}.`);
  return { target, profile };
}

/** calibrateStaircase for options already read (not frozen). */
export function staircaseCalibration(target: ValidTarget & { notion: 'pure' }, profile: Profile): StaircaseCalibration {
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
  const { gammas, error } = shapesAndError(p, epsilons, (i) => weights[i]! * sensitivity[i]! ** p);
  const laplace = laplaceCalibration(target, { ...profile, allocation: 'optimal' }).error;
  return {
    noise: 'staircase',
    target: targetOf(target),
    allocation,
    errorPower: p,
    sensitivity,
    epsilons,
    gammas,
    error,
    gain: error > 0 ? laplace / error : 1,
  };
}
