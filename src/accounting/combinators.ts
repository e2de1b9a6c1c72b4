// The combinators on privacy objects: compose (several releases), subsample (Poisson or
// fixed-size sampling) and randomAllocation (each record in a few of many steps). Each takes
// genuine objects only (registry.ts) and returns a new one, its event combining theirs.
import { roundUp } from '../core/rounding.js';
import { CompensatedSum } from '../core/summation.js';
import { describe, integerIn, numberIn, readOptions } from '../core/validate.js';
import { log1p } from '../math/log1p.js';
import { wasm } from '../wasm/loader.js';
import { type DpEventJson, readDpEvent } from './dp-event.js';
import { type Event, slackOf } from '../engine/events.js';
import { halfSquare, lossNorm } from '../engine/loss.js';
import { pldSupports } from '../engine/pld.js';
import { floorOf, genuine } from './registry.js';
import {
  approximatePrivacy,
  basicRoute,
  closeGaussianRoute,
  eventPrivacy,
  gaussianCurves,
  gaussianDistanceOf,
  gdpPrivacy,
  pldPrivacy,
  type Privacy,
  pureCurves,
  purePrivacy,
  rdpRoute,
  type Route,
  routeOf,
  thresholdedPrivacy,
  thresholds,
  zcdpPrivacy,
} from './privacy.js';
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
export function composeItems(items: ReadonlyArray<{ privacy: Privacy; times: number }>, method: 'pld' | 'rdp'): Privacy {
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
  // The lower end's event: the same one (and so the same accountant, its distributions shared)
  // unless some part's lower end has its own.
  const sameFloor = items.every(({ privacy }) => floorOf(privacy) === genuine.get(privacy));
  const floor: Event = sameFloor ? event : { type: 'composed', events: items.map(({ privacy, times }) => [floorOf(privacy), times] as const) };
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
  // A random allocation is never less private than its release (randomAllocation), so neither is a
  // composition with each allocation read as its release.
  const released = items.map(({ privacy, times }) => ({ privacy: allocatedRelease(privacy) ?? privacy, times }));
  if (released.some(({ privacy }, i) => privacy !== items[i]!.privacy)) routes.push(routeOf(composeItems(released, method)));
  if (pldSupports(event)) return pldPrivacy(event, 'composition', warnings, routes, floor);
  routes.push(basicRoute(items), rdpRoute(event));
  return approximatePrivacy(event, routes, warnings, floor);
}

/** The release a random allocation allocates, if the privacy is one's. */
function allocatedRelease(privacy: Privacy): Privacy | undefined {
  const event = genuine.get(privacy);
  return event?.type === 'allocation' ? eventPrivacy(event.event) : undefined;
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
