// The accountant's answers for an event (docs/accounting.md, "Choosing the grid"): epsilon(delta)
// and delta(epsilon) as certified upper bounds from the pessimistic distributions (pld.ts), and the
// certified range [lower, upper] of epsilon with the lower end from the rounded-down masses. The
// grid adapts to the answer: a first pass on a coarse grid finds epsilon roughly, the step is then
// set to a fraction of it and halved while the answer still moves by more than 1/1000 of itself
// (the discretization's error falls as the step squared). Distributions are kept per step, so
// repeated questions cost only the sums.
import { eventFloors, eventPmfs, floorDelta, pmfDelta, pmfEpsilon, TooLong } from './pld.js';
import { memo } from '../core/memo.js';
import { ROUND_UP, roundUp } from '../core/rounding.js';
import { type Event, slackOf } from './events.js';

/** The coarse grid of the first pass, and the finest step the accountant goes to. */
const COARSE = 0.05;
const FINEST = 1e-6;
/**
 * The first fine step: epsilon / (STEPS sqrt(T)) for T releases composed. The upper bound's
 * discretization error grows with T h^2, the lower bound's blur with h sqrt(T).
 */
const STEPS = 50;
/** Halvings at most after the first fine grid, so that every question takes bounded time. */
const HALVINGS = 4;
/** Stop halving when the answer moved by at most this fraction of itself... */
const SETTLED = 1e-3;
/** ...and, for bounds, when the certified range is within this fraction of its upper end. */
const TIGHT = 0.01;

/** How many releases an event composes. */
export function releases(event: Event): number {
  if (event.type === 'composed') return event.events.reduce((sum, [child, times]) => sum + times * releases(child), 0);
  return 1;
}

/** The answers for one event. */
export interface PldAccount {
  /** The smallest epsilon certified for delta (an upper bound on the true one). */
  epsilon(delta: number): number;
  /** delta(epsilon), an upper bound. */
  delta(epsilon: number): number;
  /** A certified range for epsilon(delta): the true value lies in [lower, upper]. */
  bounds(delta: number): { lower: number; upper: number };
}

/** The largest slack the accountant takes: e^slack is then within 1 + 2^-50 of 1 (ROUND_UP). */
const MAX_SLACK = 2 ** -60;

/**
 * The accountant for an event the PLD method supports (pldSupports). With a slack S (slackOf: the
 * release's laws within e^(+-S) of the tree's; docs/accounting.md, "Discrete Gaussian"), every
 * P(A) <= e^S P'(A) <= e^S (e^eps' Q'(A) + delta') <= e^(eps' + 2S) Q(A) + e^S delta', so the
 * answers of the tree move by 2S in epsilon and by e^S in delta; lower ends by as much the other way.
 */
export function pldAccount(event: Event): PldAccount {
  const slack = slackOf(event);
  const account = treeAccount(event);
  if (slack === 0) return account;
  if (!(slack <= MAX_SLACK)) return { epsilon: () => Infinity, delta: () => 1, bounds: () => ({ lower: 0, upper: Infinity }) };
  const up = (x: number) => roundUp(x + 2 * slack);
  const down = (x: number) => Math.max(0, (x - 2 * slack) * (1 - ROUND_UP));
  return {
    epsilon: (delta) => up(account.epsilon(delta * (1 - ROUND_UP))),
    delta: (eps) => Math.min(1, roundUp(account.delta(eps - 2 * slack - ROUND_UP * Math.abs(eps)))),
    bounds(delta) {
      const upper = up(account.bounds(delta * (1 - ROUND_UP)).upper);
      return { lower: Math.min(upper, down(account.bounds(Math.min(delta * (1 + ROUND_UP), 1 - 2 ** -53)).lower)), upper };
    },
  };
}

/** The accountant of an event tree, its 'close' events read as their `event`. */
function treeAccount(event: Event): PldAccount {
  const pmfs = new Map<number, ReturnType<typeof eventPmfs>>();
  const floors = new Map<number, ReturnType<typeof eventFloors>>();
  const upperAt = (h: number) => memo(pmfs, h, () => eventPmfs(event, h));
  const floorAt = (h: number) => memo(floors, h, () => eventFloors(event, h));
  const epsilonAt = (h: number, delta: number) => Math.max(...upperAt(h).map((pmf) => pmfEpsilon(pmf, h, delta)));
  const deltaAt = (h: number, epsilon: number) => Math.max(...upperAt(h).map((pmf) => pmfDelta(pmf, h, epsilon)));

  const T = releases(event);
  /** The grid steps to use for an answer near `scale`: the first fine one and its halvings (powers of two, so grids are shared between questions). */
  const steps = (scale: number) => {
    const first = 2 ** Math.floor(Math.log2(Math.min(COARSE, Math.max(FINEST, scale / (STEPS * Math.sqrt(T))))));
    return Array.from({ length: HALVINGS + 1 }, (_, k) => Math.max(FINEST, first / 2 ** k));
  };

  /**
   * epsilon(delta) on grids refined until it settles; every grid's answer is an upper bound, so the
   * smallest is kept, also when a finer grid would be too long to build (or when one answers 0).
   */
  function epsilon(delta: number): { value: number; h: number } {
    const coarse = epsilonAt(COARSE, delta);
    if (coarse <= 0) return { value: coarse, h: COARSE };
    // A coarse grid's rounding and tails may exceed a tiny delta: then the finer grids follow the
    // spread of the loss (its epsilon at delta 1e-2).
    const scale = coarse < Infinity ? coarse : epsilonAt(COARSE, 1e-2);
    if (scale === Infinity) return { value: Infinity, h: COARSE };
    let best = { value: coarse, h: COARSE };
    let previous = Infinity;
    for (const h of steps(Math.max(scale, 1e-3))) {
      const value = orNone(() => epsilonAt(h, delta), Infinity);
      if (value === Infinity) break;
      if (value < best.value) best = { value, h };
      if (value <= 0 || Math.abs(previous - value) <= SETTLED * value) break;
      previous = value;
    }
    return best;
  }

  /**
   * The largest epsilon (below `upper`) whose lower bound on delta, from the rounded-down masses on
   * the grid h, still exceeds delta: a certified lower bound on epsilon(delta), by bisection.
   */
  function lowerEpsilon(h: number, delta: number, upper: number): number {
    const lowerDelta = (eps: number) => Math.max(...floorAt(h).map((pair) => floorDelta(pair, h, eps)));
    let lo = 0;
    let hi = upper;
    if (lowerDelta(lo) <= delta) return 0;
    for (let k = 0; k < 60 && hi - lo > 1e-12 * hi; k++) {
      const mid = 0.5 * (lo + hi);
      if (lowerDelta(mid) > delta) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /** A distribution too long to build means far more loss than any figure worth certifying: no privacy. */
  const orNone = <T>(body: () => T, none: T): T => {
    try {
      return body();
    } catch (error) {
      if (error instanceof TooLong) return none;
      throw error;
    }
  };

  return {
    epsilon: (delta) => orNone(() => Math.max(0, epsilon(delta).value), Infinity),
    delta: (eps) => orNone(() => deltaOf(eps), 1),
    bounds: (delta) => orNone(() => boundsOf(delta), { lower: 0, upper: Infinity }),
  };

  /** delta(epsilon) on grids refined until it settles; each is an upper bound, the smallest is kept. */
  function deltaOf(epsilon: number): number {
    let best = deltaAt(COARSE, epsilon);
    let previous = Infinity;
    // The grid follows the spread of the loss (its epsilon at delta 1e-2), not only epsilon: at
    // epsilon near 0 a step scaled to epsilon would build millions of points for nothing.
    const spread = epsilonAt(COARSE, 1e-2);
    for (const h of steps(Math.max(epsilon, Number.isFinite(spread) ? spread : 0, 1e-3))) {
      if (best <= 0) break;
      const value = orNone(() => deltaAt(h, epsilon), 1);
      if (value === 1) break; // a grid too long to build: keep the best so far
      best = Math.min(best, value);
      if (Math.abs(previous - value) <= SETTLED * value) break;
      previous = value;
    }
    return best;
  }

  /** The certified range, refined until it is within TIGHT of its upper end (or the halvings run out). */
  function boundsOf(delta: number): { lower: number; upper: number } {
    let { value: upper, h } = epsilon(delta);
    if (upper === Infinity) return { lower: lowerEpsilon(h, delta, Number.MAX_VALUE), upper };
    let lower = orNone(() => lowerEpsilon(h, delta, upper), 0);
    for (let k = 0; k < HALVINGS && upper - lower > TIGHT * upper && h / 2 >= FINEST; k++) {
      h /= 2;
      const finer = orNone(() => ({ upper: Math.min(upper, epsilonAt(h, delta)), lower: lowerEpsilon(h, delta, upper) }), undefined);
      if (!finer) break; // too long to build: keep the range so far
      upper = finer.upper;
      lower = Math.max(lower, finer.lower);
    }
    return { lower: Math.max(0, Math.min(lower, upper)), upper: Math.max(0, upper) };
  }
}
