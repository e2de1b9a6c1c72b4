// Privacy accounting: what any vector of noise scales guarantees for a sensitivity profile, and
// the composition of several releases. Users need not trust scales computed elsewhere.
//
// Gaussian (docs/math.md, "Gaussian privacy"): independent scales sigma_i give the Mahalanobis
// distance mu = sqrt(sum_i (lambda_i / sigma_i)^2) (the box bound), hence the exact profile
// delta(eps; mu), mu-GDP and rho-zCDP with rho = mu^2 / 2. Laplace: epsilon = sum_i lambda_i / b_i.
// Sums are compensated and rounded up, so the reported privacy is never better than the truth.
//
// Every privacy object has one shape: `kind`, its own parameters as numbers (mu, rho, epsilonPure),
// and the functions epsilon(delta) and delta(epsilon); it is frozen. Accounting fails closed: a
// figure is never NaN, null or negative; an overflow means Infinity (no privacy) with a warning.
import { CompensatedSum } from '../core/summation.js';
import { roundUp } from '../core/rounding.js';
import { halfSquare, lossNorm } from './loss.js';
import { DELTA, GAUSSIAN_EPSILON, PROFILE_ENTRIES } from '../core/domains.js';
import { describe, numberIn, readOptions, vector } from '../core/validate.js';
import { wasm } from '../wasm/loader.js';
import { zcdpDelta, zcdpEpsilon } from './zcdp.js';

/** What every privacy object offers. */
interface Curves {
  /** The smallest delta (or a safe upper bound) for which the release is (epsilon, delta)-DP. */
  delta(epsilon: number): number;
  /** The smallest epsilon (or a safe upper bound) for which the release is (epsilon, delta)-DP. */
  epsilon(delta: number): number;
  /** Present when there is no privacy (a coordinate released exactly, or a loss that overflows). */
  readonly warning?: string;
}

/**
 * The privacy of independent Gaussian noise (or of Gaussian releases composed).
 *
 * @group Accounting
 */
export interface GaussianPrivacy extends Curves {
  /** Which kind of privacy object this is. */
  readonly kind: 'gaussian';
  /** Mahalanobis distance between neighbouring outputs (mu-GDP); Infinity for no privacy. */
  readonly mu: number;
  /** rho-zCDP, rho = mu^2 / 2. */
  readonly rho: number;
}

/**
 * The privacy of independent Laplace noise (or of Laplace releases composed): pure epsilon-DP.
 *
 * @group Accounting
 */
export interface LaplacePrivacy extends Curves {
  /** Which kind of privacy object this is. */
  readonly kind: 'laplace';
  /** Pure epsilon-DP; Infinity for no privacy. `epsilon(delta)` is this for every delta. */
  readonly epsilonPure: number;
}

/**
 * Gaussian and Laplace releases composed: (epsilonPure + epsilon_G(delta), delta)-DP.
 *
 * @group Accounting
 */
export interface MixedPrivacy extends Curves {
  /** Which kind of privacy object this is. */
  readonly kind: 'mixed';
  /** The Gaussian part's distance. */
  readonly mu: number;
  /** The Laplace part's epsilon. */
  readonly epsilonPure: number;
}

/**
 * rho-zCDP (discrete Gaussian noise of grid mode), converted to (epsilon, delta) by CKS Corollary 13.
 *
 * @group Accounting
 */
export interface ZcdpPrivacy extends Curves {
  /** Which kind of privacy object this is. */
  readonly kind: 'zcdp';
  /** rho of rho-zCDP; Infinity for no privacy. */
  readonly rho: number;
}

/**
 * Any privacy object: what gaussianPrivacy, laplacePrivacy, compose and mechanisms give.
 *
 * @group Accounting
 */
export type Privacy = GaussianPrivacy | LaplacePrivacy | MixedPrivacy | ZcdpPrivacy;

const OVERFLOW = 'no privacy: the privacy loss overflows double precision (a noise scale is far too small for its sensitivity).';

/** A privacy parameter: a number >= 0, or Infinity (no privacy). */
function parameter(name: string, value: unknown): number {
  if (typeof value !== 'number' || !(value >= 0)) {
    throw new TypeError(`dpnoise: \`${name}\` must be a number >= 0 (Infinity for no privacy); got ${describe(value)}.`);
  }
  return value;
}

/** The warning to carry: the given ones, and the overflow warning when a figure is infinite. */
function warningFor(values: readonly number[], warnings: readonly string[]): { warning: string | undefined } {
  const all = [...warnings];
  if (all.length === 0 && values.some((v) => v === Infinity)) all.push(OVERFLOW);
  return { warning: all.length > 0 ? all.join(' ') : undefined }; // an own property either way: never inherited
}

const readEpsilon = (epsilon: number) => numberIn('epsilon', epsilon, GAUSSIAN_EPSILON);
const readDelta = (delta: number) => numberIn('delta', delta, DELTA);

/** delta(epsilon) and epsilon(delta) of a Gaussian mechanism at distance mu, any mu. */
function gaussianCurves(mu: number): Pick<Curves, 'delta' | 'epsilon'> {
  return {
    delta(epsilon: number): number {
      const eps = readEpsilon(epsilon);
      return mu === Infinity ? 1 : wasm().gaussianDelta(mu, eps);
    },
    epsilon(delta: number): number {
      const d = readDelta(delta);
      if (mu === Infinity) return Infinity;
      const w = wasm();
      // Beyond mu = 1000: delta(eps; mu) <= Q(eps/mu - mu/2), so mu (Q^-1(delta) + mu/2) is enough.
      return mu <= 1000 ? w.gaussianEpsilon(mu, d) : roundUp(mu * (w.normalIsf(d) + mu / 2));
    },
  };
}

/** Pure epsilon0-DP is (epsilon, 1 - e^(epsilon - epsilon0))-DP below epsilon0: P(S) - e^eps Q(S) <= P(S) (1 - e^(eps - eps0)). */
function pureCurves(epsilonPure: number): Pick<Curves, 'delta' | 'epsilon'> {
  return {
    delta: (epsilon) => {
      const eps = readEpsilon(epsilon);
      return eps >= epsilonPure ? 0 : epsilonPure === Infinity ? 1 : -wasm().expm1(eps - epsilonPure);
    },
    epsilon: (delta) => {
      readDelta(delta); // validated all the same
      return epsilonPure;
    },
  };
}

/** A Gaussian privacy object at distance mu. */
export function gaussianFromMu(mu: number, warnings: readonly string[] = []): GaussianPrivacy {
  parameter('mu', mu);
  return Object.freeze({ kind: 'gaussian', mu, rho: halfSquare(mu), ...gaussianCurves(mu), ...warningFor([mu], warnings) } as const);
}

/** A pure epsilon-DP privacy object. */
export function laplaceFromEpsilon(epsilonPure: number, warnings: readonly string[] = []): LaplacePrivacy {
  parameter('epsilonPure', epsilonPure);
  return Object.freeze({ kind: 'laplace', epsilonPure, ...pureCurves(epsilonPure), ...warningFor([epsilonPure], warnings) } as const);
}

/** A rho-zCDP privacy object. */
export function zcdpPrivacy(rho: number, warnings: readonly string[] = []): ZcdpPrivacy {
  parameter('rho', rho);
  return Object.freeze({
    kind: 'zcdp',
    rho,
    delta: (epsilon: number) => (rho === Infinity ? 1 : zcdpDelta(rho, readEpsilon(epsilon))),
    epsilon: (delta: number) => (rho === Infinity ? Infinity : roundUp(zcdpEpsilon(rho, readDelta(delta)))),
    ...warningFor([rho], warnings),
  } as const);
}

/** Gaussian and pure parts by basic composition: (epsilonPure + epsilon_G(delta), delta)-DP. */
function mixedPrivacy(mu: number, epsilonPure: number, warnings: readonly string[]): MixedPrivacy {
  const curves = gaussianCurves(mu);
  return Object.freeze({
    kind: 'mixed',
    mu,
    epsilonPure,
    delta(epsilon: number): number {
      const eps = readEpsilon(epsilon);
      return eps < epsilonPure ? 1 : curves.delta(eps - epsilonPure);
    },
    epsilon(delta: number): number {
      return roundUp(epsilonPure + curves.epsilon(delta));
    },
    ...warningFor([mu, epsilonPure], warnings),
  } as const);
}

/**
 * Options of gaussianPrivacy and laplacePrivacy.
 *
 * @group Accounting
 */
export interface AccountingOptions {
  /** Noise scales: one number for all coordinates, or one per coordinate. */
  scales: number | Float64Array | readonly number[];
  /** The sensitivity of each coordinate. */
  sensitivity: Float64Array | readonly number[];
}

const SCALE_ENTRIES = { min: 0, max: Number.MAX_VALUE, basic: 'a finite number >= 0', range: 'a finite number >= 0' };

/** (sum_i (lambda_i / s_i)^q)^(1/q) over the profile, rounded up; Infinity (with the first culprit) for a zero scale. */
function spend(options: AccountingOptions, q: 1 | 2): { total: number; warnings: string[] } {
  const o = readOptions('options', options, ['scales', 'sensitivity']);
  const lambda = vector('sensitivity', o.sensitivity, PROFILE_ENTRIES);
  const scales =
    typeof o.scales === 'number'
      ? numberIn('scales', o.scales, { min: 0, max: Number.MAX_VALUE })
      : vector('scales', o.scales, SCALE_ENTRIES, { length: lambda.length });
  const { total, exactAt } = lossNorm(lambda, typeof scales === 'number' ? () => scales : (i) => scales[i]!, q);
  if (exactAt === undefined) return { total, warnings: [] };
  return { total, warnings: [`no privacy: coordinate ${exactAt} has sensitivity ${lambda[exactAt]} and scale 0, so it is released exactly.`] };
}

/**
 * The privacy of independent Gaussian noise with standard deviations `scales`.
 *
 * @example
 * ```ts
 * import { gaussianPrivacy } from 'dpnoise';
 *
 * const p = gaussianPrivacy({ scales: [0.5, 1, 2], sensitivity: [0.1, 0.2, 0.4] });
 * console.log(p.mu, p.rho); // 0.3464 = sqrt(3 * 0.2^2), 0.06
 * console.log(p.epsilon(1e-6), p.delta(1)); // 1.510, 0.00032
 * ```
 *
 * @group Accounting
 */
export function gaussianPrivacy(options: AccountingOptions): GaussianPrivacy {
  const { total, warnings } = spend(options, 2);
  return gaussianFromMu(total, warnings);
}

/**
 * The privacy (pure epsilon-DP) of independent Laplace noise with scales b_i = `scales`.
 *
 * @example
 * ```ts
 * import { laplacePrivacy } from 'dpnoise';
 *
 * const p = laplacePrivacy({ scales: [1, 2], sensitivity: [0.5, 0.5] });
 * console.log(p.epsilonPure); // 0.75 = 0.5 / 1 + 0.5 / 2, rounded up by an ulp or two
 * ```
 *
 * @group Accounting
 */
export function laplacePrivacy(options: AccountingOptions): LaplacePrivacy {
  const { total, warnings } = spend(options, 1);
  return laplaceFromEpsilon(total, warnings);
}

const KINDS = ['gaussian', 'laplace', 'mixed', 'zcdp'] as const;

/** One item of compose's list, read once and checked: its kind, its parameters, its warning. */
function readPrivacy(item: unknown, i: number): { kind: (typeof KINDS)[number]; mu: number; epsilonPure: number; rho: number; warning?: string } {
  const what = `list[${i}]`;
  const kind = typeof item === 'object' && item !== null ? (item as { kind?: unknown }).kind : undefined;
  if (!KINDS.includes(kind as never)) {
    throw new TypeError(`dpnoise: \`${what}\` must be a privacy object (from gaussianPrivacy, laplacePrivacy, compose or a mechanism); got ${describe(item)}.`);
  }
  const field = (name: string) => parameter(`${what}.${name}`, (item as Record<string, unknown>)[name]);
  const k = kind as (typeof KINDS)[number];
  const warning = (item as { warning?: unknown }).warning;
  if (warning !== undefined && typeof warning !== 'string') throw new TypeError(`dpnoise: \`${what}.warning\` must be a string; got ${describe(warning)}.`);
  return {
    kind: k,
    mu: k === 'gaussian' || k === 'mixed' ? field('mu') : 0,
    epsilonPure: k === 'laplace' || k === 'mixed' ? field('epsilonPure') : 0,
    rho: k === 'zcdp' ? field('rho') : 0,
    warning: warning as string | undefined,
  };
}

/**
 * The privacy of releasing every item of `list` (results of gaussianPrivacy, laplacePrivacy,
 * compose, or a mechanism's `privacy`). Gaussian parts compose exactly (mu = sqrt(sum mu_j^2));
 * Laplace parts add their epsilons; a mixture is (epsilonPure + epsilon_G(delta), delta)-DP by
 * basic composition of the pure part with the Gaussian part, a safe rule. With any zCDP part
 * (grid-mode Gaussian noise) everything composes as zCDP: rho adds up, mu-GDP is mu^2/2-zCDP and
 * each pure epsilon-DP part is epsilon^2/2-zCDP (Bun & Steinke 2016), all safe. Every item is checked: its
 * parameters must be numbers >= 0 or Infinity, so a privacy object saved as JSON (where Infinity
 * became null) or edited by hand fails instead of counting as no cost.
 *
 * @example
 * ```ts
 * import { compose, gaussianPrivacy, laplacePrivacy } from 'dpnoise';
 *
 * const step = gaussianPrivacy({ scales: 4, sensitivity: [1, 1] }); // mu = sqrt(2) / 4
 * const twice = compose([step, step]); // Gaussian, mu = 0.5
 * const count = laplacePrivacy({ scales: 2, sensitivity: [0.5, 0.5] }); // epsilon 0.5
 * const all = compose([twice, count]);
 * console.log(twice.epsilon(1e-6)); // 2.254
 * console.log(all.kind, all.epsilon(1e-6)); // 'mixed' 2.754
 * ```
 *
 * @group Accounting
 */
export function compose(list: readonly Privacy[]): Privacy {
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError('dpnoise: `list` must be a non-empty array of privacy objects (from gaussianPrivacy, laplacePrivacy, compose or a mechanism).');
  }
  const items = Array.from(list, readPrivacy);
  const epsilons = new CompensatedSum();
  // zCDP parts, each mu-GDP part as mu^2/2-zCDP and each pure epsilon-DP part as epsilon^2/2-zCDP.
  const rhos = new CompensatedSum();
  const warnings = items.flatMap((item) => (item.warning ? [item.warning] : []));
  for (const item of items) {
    epsilons.add(item.epsilonPure);
    rhos.add(item.rho);
    rhos.add(halfSquare(item.mu));
    rhos.add(halfSquare(item.epsilonPure));
  }
  const has = (kinds: readonly string[]) => items.some((item) => kinds.includes(item.kind));
  if (has(['zcdp'])) return zcdpPrivacy(roundUp(rhos.value), warnings);
  // mu = sqrt(sum mu_j^2), formed without underflow for tiny distances.
  const mu = lossNorm(
    Float64Array.from(items, (item) => item.mu),
    () => 1,
    2,
  ).total;
  const epsilonPure = roundUp(epsilons.value);
  if (!has(['laplace', 'mixed'])) return gaussianFromMu(mu, warnings);
  if (!has(['gaussian', 'mixed'])) return laplaceFromEpsilon(epsilonPure, warnings);
  return mixedPrivacy(mu, epsilonPure, warnings);
}
