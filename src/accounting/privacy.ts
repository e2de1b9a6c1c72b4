// Privacy objects: their types and their constructors (gdpPrivacy, purePrivacy, zcdpPrivacy, the
// accountant's pldPrivacy and approximatePrivacy, thresholdedPrivacy), each object's routes to
// (epsilon, delta), and the privacy of a given event. Independent noise is accounted in
// independent.ts, the combinators are in combinators.ts, event reconstruction in reconstruct.ts,
// the registry of genuine objects in registry.ts.
//
// Every privacy object has one shape (README, "Conventions"): `kind`, the notion its numbers
// certify ('pure', 'gdp', 'zcdp', 'pld' for the accountant's numeric distributions, 'approximate'
// for the best of several conversions); `form`, what it accounts for, and for one release of
// noise `noise`, which; its own numbers (epsilonPure, mu, rho); epsilon(delta), delta(epsilon),
// bounds(delta) (the certified range of epsilon), rdp(alpha) and toDpEvent(). Behind each is an event (engine/events.ts): what was
// released, which compose combines and the accountant evaluates. It is frozen, and genuine: compose
// takes only objects recorded in registry.ts. Accounting fails closed: a figure is never NaN, null
// or negative; an overflow means Infinity (no privacy) with a warning. Figures are rounded up, so
// the reported privacy is never better than the truth.
import { DELTA, GAUSSIAN_EPSILON } from '../core/domains.js';
import { ROUND_UP, roundUp } from '../core/rounding.js';
import { memo } from '../core/memo.js';
import { describe, numberIn } from '../core/validate.js';
import { log1p } from '../math/log1p.js';
import { wasm } from '../wasm/loader.js';
import { releases } from '../engine/accountant.js';
import { type DpEventJson, writeDpEvent } from './dp-event.js';
import type { Event } from '../engine/events.js';
import { halfSquare, lossNorm } from '../engine/loss.js';
import { pldSupports } from '../engine/pld.js';
import { coarsened, curveDelta, curveEpsilon, FALLBACK_ORDERS, RDP_ORDERS, rdp, rdpCurve } from '../engine/rdp.js';
import { zcdpDelta, zcdpEpsilon } from './zcdp.js';
import { accountOf, genuine, issue as register, searches } from './registry.js';

/**
 * The noise of a privacy object that accounts for one release of additive noise: a family of
 * noise, or its exact discrete version.
 *
 * @group Accounting
 */
export type PrivacyNoise = 'gaussian' | 'laplace' | 'discrete-gaussian' | 'discrete-laplace' | 'staircase';

const PRIVACY_NOISES: readonly PrivacyNoise[] = ['gaussian', 'laplace', 'discrete-gaussian', 'discrete-laplace', 'staircase'];

/**
 * What a privacy object accounts for: one release of additive noise ('noise', named by its
 * `noise`), a composition of releases, a subsampled or allocated release, a release with
 * partition selection, or the exponential mechanism.
 *
 * @group Accounting
 */
export type PrivacyForm = 'noise' | 'composition' | 'subsampled' | 'partition-selection' | 'exponential';

/** What the constructors are told: the noise of one release, or the form of anything else. */
type Released = PrivacyNoise | Exclude<PrivacyForm, 'noise'>;

/** The `form` and `noise` fields of an object for what it releases. */
function formOf(released: Released): { form: PrivacyForm; noise?: PrivacyNoise } {
  const noise = PRIVACY_NOISES.find((n) => n === released);
  return noise === undefined ? { form: released as Exclude<Released, PrivacyNoise> } : { form: 'noise', noise };
}

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
  /** What it accounts for: one release of noise ('noise'), a composition, a subsampled release, ... */
  readonly form: PrivacyForm;
  /** The noise, when `form` is 'noise'. */
  readonly noise?: PrivacyNoise;
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

/**
 * Whether `privacy` is (epsilon, delta)-DP by its own figures, epsilon(delta) <= epsilon, found
 * with no more of the accountant's refinement than the answer needs: the same yes or no as
 * privacy.epsilon(delta) <= epsilon, for less (the calibrations' searches ask it many times).
 */
export function certifies(privacy: Privacy, epsilon: number, delta: number): boolean {
  return searches.get(privacy)!(delta, epsilon) <= epsilon;
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
      // The lower end from the event with parameters rounded down, on the grids the event's own
      // range takes, less 2^-40 for parameters (mu, epsilon) that are themselves rounded up by a
      // few ulp. A floor the accountant does not take (a bound with a margin) gives no lower end.
      const own = floor === event;
      const range = accountOf(event).bounds(d, own || !pldSupports(floor) ? undefined : accountOf(floor).lowerAt);
      const lower = (own || pldSupports(floor) ? range.lower : 0) * (1 - 2 ** -40);
      return Object.freeze({ lower: Math.min(lower, upper), upper: ownUpper ? upper : Math.min(range.upper, upper) });
    },
    rdp(alpha: number) {
      return rdp(event, numberIn('alpha', alpha, ALPHA));
    },
    toDpEvent: () => writeDpEvent(event),
  };
}

/** Freezes a privacy object and records it as genuine (registry.ts), typed as the privacy object it is. */
const issue = <T extends Privacy>(privacy: T, event: Event, lower?: Event): T => register(privacy, event, lower);

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

/** The RDP route: the event's RDP curve at `orders` (computed once, when first asked), converted (engine/rdp.ts). */
export function rdpRoute(event: Event, orders: readonly number[] = RDP_ORDERS): Route & { curve(): Float64Array } {
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
export function gaussianCurves(mu: number): Pick<Curves, 'delta' | 'epsilon'> {
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
export function pureCurves(epsilonPure: number): Pick<Curves, 'delta' | 'epsilon'> {
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
export function gdpPrivacy(mu: number, released: Released = 'gaussian', warnings: readonly string[] = [], event: Event = { type: 'gaussian', mu }): GdpPrivacy {
  parameter('mu', mu);
  const curves = gaussianCurves(mu);
  return issue(
    {
      kind: 'gdp',
      ...formOf(released),
      mu,
      rho: halfSquare(mu),
      ...curves,
      ...extras(event, curves.epsilon, belowGaussianEpsilon(mu)),
      ...warningFor([mu], warnings),
    },
    event,
  );
}

/**
 * A pure epsilon-DP privacy object (Laplace noise by default); its event, randomized response at
 * epsilonPure (the worst pure epsilon-DP pair) unless given.
 */
export function purePrivacy(
  epsilonPure: number,
  released: Released = 'laplace',
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
    { kind: 'pure', ...formOf(released), epsilonPure, delta, epsilon, ...extras(event, epsilon, undefined, floor), ...warningFor([epsilonPure], warnings) },
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
  released: Released = 'discrete-gaussian',
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
  return issue(
    { kind: 'zcdp', ...formOf(released), rho, delta, epsilon, ...extras(event, epsilon, undefined, floor), ...warningFor([rho], warnings) },
    event,
    floor,
  );
}

/**
 * The curves of a release whose laws are within e^(+-slack) of a post-processing of Gaussian
 * noise at distance mu (docs/accounting.md, "Discrete Gaussian"): epsilon(delta e^-slack) + 2 slack
 * and e^slack delta(epsilon - 2 slack) of the Gaussian curve (slack <= 2^-60, so e^slack is within
 * the round-up). Below 0 the Gaussian delta grows by at most the step: delta(-x) <= delta(0) + x.
 */
export function closeGaussianRoute(mu: number, slack: number): Route {
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
export function gaussianDistanceOf(event: Event): number | undefined {
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
export function pldPrivacy(event: Event, released: Released, warnings: readonly string[], routes: Route[] = [], floor: Event = event): PldPrivacy {
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
  return issue({ kind: 'pld', ...formOf(released), epsilon, delta, ...extras(event, epsilon, undefined, floor), ...warningFor([], warnings) }, event, floor);
}

/**
 * Basic composition of any parts (Dwork & Roth 2014): with delta split evenly over the n releases,
 * the epsilons add up. delta(epsilon) is found by bisection on log delta (30 steps), keeping the
 * side that meets epsilon.
 */
export function basicRoute(items: ReadonlyArray<{ privacy: Privacy; times: number }>): Route {
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
export interface Route {
  epsilon(delta: number): number;
  delta(epsilon: number): number;
}

export const routeOf = (curves: Pick<Curves, 'delta' | 'epsilon'>): Route => ({ epsilon: curves.epsilon, delta: curves.delta });

/** The best of several routes, for compositions the accountant cannot take. */
export function approximatePrivacy(
  event: Event,
  routes: Route[],
  warnings: readonly string[],
  floor: Event = event,
  released: Released = 'composition',
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
  return issue(
    { kind: 'approximate', ...formOf(released), epsilon, delta, ...extras(event, epsilon, undefined, floor, true), ...warningFor([], warnings) },
    event,
    floor,
  );
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
export function eventPrivacy(given: Event): Privacy {
  const event = withRatesMultiplied(given);
  if (releases(event) === 0) return purePrivacy(0, 'composition', [], event); // no release: no loss
  if (event.type === 'gaussian') return gdpPrivacy(event.mu, 'gaussian', [], event);
  if (event.type === 'laplace') return purePrivacy(event.epsilon, 'laplace', [], event);
  const sampled = event.type === 'poisson' || event.type === 'without-replacement' || event.type === 'allocation';
  const released = sampled ? 'subsampled' : 'composition';
  const epsilonPure = pureTotal(event);
  if (epsilonPure !== undefined) return purePrivacy(roundUp(epsilonPure), released, [], event);
  // A sampled or allocated release is never less private than the release itself: the
  // hockey-stick divergence is jointly convex, and the record is in it or not.
  const dominating = sampled ? [routeOf(eventPrivacy(event.event))] : [];
  if (pldSupports(event)) return pldPrivacy(event, released, [], dominating);
  return approximatePrivacy(event, [rdpRoute(event), ...dominating], [], event, released);
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
export const thresholds = new WeakMap<object, { inner: Privacy; beta: number }>();

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
    {
      kind: 'approximate',
      ...formOf('partition-selection'),
      epsilon,
      delta,
      ...extras(event, epsilon),
      ...warningFor([], inner.warning ? [inner.warning] : []),
    },
    event,
  );
  thresholds.set(privacy, { inner, beta });
  return privacy;
}
