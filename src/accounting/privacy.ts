// Privacy accounting: what any vector of noise scales guarantees for a sensitivity profile, and
// the composition of several releases. Users need not trust scales computed elsewhere.
//
// Gaussian (docs/accounting.md, "Gaussian privacy"): independent scales sigma_i give the Mahalanobis
// distance mu = sqrt(sum_i (lambda_i / sigma_i)^2) (the box bound), hence the exact profile
// delta(eps; mu), mu-GDP and rho-zCDP with rho = mu^2 / 2. Laplace: epsilon = sum_i lambda_i / b_i.
// Sums are compensated and rounded up, so the reported privacy is never better than the truth.
//
// Every privacy object has one shape (README, "Conventions"): `kind`, the notion its numbers
// certify ('pure', 'gdp', 'zcdp', 'approximate'); `family`, the noise that gives it; its own
// numbers (epsilonPure, mu, rho); and the functions epsilon(delta) and delta(epsilon). It is
// frozen, and genuine: compose takes only objects this module made. Accounting fails closed: a
// figure is never NaN, null or negative; an overflow means Infinity (no privacy) with a warning.
import { DELTA, GAUSSIAN_EPSILON, PROFILE_ENTRIES } from '../core/domains.js';
import { roundUp } from '../core/rounding.js';
import { CompensatedSum } from '../core/summation.js';
import { describe, integerIn, numberIn, readOptions, vector } from '../core/validate.js';
import { wasm } from '../wasm/loader.js';
import { halfSquare, lossNorm } from './loss.js';
import { zcdpDelta, zcdpEpsilon } from './zcdp.js';

/**
 * The noise a privacy object accounts for: a family of noise, its exact discrete version, or a
 * composition of releases.
 *
 * @group Accounting
 */
export type PrivacyFamily = 'gaussian' | 'laplace' | 'discrete-gaussian' | 'discrete-laplace' | 'composition';

/** What every privacy object offers. */
interface Curves {
  /** The noise it accounts for. */
  readonly family: PrivacyFamily;
  /** The smallest delta (or a safe upper bound) for which the release is (epsilon, delta)-DP. */
  delta(epsilon: number): number;
  /** The smallest epsilon (or a safe upper bound) for which the release is (epsilon, delta)-DP; delta in [0, 1). */
  epsilon(delta: number): number;
  /** Present when there is no privacy (a coordinate released exactly, or a loss that overflows). */
  readonly warning?: string;
}

/**
 * mu-GDP (Gaussian noise, or Gaussian releases composed): the exact (epsilon, delta) curve.
 *
 * @group Accounting
 */
export interface GdpPrivacy extends Curves {
  /** The notion: mu-Gaussian differential privacy. */
  readonly kind: 'gdp';
  /** Mahalanobis distance between neighbouring outputs (mu-GDP); Infinity for no privacy. */
  readonly mu: number;
  /** rho-zCDP, rho = mu^2 / 2. */
  readonly rho: number;
}

/**
 * Pure epsilon-DP (Laplace noise, or Laplace releases composed).
 *
 * @group Accounting
 */
export interface PurePrivacy extends Curves {
  /** The notion: pure epsilon-DP. */
  readonly kind: 'pure';
  /** Pure epsilon-DP; Infinity for no privacy. `epsilon(delta)` is this for every delta. */
  readonly epsilonPure: number;
}

/**
 * (epsilon, delta)-DP of Gaussian and pure parts by basic composition: (epsilonPure + epsilon_G(delta), delta).
 *
 * @group Accounting
 */
export interface ApproximatePrivacy extends Curves {
  /** The notion: (epsilon, delta)-DP, here by basic composition. */
  readonly kind: 'approximate';
  /** The Gaussian part's distance. */
  readonly mu: number;
  /** The pure part's epsilon. */
  readonly epsilonPure: number;
}

/**
 * rho-zCDP (discrete Gaussian noise of grid mode), converted to (epsilon, delta) by CKS Corollary 13.
 *
 * @group Accounting
 */
export interface ZcdpPrivacy extends Curves {
  /** The notion: rho-zero-concentrated DP. */
  readonly kind: 'zcdp';
  /** rho of rho-zCDP; Infinity for no privacy. */
  readonly rho: number;
}

/**
 * Any privacy object: what gaussianPrivacy, laplacePrivacy, compose and every release give.
 *
 * @group Accounting
 */
export type Privacy = GdpPrivacy | PurePrivacy | ApproximatePrivacy | ZcdpPrivacy;

/** The privacy objects this module made: compose takes these only. */
const genuine = new WeakSet<object>();

/** Freezes a privacy object and records it as genuine. */
function issue<T extends Privacy>(privacy: T): T {
  Object.freeze(privacy);
  genuine.add(privacy);
  return privacy;
}

const OVERFLOW = 'no privacy: the privacy loss overflows double precision (a noise scale is far too small for its sensitivity).';

/** A privacy parameter: a number >= 0, or Infinity (no privacy). */
function parameter(name: string, value: number): number {
  if (!(value >= 0)) throw new RangeError(`dpnoise: internal error: \`${name}\` must be a number >= 0 (Infinity for no privacy); got ${describe(value)}.`);
  return value;
}

/** The warning to carry: the given ones, and the overflow warning when a figure is infinite. */
function warningFor(values: readonly number[], warnings: readonly string[]): { warning: string | undefined } {
  const all = [...warnings];
  if (all.length === 0 && values.some((v) => v === Infinity)) all.push(OVERFLOW);
  return { warning: all.length > 0 ? all.join(' ') : undefined }; // an own property either way: never inherited
}

const readEpsilon = (epsilon: number) => numberIn('epsilon', epsilon, GAUSSIAN_EPSILON);
/** delta in [0, 1): at 0, pure DP answers its epsilon and the other notions Infinity. */
const readDelta = (delta: number) => (delta === 0 ? 0 : numberIn('delta', delta, DELTA));

/** delta(epsilon) and epsilon(delta) of a Gaussian mechanism at distance mu, any mu. */
function gaussianCurves(mu: number): Pick<Curves, 'delta' | 'epsilon'> {
  return {
    delta(epsilon: number): number {
      const eps = readEpsilon(epsilon);
      return mu === Infinity ? 1 : wasm().gaussianDelta(mu, eps);
    },
    epsilon(delta: number): number {
      const d = readDelta(delta);
      if (mu === Infinity || (d === 0 && mu > 0)) return mu === 0 ? 0 : Infinity;
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
      readDelta(delta); // validated all the same: (epsilonPure, delta)-DP for every delta, 0 included
      return epsilonPure;
    },
  };
}

/** A mu-GDP privacy object (Gaussian noise by default). */
export function gdpPrivacy(mu: number, family: PrivacyFamily = 'gaussian', warnings: readonly string[] = []): GdpPrivacy {
  parameter('mu', mu);
  return issue({ kind: 'gdp', family, mu, rho: halfSquare(mu), ...gaussianCurves(mu), ...warningFor([mu], warnings) });
}

/** A pure epsilon-DP privacy object (Laplace noise by default). */
export function purePrivacy(epsilonPure: number, family: PrivacyFamily = 'laplace', warnings: readonly string[] = []): PurePrivacy {
  parameter('epsilonPure', epsilonPure);
  return issue({ kind: 'pure', family, epsilonPure, ...pureCurves(epsilonPure), ...warningFor([epsilonPure], warnings) });
}

/** A rho-zCDP privacy object (grid mode's discrete Gaussian noise by default). */
export function zcdpPrivacy(rho: number, family: PrivacyFamily = 'discrete-gaussian', warnings: readonly string[] = []): ZcdpPrivacy {
  parameter('rho', rho);
  return issue({
    kind: 'zcdp',
    family,
    rho,
    delta: (epsilon: number) => (rho === Infinity ? 1 : zcdpDelta(rho, readEpsilon(epsilon))),
    epsilon: (delta: number) => {
      const d = readDelta(delta);
      if (rho === 0) return 0;
      return rho === Infinity || d === 0 ? Infinity : roundUp(zcdpEpsilon(rho, d));
    },
    ...warningFor([rho], warnings),
  });
}

/** Gaussian and pure parts by basic composition: (epsilonPure + epsilon_G(delta), delta)-DP. */
function approximatePrivacy(mu: number, epsilonPure: number, warnings: readonly string[]): ApproximatePrivacy {
  const curves = gaussianCurves(mu);
  return issue({
    kind: 'approximate',
    family: 'composition',
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
  });
}

/** Noise families whose independent noise this module accounts for directly. */
type IndependentFamily = 'gaussian' | 'laplace';

/**
 * The privacy of independent noise of `family` with these scales, for arrays already validated:
 * mu-GDP (Gaussian) or pure epsilon-DP (Laplace); with `discrete`, the exact discrete noise of grid
 * mode in grid steps (lambda and scales in steps): rho-zCDP with rho = sum (lambda_i / sigma_i)^2 / 2
 * for the discrete Gaussian (Canonne, Kamath & Steinke 2020), pure epsilon-DP for the discrete Laplace.
 */
export function independentPrivacy(family: IndependentFamily, lambda: Float64Array, scaleAt: (i: number) => number, discrete = false): Privacy {
  const { total, exactAt } = lossNorm(lambda, scaleAt, family === 'gaussian' ? 2 : 1);
  const warnings =
    exactAt === undefined ? [] : [`no privacy: coordinate ${exactAt} has sensitivity ${lambda[exactAt]} and scale 0, so it is released exactly.`];
  if (family === 'laplace') return purePrivacy(total, discrete ? 'discrete-laplace' : 'laplace', warnings);
  return discrete ? zcdpPrivacy(halfSquare(total), 'discrete-gaussian', warnings) : gdpPrivacy(total, 'gaussian', warnings);
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

/** The privacy of a family's noise with the scales and sensitivities of `options`, validated here. */
function accounted(family: IndependentFamily, options: AccountingOptions): Privacy {
  const o = readOptions('options', options, ['scales', 'sensitivity']);
  const lambda = vector('sensitivity', o.sensitivity, PROFILE_ENTRIES);
  const scales =
    typeof o.scales === 'number'
      ? numberIn('scales', o.scales, { min: 0, max: Number.MAX_VALUE })
      : vector('scales', o.scales, SCALE_ENTRIES, { length: lambda.length });
  return independentPrivacy(family, lambda, typeof scales === 'number' ? () => scales : (i) => scales[i]!);
}

/**
 * The privacy (mu-GDP) of independent Gaussian noise with standard deviations `scales`.
 *
 * @example
 * ```ts
 * import { gaussianPrivacy } from 'dpnoise';
 *
 * const p = gaussianPrivacy({ scales: [0.5, 1, 2], sensitivity: [0.1, 0.2, 0.4] });
 * console.log(p.kind, p.mu, p.rho); // 'gdp' 0.3464 = sqrt(3 * 0.2^2), 0.06
 * console.log(p.epsilon(1e-6), p.delta(1)); // 1.510, 0.00032
 * ```
 *
 * @group Accounting
 */
export function gaussianPrivacy(options: AccountingOptions): GdpPrivacy {
  return accounted('gaussian', options) as GdpPrivacy;
}

/**
 * The privacy (pure epsilon-DP) of independent Laplace noise with scales b_i = `scales`.
 *
 * @example
 * ```ts
 * import { laplacePrivacy } from 'dpnoise';
 *
 * const p = laplacePrivacy({ scales: [1, 2], sensitivity: [0.5, 0.5] });
 * console.log(p.kind, p.epsilonPure); // 'pure' 0.75 = 0.5 / 1 + 0.5 / 2, rounded up by an ulp or two
 * ```
 *
 * @group Accounting
 */
export function laplacePrivacy(options: AccountingOptions): PurePrivacy {
  return accounted('laplace', options) as PurePrivacy;
}

/**
 * An item of compose's list: a privacy object, or `{ privacy, times }` for `times` releases with
 * the same privacy (a whole number >= 1).
 *
 * @group Accounting
 */
export type Composable = Privacy | Repeated;

/**
 * `times` releases with the same privacy.
 *
 * @group Accounting
 */
export interface Repeated {
  /** The privacy of one release. */
  privacy: Privacy;
  /** How many releases (a whole number >= 1). */
  times: number;
}

/** One item of compose's list, checked: genuine, with its repetition count. */
function readItem(item: unknown, i: number): { privacy: Privacy; times: number } {
  let privacy: unknown = item;
  let times = 1;
  if (typeof item === 'object' && item !== null && !genuine.has(item) && 'privacy' in item) {
    const o = readOptions(`list[${i}]`, item, ['privacy', 'times']);
    privacy = o.privacy;
    times = o.times === undefined ? 1 : integerIn(`list[${i}].times`, o.times, { min: 1, max: Number.MAX_SAFE_INTEGER });
  }
  if (typeof privacy !== 'object' || privacy === null || !genuine.has(privacy)) {
    const kinded = typeof privacy === 'object' && privacy !== null && 'kind' in privacy;
    throw new TypeError(
      `dpnoise: \`list[${i}]\` must be a privacy object made by dpnoise (gaussianPrivacy, laplacePrivacy, compose or a release's \`privacy\`), or { privacy, times }; got ${
        kinded ? 'an object of that shape that dpnoise did not make (a copy, JSON, or an object from another copy of dpnoise)' : describe(privacy)
      }.`,
    );
  }
  return { privacy: privacy as Privacy, times };
}

/**
 * The privacy of releasing every item of `list`: privacy objects, or `{ privacy, times }` for a
 * release repeated `times` times. Gaussian parts compose exactly (mu = sqrt(sum mu_j^2)); pure
 * parts add their epsilons; a mixture is (epsilonPure + epsilon_G(delta), delta)-DP by basic
 * composition of the pure part with the Gaussian part, a safe rule. With any zCDP part (grid-mode
 * Gaussian noise) everything composes as zCDP: rho adds up, mu-GDP is mu^2/2-zCDP and each pure
 * epsilon-DP part is epsilon^2/2-zCDP (Bun & Steinke 2016), all safe. Only privacy objects made by
 * dpnoise are taken: a copy or a JSON round trip is refused rather than counted as free.
 *
 * @example
 * ```ts
 * import { compose, gaussianPrivacy, laplacePrivacy } from 'dpnoise';
 *
 * const step = gaussianPrivacy({ scales: 4, sensitivity: [1, 1] }); // mu = sqrt(2) / 4
 * const twice = compose([{ privacy: step, times: 2 }]); // mu-GDP, mu = 0.5
 * const count = laplacePrivacy({ scales: 2, sensitivity: [0.5, 0.5] }); // epsilon 0.5
 * const all = compose([twice, count]);
 * console.log(twice.epsilon(1e-6)); // 2.254
 * console.log(all.kind, all.epsilon(1e-6)); // 'approximate' 2.754
 * ```
 *
 * @group Accounting
 */
export function compose(list: readonly Composable[]): Privacy {
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError('dpnoise: `list` must be a non-empty array of privacy objects (from gaussianPrivacy, laplacePrivacy, compose or a release).');
  }
  const items = Array.from(list, readItem);
  const epsilons = new CompensatedSum();
  // zCDP parts, each mu-GDP part as mu^2/2-zCDP and each pure epsilon-DP part as epsilon^2/2-zCDP.
  const rhos = new CompensatedSum();
  const warnings = [...new Set(items.flatMap(({ privacy }) => (privacy.warning ? [privacy.warning] : [])))];
  const mus: number[] = [];
  for (const { privacy: p, times } of items) {
    const mu = 'mu' in p ? p.mu : 0;
    const epsilonPure = 'epsilonPure' in p ? p.epsilonPure : 0;
    const rho = p.kind === 'zcdp' ? p.rho : 0;
    epsilons.add(times * epsilonPure);
    rhos.add(times * rho);
    rhos.add(times * halfSquare(mu));
    rhos.add(times * halfSquare(epsilonPure));
    mus.push(mu * Math.sqrt(times));
  }
  const has = (kinds: readonly string[]) => items.some(({ privacy }) => kinds.includes(privacy.kind));
  if (has(['zcdp'])) return zcdpPrivacy(roundUp(rhos.value), 'composition', warnings);
  // mu = sqrt(sum mu_j^2), formed without underflow for tiny distances.
  const mu = lossNorm(Float64Array.from(mus), () => 1, 2).total;
  const epsilonPure = roundUp(epsilons.value);
  if (!has(['pure', 'approximate'])) return gdpPrivacy(mu, 'composition', warnings);
  if (!has(['gdp', 'approximate'])) return purePrivacy(epsilonPure, 'composition', warnings);
  return approximatePrivacy(mu, epsilonPure, warnings);
}
