// Privacy accounting: what any vector of noise scales guarantees for a sensitivity profile, and
// the composition of several releases. Users need not trust scales computed elsewhere.
//
// Gaussian (docs/accounting.md, "Gaussian privacy"): independent scales sigma_i give the Mahalanobis
// distance mu = sqrt(sum_i (lambda_i / sigma_i)^2) (the box bound), hence the exact profile
// delta(eps; mu), mu-GDP and rho-zCDP with rho = mu^2 / 2. Laplace: epsilon = sum_i lambda_i / b_i.
// Sums are compensated and rounded up, so the reported privacy is never better than the truth.
//
// Every privacy object has one shape (README, "Conventions"): `kind`, the notion its numbers
// certify ('pure', 'gdp', 'zcdp', 'pld' for the accountant's numeric distributions, 'approximate'
// for the best of several conversions); `family`, the noise that gives it; its own numbers
// (epsilonPure, mu, rho); epsilon(delta), delta(epsilon), bounds(delta) (the certified range of
// epsilon), rdp(alpha) and toDpEvent(). Behind each is an event (events.ts): what was released,
// which compose combines and the accountant evaluates. It is frozen, and genuine: compose takes only
// objects this module made. Accounting fails closed: a figure is never NaN, null or negative; an
// overflow means Infinity (no privacy) with a warning.
import { DELTA, GAUSSIAN_EPSILON, PROFILE_ENTRIES } from '../core/domains.js';
import { powerOfTwoBelow, ROUND_UP, roundUp } from '../core/rounding.js';
import { memo } from '../core/memo.js';
import { CompensatedSum } from '../core/summation.js';
import { describe, integerIn, numberIn, readOptions, vector } from '../core/validate.js';
import { log1p } from '../math/log1p.js';
import { wasm } from '../wasm/loader.js';
import { oneCall, type PldAccount, pldAccount, releases } from '../engine/accountant.js';
import { type DpEventJson, readDpEvent, writeDpEvent } from './dp-event.js';
import { discreteGaussianEvents } from '../engine/discrete-gaussian.js';
import { type Event, slackOf } from '../engine/events.js';
import { halfSquare, lossNorm } from '../engine/loss.js';
import { pldSupports } from '../engine/pld.js';
import { coarsened, curveDelta, curveEpsilon, FALLBACK_ORDERS, RDP_ORDERS, rdp, rdpCurve } from '../engine/rdp.js';
import { zcdpDelta, zcdpEpsilon } from './zcdp.js';

/**
 * The noise a privacy object accounts for: a family of noise, its exact discrete version, or a
 * composition of releases.
 *
 * @group Accounting
 */
export type PrivacyFamily =
  | 'gaussian'
  | 'laplace'
  | 'discrete-gaussian'
  | 'discrete-laplace'
  | 'staircase'
  | 'composition'
  | 'subsampled'
  | 'partition-selection'
  | 'exponential';

/**
 * A certified range of epsilon(delta), as `bounds` gives it.
 *
 * @group Accounting
 */
export interface EpsilonRange {
  /** A proven lower bound on the smallest epsilon (0 where none is known). */
  readonly lower: number;
  /** A proven upper bound: what epsilon(delta) reports. */
  readonly upper: number;
}

/** What every privacy object offers. */
interface Curves {
  /** The noise it accounts for. */
  readonly family: PrivacyFamily;
  /** The smallest delta (or a safe upper bound) for which the release is (epsilon, delta)-DP. */
  delta(epsilon: number): number;
  /** The smallest epsilon (or a safe upper bound) for which the release is (epsilon, delta)-DP; delta in [0, 1). */
  epsilon(delta: number): number;
  /**
   * A certified range for epsilon(delta): the true smallest epsilon lies in [lower, upper]. For
   * the accountant's objects (kind 'pld', and 'pure', 'gdp', 'zcdp') upper is at most what
   * epsilon(delta) reports (the range may refine the accountant's grid further); for an
   * 'approximate' object (closed-form routes, compose's method 'rdp') upper is its epsilon(delta)
   * and lower the accountant's, so the range holds the object's own figure. lower is 0 where no
   * lower bound is known.
   */
  bounds(delta: number): EpsilonRange;
  /** An upper bound on its Renyi DP at order alpha > 1 (Infinity where none is known). */
  rdp(alpha: number): number;
  /** This release as dp_accounting's DpEvent, in its JSON form (`to_named_tuple`), to check the accounting in Python. */
  toDpEvent(): DpEventJson;
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
 * (epsilon, delta)-DP from a privacy-loss distribution: the accountant's tight, certified figures
 * for compositions and subsampled releases (docs/accounting.md, "Privacy-loss distributions").
 *
 * @group Accounting
 */
export interface PldPrivacy extends Curves {
  /** The notion: the releases' privacy-loss distribution, accounted numerically. */
  readonly kind: 'pld';
}

/**
 * (epsilon, delta)-DP as the best of several valid conversions (zCDP, basic composition), for
 * compositions the privacy-loss distribution cannot take (parts known only by their rho).
 *
 * @group Accounting
 */
export interface ApproximatePrivacy extends Curves {
  /** The notion: (epsilon, delta)-DP, by the best of the conversions that apply. */
  readonly kind: 'approximate';
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
export type Privacy = GdpPrivacy | PurePrivacy | ZcdpPrivacy | PldPrivacy | ApproximatePrivacy;

/** epsilon(delta), which may stop refining once it is at most `enough` (accountant.ts, PldAccount). */
type Search = (delta: number, enough?: number) => number;
/** Each privacy object's epsilon as a Search. */
const searches = new WeakMap<object, Search>();

/**
 * Whether `privacy` is (epsilon, delta)-DP by its own figures, epsilon(delta) <= epsilon, found
 * with no more of the accountant's refinement than the answer needs: the same yes or no as
 * privacy.epsilon(delta) <= epsilon, for less (the calibrations' searches ask it many times).
 */
export function certifies(privacy: Privacy, epsilon: number, delta: number): boolean {
  return searches.get(privacy)!(delta, epsilon) <= epsilon;
}

/** The privacy objects this module made, each with its event: compose takes these only. */
const genuine = new WeakMap<object, Event>();
/**
 * Each object's event for the lower end of its certified range, where it differs from its event
 * (parameters rounded down instead of up).
 */
const floors = new WeakMap<object, Event>();
const floorOf = (privacy: object) => floors.get(privacy) ?? genuine.get(privacy)!;
/** The accountant of each event the privacy-loss distribution can take, made on first use. */
const accounts = new WeakMap<Event, PldAccount>();

const accountOf = (event: Event): PldAccount => memo(accounts, event, () => pldAccount(event));

/** Freezes a privacy object and records it as genuine, with its event (and the lower range's). */
function issue<T extends Privacy>(privacy: T, event: Event, lower?: Event): T {
  // Each figure is one call of the accountant, with its work budget (accountant.ts, oneCall).
  const { epsilon, delta, bounds } = privacy as T & { epsilon: Search };
  Object.assign(privacy, {
    epsilon: (d: number) => oneCall(() => epsilon(d)),
    delta: (e: number) => oneCall(() => delta(e)),
    bounds: (d: number) => oneCall(() => bounds(d)),
  });
  searches.set(privacy, (d, enough) => oneCall(() => epsilon(d, enough)));
  Object.freeze(privacy);
  genuine.set(privacy, event);
  if (lower) floors.set(privacy, lower);
  return privacy;
}

/**
 * What every privacy object has besides its curves: bounds (from the accountant where it takes the
 * event, never above `epsilon`; `exact` gives a lower end for closed forms; with `ownUpper`, the
 * upper end is `epsilon` itself, for an object that reports another method's figure) and the
 * DpEvent.
 */
function extras(event: Event, epsilon: (delta: number) => number, exact?: (upper: number) => number, floor: Event = event, ownUpper = false) {
  return {
    bounds(delta: number) {
      const upper = epsilon(delta);
      if (exact) return Object.freeze({ lower: Math.min(upper, exact(upper)), upper });
      if (upper === Infinity || upper === 0 || !pldSupports(event)) return Object.freeze({ lower: 0, upper });
      const d = readDelta(delta);
      const range = accountOf(event).bounds(d);
      // The lower end from the event with parameters rounded down, less 2^-40 for parameters (mu,
      // epsilon) that are themselves rounded up by a few ulp.
      // A floor the accountant does not take (a bound with a margin) gives no lower end.
      const lower = (floor === event ? range.lower : pldSupports(floor) ? accountOf(floor).bounds(d).lower : 0) * (1 - 2 ** -40);
      return Object.freeze({ lower: Math.min(lower, upper), upper: ownUpper ? upper : Math.min(range.upper, upper) });
    },
    rdp(alpha: number) {
      return rdp(event, numberIn('alpha', alpha, ALPHA));
    },
    toDpEvent: () => writeDpEvent(event),
  };
}

/** Renyi orders: above 1 (at 1 Renyi divergence is the KL divergence, a different notion). */
const ALPHA = { min: 1, max: 1e6, minOpen: true };

/**
 * The Renyi route checked beside the accountant, which wins near the accountant's error floor: on
 * the 20 FALLBACK_ORDERS, and where epsilon(delta) there beats `rival` (the best of the other
 * routes), also on the orders of RDP_ORDERS between the two fallback orders around the best one,
 * where the optimum lies (1000 subsampled Gaussian steps, multiplier 1, rate 0.01, at delta
 * 1e-10: 3.760 where the 20 orders give 3.777).
 */
function renyiFallback(event: Event) {
  const coarsest = coarsened(event);
  const coarse = rdpRoute(coarsest, FALLBACK_ORDERS);
  const bands = new Map<number, Route>();
  return {
    epsilon: (delta: number, rival: number) => {
      const e = coarse.epsilon(delta);
      if (!(e < rival) || delta === 0) return e;
      const at = FALLBACK_ORDERS.indexOf(curveEpsilon(coarse.curve(), FALLBACK_ORDERS, delta).order);
      const [from, to] = [FALLBACK_ORDERS[at - 1] ?? 1, FALLBACK_ORDERS[at + 1] ?? Infinity];
      const band = memo(bands, at, () =>
        rdpRoute(
          coarsest,
          RDP_ORDERS.filter((a) => a > from && a < to),
        ),
      );
      return Math.min(e, band.epsilon(delta));
    },
    delta: (epsilon: number) => coarse.delta(epsilon),
  };
}

/** The RDP route: the event's RDP curve at `orders` (computed once, when first asked), converted (rdp.ts). */
function rdpRoute(event: Event, orders: readonly number[] = RDP_ORDERS): Route & { curve(): Float64Array } {
  let curve: Float64Array | undefined;
  const curveOf = () => (curve ??= rdpCurve(event, orders));
  return {
    epsilon: (delta) => (delta === 0 ? Infinity : curveEpsilon(curveOf(), orders, delta).epsilon),
    delta: (eps) => curveDelta(curveOf(), orders, eps),
    curve: curveOf,
  };
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

/**
 * gaussianEpsilon's root search stops within 1e-12 relative (docs/accounting.md, "Calibration"):
 * its answer less that is below the exact one. Beyond mu = 1000 the upper figure is the looser
 * tail bound, so no lower end is claimed (0).
 */
const belowGaussianEpsilon = (mu: number) => (upper: number) => (mu <= 1000 ? upper * (1 - 1e-11) : 0);

/** A mu-GDP privacy object (Gaussian noise by default); its event, a Gaussian mechanism at distance mu unless given. */
export function gdpPrivacy(
  mu: number,
  family: PrivacyFamily = 'gaussian',
  warnings: readonly string[] = [],
  event: Event = { type: 'gaussian', mu },
): GdpPrivacy {
  parameter('mu', mu);
  const curves = gaussianCurves(mu);
  return issue(
    { kind: 'gdp', family, mu, rho: halfSquare(mu), ...curves, ...extras(event, curves.epsilon, belowGaussianEpsilon(mu)), ...warningFor([mu], warnings) },
    event,
  );
}

/**
 * A pure epsilon-DP privacy object (Laplace noise by default); its event, randomized response at
 * epsilonPure (the worst pure epsilon-DP pair) unless given.
 */
export function purePrivacy(
  epsilonPure: number,
  family: PrivacyFamily = 'laplace',
  warnings: readonly string[] = [],
  event: Event = { type: 'pure', epsilon: epsilonPure },
  floor: Event = event,
): PurePrivacy {
  parameter('epsilonPure', epsilonPure);
  const curves = pureCurves(epsilonPure);
  // The accountant may certify less than the pure figures, and below its floor (small delta over
  // many releases) the Renyi route may: each curve is the smallest.
  const accounted = epsilonPure < Infinity && pldSupports(event);
  const renyi = accounted ? renyiFallback(event) : undefined;
  const epsilon = (delta: number, enough?: number) => {
    const d = readDelta(delta);
    if (d === 0 || !accounted) return epsilonPure;
    const best = Math.min(epsilonPure, accountOf(event).epsilon(d, enough));
    return Math.min(best, renyi!.epsilon(d, best));
  };
  const delta = (eps: number) => {
    const pure = curves.delta(eps);
    if (pure === 0 || !accounted) return pure;
    const best = Math.min(pure, accountOf(event).delta(eps));
    return Math.min(best, renyi!.delta(eps));
  };
  return issue(
    { kind: 'pure', family, epsilonPure, delta, epsilon, ...extras(event, epsilon, undefined, floor), ...warningFor([epsilonPure], warnings) },
    event,
    floor,
  );
}

/**
 * A rho-zCDP privacy object (grid mode's discrete Gaussian noise by default); its event, rho-zCDP
 * unless given. With `tighter` (a release close to a Gaussian, docs/accounting.md, "Discrete
 * Gaussian"), each curve is the smaller of the zCDP conversion and that route.
 */
export function zcdpPrivacy(
  rho: number,
  family: PrivacyFamily = 'discrete-gaussian',
  warnings: readonly string[] = [],
  event: Event = { type: 'zcdp', rho },
  floor: Event = event,
  tighter?: Route,
): ZcdpPrivacy {
  parameter('rho', rho);
  const epsilon = (delta: number) => {
    const d = readDelta(delta);
    if (rho === 0) return 0;
    const converted = rho === Infinity || d === 0 ? Infinity : roundUp(zcdpEpsilon(rho, d));
    return tighter ? Math.min(converted, tighter.epsilon(d)) : converted;
  };
  const delta = (eps: number) => {
    const converted = rho === Infinity ? 1 : zcdpDelta(rho, readEpsilon(eps));
    return tighter ? Math.min(converted, tighter.delta(eps)) : converted;
  };
  return issue({ kind: 'zcdp', family, rho, delta, epsilon, ...extras(event, epsilon, undefined, floor), ...warningFor([rho], warnings) }, event, floor);
}

/**
 * The curves of a release whose laws are within e^(+-slack) of a post-processing of Gaussian
 * noise at distance mu (docs/accounting.md, "Discrete Gaussian"): epsilon(delta e^-slack) + 2 slack
 * and e^slack delta(epsilon - 2 slack) of the Gaussian curve (slack <= 2^-60, so e^slack is within
 * the round-up). Below 0 the Gaussian delta grows by at most the step: delta(-x) <= delta(0) + x.
 */
function closeGaussianRoute(mu: number, slack: number): Route {
  const gaussian = gaussianCurves(mu);
  return {
    epsilon(delta) {
      const shrunk = delta * (1 - ROUND_UP);
      if (delta > 0 && shrunk < DELTA.min) return Infinity;
      return roundUp(gaussian.epsilon(shrunk) + 2 * slack);
    },
    delta(epsilon) {
      const eps = readEpsilon(epsilon);
      const shifted = eps - 2 * slack - ROUND_UP * eps;
      return Math.min(1, roundUp(shifted >= 0 ? gaussian.delta(shifted) : gaussian.delta(0) - shifted));
    },
  };
}

/** The Gaussian distance of a tree of Gaussian and 'close' Gaussian events (sqrt(sum times mu^2), rounded up), if it is one. */
function gaussianDistanceOf(event: Event): number | undefined {
  if (event.type === 'gaussian') return event.mu;
  if (event.type === 'close') return gaussianDistanceOf(event.event);
  if (event.type !== 'composed') return undefined;
  const mus: number[] = [];
  for (const [child, times] of event.events) {
    const mu = gaussianDistanceOf(child);
    if (mu === undefined) return undefined;
    mus.push(mu * Math.sqrt(times));
  }
  return lossNorm(Float64Array.from(mus), () => 1, 2).total;
}

/**
 * The accountant's privacy for an event it takes (pldSupports), with the routes `also` and the
 * Renyi route when they give less (at a delta below the accountant's own rounding bound, which
 * grows with the number of releases, the Renyi route stays finite).
 */
function pldPrivacy(event: Event, family: PrivacyFamily, warnings: readonly string[], routes: Route[] = [], floor: Event = event): PldPrivacy {
  const account = accountOf(event);
  const renyi = renyiFallback(event);
  const epsilon = (delta: number, enough?: number) => {
    const d = readDelta(delta);
    const best = Math.min(d === 0 ? Infinity : account.epsilon(d, enough), ...routes.map((route) => route.epsilon(d)));
    return Math.min(best, renyi.epsilon(d, best));
  };
  const delta = (eps: number) => {
    const e = readEpsilon(eps);
    const best = Math.min(account.delta(e), ...routes.map((route) => route.delta(e)));
    return Math.min(best, renyi.delta(e));
  };
  return issue({ kind: 'pld', family, epsilon, delta, ...extras(event, epsilon, undefined, floor), ...warningFor([], warnings) }, event, floor);
}

/**
 * Basic composition of any parts (Dwork & Roth 2014): with delta split evenly over the n releases,
 * the epsilons add up. delta(epsilon) is found by bisection on log delta (30 steps), keeping the
 * side that meets epsilon.
 */
function basicRoute(items: ReadonlyArray<{ privacy: Privacy; times: number }>): Route {
  const n = items.reduce((sum, { times }) => sum + times, 0);
  const epsilon = (delta: number) => {
    const share = delta / n;
    if (delta > 0 && !(share >= DELTA.min)) return Infinity; // a share below the smallest delta taken: the route does not apply
    return roundUp(items.reduce((sum, { privacy, times }) => sum + times * privacy.epsilon(share), 0));
  };
  return {
    epsilon,
    delta(eps) {
      if (epsilon(0.999999) > eps) return 1;
      let lo = -690; // log delta: e^-690 is above the smallest delta accepted, 1e-300
      let hi = -1.0000005000003334e-6; // ln(0.999999), written out: an engine's Math.log may differ in the last bit
      const exp = wasm().exp;
      if (epsilon(exp(lo)) <= eps) return exp(lo);
      for (let k = 0; k < 30; k++) {
        const mid = 0.5 * (lo + hi);
        if (epsilon(exp(mid)) <= eps) hi = mid;
        else lo = mid;
      }
      return exp(hi);
    },
  };
}

/** A valid conversion to (epsilon, delta): compose reports the best of those that apply. */
interface Route {
  epsilon(delta: number): number;
  delta(epsilon: number): number;
}

const routeOf = (curves: Pick<Curves, 'delta' | 'epsilon'>): Route => ({ epsilon: curves.epsilon, delta: curves.delta });

/** The best of several routes, for compositions the accountant cannot take. */
function approximatePrivacy(
  event: Event,
  routes: Route[],
  warnings: readonly string[],
  floor: Event = event,
  family: PrivacyFamily = 'composition',
): ApproximatePrivacy {
  const epsilon = (delta: number) => {
    const d = readDelta(delta);
    return Math.min(...routes.map((route) => route.epsilon(d)));
  };
  const delta = (eps: number) => {
    const e = readEpsilon(eps);
    return Math.min(...routes.map((route) => route.delta(e)));
  };
  // Its own figures' range: the accountant's lower end, and its own epsilon as the upper one, so
  // that the range holds the estimate (the accountant's upper end may be below a route's figure).
  return issue({ kind: 'approximate', family, epsilon, delta, ...extras(event, epsilon, undefined, floor, true), ...warningFor([], warnings) }, event, floor);
}

/** Noise families whose independent noise this module accounts for directly. */
type IndependentFamily = 'gaussian' | 'laplace';

/**
 * The privacy of independent noise of `family` with these scales, for arrays already validated:
 * mu-GDP (Gaussian) or pure epsilon-DP (Laplace); with `discrete`, the exact discrete noise of grid
 * mode in grid steps (lambda and scales in steps): rho-zCDP with rho = sum (lambda_i / sigma_i)^2 / 2
 * for the discrete Gaussian (Canonne, Kamath & Steinke 2020) with the curves of the Gaussians around
 * it, pure epsilon-DP for the discrete Laplace with the curves of its pairs. `grouped`: the
 * sensitivities bound groups of coordinates, or are bounds with a margin (in steps, not attained):
 * no discrete Laplace pairs then, and no lower end of the range for the discrete Gaussian.
 */
export function independentPrivacy(
  family: IndependentFamily,
  lambda: Float64Array,
  scaleAt: (i: number) => number,
  discrete = false,
  grouped = false,
): Privacy {
  const { total, exactAt } = lossNorm(lambda, scaleAt, family === 'gaussian' ? 2 : 1);
  const warnings =
    exactAt === undefined ? [] : [`no privacy: coordinate ${exactAt} has sensitivity ${lambda[exactAt]} and scale 0, so it is released exactly.`];
  if (family === 'laplace') {
    // The coordinates' pairs composed, so that a long profile is tight for delta > 0.
    if (!(total < Infinity)) return purePrivacy(total, discrete ? 'discrete-laplace' : 'laplace', warnings);
    if (!discrete) {
      const events = laplaceEvents(lambda, scaleAt);
      return purePrivacy(total, 'laplace', warnings, events.upper, events.lower);
    }
    return purePrivacy(total, 'discrete-laplace', warnings, grouped ? undefined : discreteLaplaceEvent(lambda, scaleAt));
  }
  if (!discrete) return gdpPrivacy(total, 'gaussian', warnings);
  // rho-zCDP (Canonne, Kamath & Steinke 2020), and the continuous Gaussians around the noise.
  const rho = halfSquare(total);
  const zcdp: Event = { type: 'zcdp', rho };
  const near = total > 0 && total < Infinity ? discreteGaussianEvents(lambda, scaleAt, zcdp) : undefined;
  if (!near) return zcdpPrivacy(rho, 'discrete-gaussian', warnings);
  // The lower event holds where the sensitivities are attained; otherwise no lower end (zCDP's).
  return zcdpPrivacy(rho, 'discrete-gaussian', warnings, near.upper, grouped ? zcdp : near.lower, closeGaussianRoute(near.mu, near.slack));
}

/** Distinct epsilons up to which a Laplace profile's coordinates are grouped exactly. */
const EXACT_GROUPS = 256;
/** Mantissa bits kept when more are grouped: each epsilon moved by at most 2^-10 relative. */
const BUCKET_BITS = 10;

/**
 * Independent Laplace coordinates with epsilons lambda_i / b_i, as events for the accountant: equal
 * epsilons composed together, each rounded up (`upper`, for the figures) and down (`lower`, for
 * the lower end of the certified range) past the division's rounding. With more than 256 distinct
 * epsilons they are first rounded to 10 significant bits (up, and down), so a profile of any
 * length is a few hundred compositions at most.
 */
function laplaceEvents(lambda: Float64Array, scaleAt: (i: number) => number): { upper: Event; lower: Event } {
  const ratios = (key: (r: number) => number, limit: number) => {
    const counts = new Map<number, number>();
    for (let i = 0; i < lambda.length && counts.size <= limit; i++) {
      if (lambda[i] === 0) continue;
      const r = lambda[i]! / scaleAt(i) || Number.MIN_VALUE; // a ratio that underflows is still a loss
      counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
    }
    return counts;
  };
  const grouped = (counts: Map<number, number>, move: (r: number) => number): Event => ({
    type: 'composed',
    events: [...counts].map(([r, times]) => [{ type: 'laplace', epsilon: move(r) }, times] as const),
  });
  const exact = ratios((r) => r, EXACT_GROUPS);
  if (exact.size <= EXACT_GROUPS) return { upper: grouped(exact, (r) => r * (1 + 2 ** -52)), lower: grouped(exact, (r) => r * (1 - 2 ** -52)) };
  const unit = (r: number) => powerOfTwoBelow(r) * 2 ** -BUCKET_BITS; // a power of two: r / unit is exact
  const upper = ratios((r) => Math.ceil(r / unit(r)) * unit(r), Number.POSITIVE_INFINITY);
  const lower = ratios((r) => Math.floor(r / unit(r)) * unit(r), Number.POSITIVE_INFINITY);
  return { upper: grouped(upper, (r) => r * (1 + 2 ** -52)), lower: grouped(lower, (r) => r * (1 - 2 ** -52)) };
}

/** Distinct discrete Laplace pairs up to which a profile is accounted pair by pair. */
const DISCRETE_GROUPS = 256;

/**
 * Independent discrete Laplace coordinates (sensitivities d_i and scales t_i in grid steps, exactly
 * the noise drawn) as one event: equal pairs composed together. Undefined, so that randomized
 * response at the total accounts for them (it dominates every pair), for more than 256 distinct
 * pairs, or a sensitivity that is not a whole number of steps (a group's, which has no single pair).
 */
function discreteLaplaceEvent(lambda: Float64Array, scaleAt: (i: number) => number): Event | undefined {
  const counts = new Map<number, Map<number, number>>(); // sensitivity -> scale -> coordinates
  let distinct = 0;
  for (let i = 0; i < lambda.length; i++) {
    const d = lambda[i]!;
    if (d === 0) continue;
    if (!Number.isInteger(d)) return undefined;
    const t = scaleAt(i);
    const scales = memo(counts, d, () => new Map<number, number>());
    if (!scales.has(t) && ++distinct > DISCRETE_GROUPS) return undefined;
    scales.set(t, (scales.get(t) ?? 0) + 1);
  }
  const events = [...counts].flatMap(([d, scales]) =>
    [...scales].map(([t, times]) => [{ type: 'discrete-laplace', scale: t, sensitivity: d }, times] as const),
  );
  return { type: 'composed', events };
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
export type Composable = Privacy | Repeated | FromDpEvent;

/**
 * A release described by dp_accounting's DpEvent in JSON (its `to_named_tuple()` form), `times`
 * times: Gaussian, Laplace, discrete Laplace, discrete Gaussian, Poisson-sampled,
 * sampled-without-replacement, random-allocation, self-composed and composed events.
 *
 * @group Accounting
 */
export interface FromDpEvent {
  /** The DpEvent, as JSON. */
  event: DpEventJson;
  /** How many releases (a whole number >= 1). */
  times?: number;
}

/**
 * Options of compose: `method` 'pld' (the default: the privacy-loss distribution where it
 * applies, else the best closed-form route) or 'rdp' (Renyi DP only, as Opacus and dp_accounting's
 * RDP accountant report).
 *
 * @group Accounting
 */
export interface ComposeOptions {
  /** 'pld' (the default) or 'rdp'. */
  method?: 'pld' | 'rdp';
}

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

/** The pure epsilon of an event made only of pure releases composed (Laplace, discrete Laplace), or undefined. */
function pureTotal(event: Event): number | undefined {
  switch (event.type) {
    case 'laplace':
    case 'pure':
      return event.epsilon;
    case 'poisson': {
      // Pure epsilon-DP stays pure under Poisson sampling: ln(1 + q (e^epsilon - 1)) (Balle, Barthe & Gaboardi 2018).
      const inner = pureTotal(event.event);
      return inner === undefined ? undefined : roundUp(log1p(event.rate * wasm().expm1(inner)));
    }
    case 'discrete-laplace':
      return event.sensitivity / event.scale;
    case 'composed': {
      let total = 0;
      for (const [child, times] of event.events) {
        const e = times === 0 ? 0 : pureTotal(child);
        if (e === undefined) return undefined;
        total += times * e;
      }
      return total;
    }
    default:
      return undefined;
  }
}

/** The privacy of an event read from a DpEvent: by the privacy-loss distribution where it applies, else by the Renyi route. */
function eventPrivacy(given: Event): Privacy {
  const event = withRatesMultiplied(given);
  if (releases(event) === 0) return purePrivacy(0, 'composition', [], event); // no release: no loss
  if (event.type === 'gaussian') return gdpPrivacy(event.mu, 'gaussian', [], event);
  if (event.type === 'laplace') return purePrivacy(event.epsilon, 'laplace', [], event);
  const sampled = event.type === 'poisson' || event.type === 'without-replacement' || event.type === 'allocation';
  const family = sampled ? 'subsampled' : 'composition';
  const epsilonPure = pureTotal(event);
  if (epsilonPure !== undefined) return purePrivacy(roundUp(epsilonPure), family, [], event);
  // A sampled or allocated release is never less private than the release itself: the
  // hockey-stick divergence is jointly convex, and the record is in it or not.
  const dominating = sampled ? [routeOf(eventPrivacy(event.event))] : [];
  if (pldSupports(event)) return pldPrivacy(event, family, [], dominating);
  return approximatePrivacy(event, [rdpRoute(event), ...dominating], [], event, family);
}

/**
 * Poisson sampling at rate q of Poisson sampling at rate r is Poisson sampling at q r (each record
 * kept independently with probability q r), rounded up; applied at every level.
 */
function withRatesMultiplied(event: Event): Event {
  if (event.type !== 'poisson' || event.event.type !== 'poisson') return event;
  return withRatesMultiplied({ type: 'poisson', rate: Math.min(1, roundUp(event.rate * event.event.rate)), event: event.event.event });
}

/** The partition selections made here: the privacy of their releases on the keys both neighbours have, and their delta. */
const thresholds = new WeakMap<object, { inner: Privacy; beta: number }>();

/**
 * The privacy of a release with partition selection (docs/aggregates.md, "Partition selection"):
 * `inner`'s on the keys both neighbours have, and keys only the larger neighbour has released
 * with probability at most beta. With lambda = beta / (1 - beta) (at least -ln(1 - beta)), it is
 * (epsilon, delta)-DP for delta = max(inner.delta(epsilon) + beta, inner.delta(epsilon - lambda)),
 * where inner.delta(-x) <= inner.delta(0) + x.
 */
export function thresholdedPrivacy(inner: Privacy, beta: number): ApproximatePrivacy {
  const event: Event = { type: 'thresholded', delta: beta, event: genuine.get(inner)! };
  const lambda = roundUp(beta / (1 - beta));
  const delta = (eps: number) => {
    const e = readEpsilon(eps);
    const shifted = e >= lambda ? inner.delta(e - lambda) : roundUp(inner.delta(0) + (lambda - e));
    return Math.min(1, Math.max(roundUp(inner.delta(e) + beta), shifted));
  };
  const epsilon = (d: number) => {
    const target = readDelta(d);
    if (!(target - beta >= DELTA.min)) return Infinity;
    return Math.max(inner.epsilon(target - beta), roundUp(inner.epsilon(target) + lambda));
  };
  const privacy = issue(
    { kind: 'approximate', family: 'partition-selection', epsilon, delta, ...extras(event, epsilon), ...warningFor([], inner.warning ? [inner.warning] : []) },
    event,
  );
  thresholds.set(privacy, { inner, beta });
  return privacy;
}

/** The event of a privacy object dpnoise made (for a budget's record), or undefined for anything else. */
export function eventOf(privacy: unknown): Event | undefined {
  return typeof privacy === 'object' && privacy !== null ? genuine.get(privacy) : undefined;
}

/**
 * The privacy object of one release's event (a budget's record), of the kind the release itself
 * reported: a 'close' event of grid-mode Gaussian noise is rho-zCDP with the Gaussian route, a
 * Gaussian mu-GDP, pure epsilon pure, a composition composed again from its parts rebuilt; any
 * other event as compose reads a DpEvent.
 */
export function privacyOfEvent(event: Event): Privacy {
  switch (event.type) {
    case 'gaussian':
      return gdpPrivacy(event.mu, 'gaussian', [], event);
    case 'pure':
      return purePrivacy(event.epsilon, 'laplace', [], event);
    case 'zcdp':
      return zcdpPrivacy(event.rho, 'discrete-gaussian', [], event);
    case 'thresholded':
      return thresholdedPrivacy(privacyOfEvent(event.event), event.delta);
    case 'composed':
      // As compose made it: its parts rebuilt as their kinds, composed again.
      if (event.events.length === 0) return eventPrivacy(event);
      return composeItems(
        event.events.map(([child, times]) => ({ privacy: privacyOfEvent(child), times })),
        'pld',
      );
    case 'close': {
      const mu = gaussianDistanceOf(event);
      if (mu !== undefined && event.fallback.type === 'zcdp') {
        return zcdpPrivacy(event.fallback.rho, 'discrete-gaussian', [], event, event.fallback, closeGaussianRoute(mu, event.slack));
      }
      return eventPrivacy(event);
    }
    default:
      return eventPrivacy(event);
  }
}

/** One item of compose's list, checked: genuine, with its repetition count. */
function readItem(item: unknown, i: number): { privacy: Privacy; times: number } {
  let privacy: unknown = item;
  let times = 1;
  if (typeof item === 'object' && item !== null && !genuine.has(item) && (Object.hasOwn(item, 'privacy') || Object.hasOwn(item, 'event'))) {
    const fromJson = Object.hasOwn(item, 'event');
    const o = readOptions(`list[${i}]`, item, fromJson ? ['event', 'times'] : ['privacy', 'times']);
    privacy = fromJson ? eventPrivacy(readDpEvent(o.event, `list[${i}].event`)) : o.privacy;
    times = o.times === undefined ? 1 : integerIn(`list[${i}].times`, o.times, { min: 1, max: Number.MAX_SAFE_INTEGER });
  }
  if (typeof privacy !== 'object' || privacy === null || !genuine.has(privacy)) {
    const kinded = typeof privacy === 'object' && privacy !== null && 'kind' in privacy;
    throw new TypeError(
      `dpnoise: \`list[${i}]\` must be a privacy object made by dpnoise (gaussianPrivacy, laplacePrivacy, compose or a release's \`privacy\`), { privacy, times } or { event, times } with a DpEvent as JSON; got ${
        kinded ? 'an object of that shape that dpnoise did not make (a copy, JSON, or an object from another copy of dpnoise)' : describe(privacy)
      }.`,
    );
  }
  return { privacy: privacy as Privacy, times };
}

/**
 * The privacy of releasing every item of `list`: privacy objects, or `{ privacy, times }` for a
 * release repeated `times` times. Gaussian parts compose exactly (mu = sqrt(sum mu_j^2)); pure
 * parts add their epsilons (and, for delta > 0, may be certified lower). Mixtures of Gaussian,
 * Laplace and subsampled releases go to the accountant: their privacy-loss distribution,
 * composed numerically, with a certified range (`bounds`) and never above the closed-form routes
 * (docs/accounting.md, "Privacy-loss distributions"). With any zCDP part (grid-mode Gaussian
 * noise) the closed-form conversions are used: rho adds up, mu-GDP is mu^2/2-zCDP and each pure
 * epsilon-DP part is epsilon^2/2-zCDP (Bun & Steinke 2016), and a Renyi route; the smallest is
 * reported. Only privacy objects made by dpnoise are taken: a copy or a JSON round trip is refused
 * rather than counted as free.
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
 * console.log(all.kind, all.epsilon(1e-6)); // 'pld' 2.613 (basic composition would say 2.754)
 * console.log(all.bounds(1e-6)); // { lower: 2.6131, upper: 2.6133 }
 * ```
 *
 * @group Accounting
 */
export function compose(list: readonly Composable[], options: ComposeOptions = {}): Privacy {
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError('dpnoise: `list` must be a non-empty array of privacy objects (from gaussianPrivacy, laplacePrivacy, compose or a release).');
  }
  const { method = 'pld' } = readOptions('options', options, ['method']);
  if (method !== 'pld' && method !== 'rdp') throw new TypeError(`dpnoise: \`method\` must be 'pld' or 'rdp'; got ${describe(method)}.`);
  const items = Array.from(list, readItem);
  const nesting = 1 + Math.max(...items.map(({ privacy }) => depths.get(privacy) ?? 0));
  if (nesting > MAX_NESTING) {
    throw new RangeError(`dpnoise: compositions nest more than ${MAX_NESTING} deep; compose the releases in one list (with { privacy, times }) instead.`);
  }
  const result = composeItems(items, method);
  depths.set(result, nesting);
  return result;
}

/** How deep compositions may nest: the accountant walks event trees recursively. */
const MAX_NESTING = 1000;
/** The nesting depth of each composition compose made. */
const depths = new WeakMap<object, number>();

/** compose for items already read. */
function composeItems(items: ReadonlyArray<{ privacy: Privacy; times: number }>, method: 'pld' | 'rdp'): Privacy {
  // Partition selections: their releases compose as usual and their deltas add up (their rare
  // outputs, under the larger neighbour, are the union of theirs).
  if (items.some(({ privacy }) => thresholds.has(privacy))) {
    let beta = 0;
    const inner = items.map(({ privacy, times }) => {
      const t = thresholds.get(privacy);
      if (t) beta += times * t.beta;
      return { privacy: t ? t.inner : privacy, times };
    });
    return thresholdedPrivacy(composeItems(inner, method), roundUp(beta));
  }
  const warnings = [...new Set(items.flatMap(({ privacy }) => (privacy.warning ? [privacy.warning] : [])))];
  const event: Event = { type: 'composed', events: items.map(({ privacy, times }) => [genuine.get(privacy)!, times] as const) };
  const floor: Event = { type: 'composed', events: items.map(({ privacy, times }) => [floorOf(privacy), times] as const) };
  const kinds = new Set(items.map(({ privacy }) => privacy.kind));
  const only = (...allowed: string[]) => [...kinds].every((k) => allowed.includes(k));
  if (method === 'rdp') return approximatePrivacy(event, [rdpRoute(event)], warnings);
  // Gaussian parts compose exactly: mu = sqrt(sum mu_j^2), formed without underflow for tiny distances.
  const mus = Float64Array.from(items, ({ privacy, times }) => (privacy.kind === 'gdp' ? privacy.mu * Math.sqrt(times) : 0));
  const mu = lossNorm(mus, () => 1, 2).total;
  if (only('gdp')) return gdpPrivacy(mu, 'composition', warnings, event);
  // zCDP: rho adds up; a mu-GDP part is mu^2/2-zCDP and a pure epsilon-DP part epsilon^2/2-zCDP (Bun & Steinke 2016).
  const rhos = new CompensatedSum();
  const epsilons = new CompensatedSum();
  for (const { privacy: p, times } of items) {
    if (p.kind === 'zcdp') rhos.add(times * p.rho);
    if (p.kind === 'gdp') rhos.add(times * halfSquare(p.mu));
    if (p.kind === 'pure') {
      rhos.add(times * halfSquare(p.epsilonPure));
      epsilons.add(times * p.epsilonPure);
    }
  }
  const rho = roundUp(rhos.value);
  if (only('gdp', 'zcdp')) {
    // Grid-mode Gaussian parts are close to Gaussians: then the whole is, with the slacks added.
    const near = gaussianDistanceOf(event);
    return zcdpPrivacy(rho, 'composition', warnings, event, floor, near === undefined ? undefined : closeGaussianRoute(near, slackOf(event)));
  }
  if (only('pure')) return purePrivacy(roundUp(epsilons.value), 'composition', warnings, event, floor);
  // The valid routes that apply to parts known in closed form: zCDP as above, and basic composition
  // of the pure parts with the exact Gaussian curve of the Gaussian parts.
  const routes: Route[] = [];
  if (only('gdp', 'zcdp', 'pure')) {
    const asZcdp = zcdpPrivacy(rho, 'composition');
    routes.push({ epsilon: asZcdp.epsilon, delta: asZcdp.delta });
  }
  if (only('gdp', 'pure')) {
    const epsilonPure = roundUp(epsilons.value);
    const gaussian = gaussianCurves(mu);
    routes.push({
      epsilon: (delta) => (mu === 0 ? epsilonPure : roundUp(epsilonPure + gaussian.epsilon(delta))),
      delta: (eps) => (eps < epsilonPure ? 1 : gaussian.delta(eps - epsilonPure)),
    });
  }
  // One release composed once is that release: its own curves (with the routes it has, such as a
  // sampled release's dominating one) stand.
  if (items.length === 1 && items[0]!.times === 1) routes.push(routeOf(items[0]!.privacy));
  if (pldSupports(event)) return pldPrivacy(event, 'composition', warnings, routes, floor);
  routes.push(basicRoute(items), rdpRoute(event));
  return approximatePrivacy(event, routes, warnings, floor);
}

/**
 * How a batch is drawn for `subsample`: Poisson sampling at `rate` (each record in the batch
 * independently, add/remove neighbours), or a fixed `size` drawn without replacement from
 * `population` records (replace-one neighbours).
 *
 * @group Accounting
 */
export type Sampling = PoissonSampling | FixedSizeSampling;

/**
 * Poisson batches: each record in the batch independently with probability `rate` (add/remove neighbours).
 *
 * @group Accounting
 */
export interface PoissonSampling {
  /** The probability that a record is in a batch, in (0, 1]. */
  rate: number;
  /** Not with `rate`. */
  size?: undefined;
  /** Not with `rate`. */
  population?: undefined;
}

/**
 * Fixed-size batches drawn without replacement (replace-one neighbours).
 *
 * @group Accounting
 */
export interface FixedSizeSampling {
  /** The number of records in a batch. */
  size: number;
  /** The number of records the batch is drawn from. */
  population: number;
  /** Not with `size`. */
  rate?: undefined;
}

const SAMPLING_OPTIONS = ['rate', 'size', 'population', 'sampling'] as const;

/**
 * The privacy of a release made on a random batch of the data instead of all of it: privacy
 * amplification by subsampling. With `rate`, Poisson sampling (each record in with probability
 * rate; add/remove neighbours; the accountant's privacy-loss distribution of the subsampled pair,
 * in both directions, for Gaussian, Laplace and pure releases, and the Renyi route for grid-mode
 * ones; a pure release stays pure at ln(1 + rate (e^epsilon - 1)); rate 1 is the release itself).
 * With `size` and `population`, a fixed-size batch drawn without replacement (replace-one
 * neighbours; the Renyi route of Wang, Balle & Kasiviswanathan 2019): `privacy` must then hold
 * for replacing one record, which for a sum of clipped records means twice the clipping bound.
 * Batches of shuffled epochs (each record once per epoch) have no tight accountant: they are
 * refused rather than accounted as Poisson.
 *
 * @example
 * ```ts
 * import { compose, gaussianPrivacy, subsample } from 'dpnoise';
 *
 * // One DP-SGD step: noise multiplier 1.1 (mu = 1/1.1), 1% Poisson batches, 10000 steps.
 * const step = subsample(gaussianPrivacy({ scales: 1.1, sensitivity: [1] }), { rate: 0.01 });
 * const run = compose([{ privacy: step, times: 10000 }]);
 * console.log(run.epsilon(1e-5)); // about 5.19
 * console.log(run.bounds(1e-5)); // the certified range, within 1%
 * ```
 *
 * @group Accounting
 */
export function subsample(privacy: Privacy, options: Sampling): Privacy {
  const o = readOptions('options', options, SAMPLING_OPTIONS);
  if (o.sampling !== undefined) {
    throw new TypeError(
      `dpnoise: \`sampling\` ${describe(o.sampling)} is not an option: give \`rate\` for Poisson batches, or \`size\` and \`population\` for batches drawn without replacement. Shuffled epochs (each record once per epoch) have no tight accountant; dpnoise refuses to account them as Poisson, which they are not.`,
    );
  }
  const event = genuine.get(privacy as object);
  if (event === undefined) throw new TypeError(`dpnoise: \`privacy\` must be a privacy object made by dpnoise; got ${describe(privacy)}.`);
  const base = amplifiable(privacy, event);
  const warnings = privacy.warning ? [privacy.warning] : [];
  if (o.rate !== undefined) {
    if (o.size !== undefined || o.population !== undefined)
      throw new TypeError('dpnoise: give `rate` (Poisson batches) or `size` and `population` (without replacement), not both.');
    const rate = numberIn('rate', o.rate, { min: 0, max: 1, minOpen: true });
    if (rate === 1) return privacy; // every record in every batch: no amplification
    const sampled: Event = { type: 'poisson', rate, event: base };
    // The lower end of a 'close' release comes from its lower event.
    const floor: Event = base.type === 'close' ? { type: 'poisson', rate, event: floorOf(privacy) } : sampled;
    // Pure epsilon-DP stays pure: ln(1 + q (e^epsilon - 1)) (Balle, Barthe & Gaboardi 2018).
    const pure = privacy.kind === 'pure' ? [routeOf(pureCurves(roundUp(log1p(rate * wasm().expm1(privacy.epsilonPure)))))] : [];
    // Never less private than the release itself (joint convexity: the record is in the batch or not).
    const routes = [...pure, routeOf(privacy)];
    if (pldSupports(sampled)) return pldPrivacy(sampled, 'subsampled', warnings, routes, floor);
    return approximatePrivacy(sampled, [rdpRoute(sampled), ...routes], warnings, sampled, 'subsampled');
  }
  const population = integerIn('population', o.population, { min: 1, max: Number.MAX_SAFE_INTEGER });
  const size = integerIn('size', o.size, { min: 1, max: population });
  const sampled: Event = { type: 'without-replacement', size, population, event: base };
  return approximatePrivacy(sampled, [rdpRoute(sampled), routeOf(privacy)], warnings, sampled, 'subsampled');
}

/**
 * How records are allocated to steps for `randomAllocation`.
 *
 * @group Accounting
 */
export interface AllocationOptions {
  /** The number of steps (releases); each record takes part in exactly one of them. */
  steps: number;
}

/**
 * The privacy of `steps` releases of `privacy` in which each record takes part in exactly one,
 * chosen uniformly at random and independently of the other records: random allocation, or
 * "balls in bins" (Feldman & Shenfeld 2025), as in an epoch of DP-SGD whose batches are drawn by
 * giving each example a random step. Add/remove neighbours. The accountant's privacy-loss
 * distribution of the whole allocation, in both directions (docs/accounting.md, "Random
 * allocation"), for Gaussian releases (kind 'gdp'); compose the result for several epochs. It is
 * not the privacy of shuffled batches of a fixed size, which have no tight accountant.
 *
 * @example
 * ```ts
 * import { compose, gaussianPrivacy, randomAllocation } from 'dpnoise';
 *
 * // Noise multiplier 2, each example in one of 10 steps per epoch, 3 epochs.
 * const epoch = randomAllocation(gaussianPrivacy({ scales: 2, sensitivity: [1] }), { steps: 10 });
 * const run = compose([{ privacy: epoch, times: 3 }]);
 * console.log(run.epsilon(1e-5));
 * ```
 *
 * @group Accounting
 */
export function randomAllocation(privacy: Privacy, options: AllocationOptions): Privacy {
  const o = readOptions('options', options, ['steps'] as const);
  const event = genuine.get(privacy as object);
  if (event === undefined) throw new TypeError(`dpnoise: \`privacy\` must be a privacy object made by dpnoise; got ${describe(privacy)}.`);
  if (privacy.kind !== 'gdp') {
    throw new TypeError(
      `dpnoise: \`privacy\` must be the privacy of a Gaussian release (kind 'gdp') for random allocation; got kind '${privacy.kind}'. Random allocation of other releases is not accounted for yet.`,
    );
  }
  const steps = integerIn('steps', o.steps, { min: 1, max: Number.MAX_SAFE_INTEGER });
  if (steps === 1) return privacy; // the record is in the one step
  const allocated: Event = { type: 'allocation', steps, event: { type: 'gaussian', mu: privacy.mu } };
  const warnings = privacy.warning ? [privacy.warning] : [];
  // Never less private than one release: the hockey-stick divergence is jointly convex, and each
  // step the record may be in is that release.
  const release = routeOf(privacy);
  if (pldSupports(allocated)) return pldPrivacy(allocated, 'subsampled', warnings, [release]);
  return approximatePrivacy(allocated, [rdpRoute(allocated), release], warnings, allocated, 'subsampled');
}

/** The pair of one Laplace or discrete Laplace coordinate (laplaceEvents' or discreteLaplaceEvent's single pair), if the event is one. */
function oneLaplacePair(event: Event): Event | undefined {
  const single = event.type === 'composed' && event.events.length === 1 && event.events[0]![1] === 1 ? event.events[0]![0] : event;
  return single.type === 'laplace' || single.type === 'discrete-laplace' ? single : undefined;
}

/** The event to subsample: one mechanism applied to the batch (a Gaussian release at its distance, a pure one as randomized response). */
function amplifiable(privacy: Privacy, event: Event): Event {
  switch (privacy.kind) {
    case 'gdp':
      return { type: 'gaussian', mu: privacy.mu };
    case 'pure':
      // One Laplace or discrete Laplace coordinate is its own pair; several are dominated by
      // randomized response at the total (their product pair is not one pair).
      return oneLaplacePair(event) ?? { type: 'pure', epsilon: privacy.epsilonPure };
    case 'zcdp':
      // Grid-mode Gaussian noise is close to a Gaussian (its 'close' event); otherwise its rho.
      return event.type === 'close' ? event : { type: 'zcdp', rho: privacy.rho };
    default:
      throw new TypeError(
        `dpnoise: \`privacy\` must be the privacy of one release (kind 'gdp', 'pure' or 'zcdp') to subsample; got a ${privacy.kind} composition: subsample each release, then compose.`,
      );
  }
}
