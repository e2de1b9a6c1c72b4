// The accountant's answers for an event (docs/accounting.md, "Choosing the grid"): epsilon(delta)
// and delta(epsilon) as certified upper bounds from the pessimistic distributions (pld.ts), and the
// certified range [lower, upper] of epsilon with the lower end from the rounded-down masses. The
// grid adapts to the answer: a first pass on a coarse grid finds epsilon roughly, the step is then
// set to a fraction of it and halved until the answer's error, estimated from its last move, is
// within 1/1000 of it. Of the two directions of add/remove neighbours only the one whose answer is
// the larger is refined. Distributions are kept per step and direction, so repeated questions cost
// only the sums.
import { type Direction, directionsOf, eventFloor, eventPmf, eventPmfLevels, floorEpsilon, pmfDelta, pmfEpsilon, smoothLoss, TooLong } from './pld.js';
import { allowed, type FloorPair, MAX_WORK, type Pmf, tooLong } from './masses.js';
import { testStart, tiltedFloor, tiltedPmf } from './tilt.js';
import { memo } from '../core/memo.js';
import { ROUND_UP, roundUp } from '../core/rounding.js';
import { type Event, slackOf } from './events.js';

/** The coarse grid of the first pass, and the finest step the accountant goes to. */
const COARSE = 0.05;
const FINEST = 1e-6;
/**
 * The first fine step: epsilon / (steps sqrt(T)) for T releases composed. The upper bound's
 * discretization error grows with T h^2 (with T h where atoms sit between grid points), the lower
 * bound's blur with h sqrt(T). Gaussian losses start on a grid twice as coarse, as their
 * halvings' moves tell the error better (Track.moves).
 */
const STEPS = { smooth: 25, atoms: 50 };
/**
 * The most grid points of work one call (a privacy object's epsilon, delta or bounds, with every
 * question of the accountant it asks) may take, each distribution it uses counted once, at what
 * building it alone costs (masses.ts, `allowed`), whether built for it or before: about a second
 * here. A distribution past it is refused as one too long is: the refinement ends with its best
 * answer so far, or the accountant certifies no privacy (Infinity) and the other routes answer.
 */
const CALL_WORK = 2 ** 24;
/** Distributions a call may be refused before it stops building: each may have taken up to MAX_WORK to learn its cost. */
const REFUSALS = 3;

/** A distribution kept by an accountant: its value (none where its build was refused) and its cost. */
interface Entry {
  readonly value?: unknown;
  readonly cost: number;
}

/** The budget of the call in progress: what is left, how many distributions it refused, and the distributions it paid for (true) or refused (false). */
interface Budget {
  remaining: number;
  refusals: number;
  readonly answered: Map<Entry, boolean>;
}
let current: Budget | undefined;

/** body() as one call with a budget of CALL_WORK, or within the call in progress (its questions share one budget). */
export function oneCall<T>(body: () => T): T {
  if (current) return body();
  current = { remaining: CALL_WORK, refusals: 0, answered: new Map() };
  try {
    return body();
  } finally {
    current = undefined;
  }
}

/** Halvings at most after the first fine grid, so that every question takes bounded time. */
const HALVINGS = 4;
/** Stop halving when the answer's estimated error is at most this fraction of itself... */
const SETTLED = 1e-3;
/** ...and, for bounds, when the certified range is within this fraction of its upper end. */
const TIGHT = 0.01;
/**
 * The range stops refining once its lower end passes 709.78, about ln of the largest double: a
 * privacy loss no one certifies (e^709 times more likely), where a finer grid would only cost time.
 */
const LOWER_CEILING = 709.78;

/** How many releases an event composes. */
export function releases(event: Event): number {
  if (event.type === 'composed') return event.events.reduce((sum, [child, times]) => sum + times * releases(child), 0);
  return 1;
}

/** The answers for one event. */
export interface PldAccount {
  /**
   * The smallest epsilon certified for delta (an upper bound on the true one). With `enough`, the
   * refinement may stop once the answer is at most that: a search that only asks whether the
   * answer is at most `enough` gets the same yes or no for less (answers only fall as the grid
   * refines).
   */
  epsilon(delta: number, enough?: number): number;
  /** delta(epsilon), an upper bound. */
  delta(epsilon: number): number;
  /**
   * A certified range for epsilon(delta): the true value lies in [lower, upper]. With `lowerAt`,
   * the lower end on each grid comes from it (another event's floor: `lowerAt` of its account)
   * instead of this event's own.
   */
  bounds(delta: number, lowerAt?: LowerAt): { lower: number; upper: number };
  /** A certified lower bound on epsilon(delta) from this event's floor on grid h in direction d (throws TooLong where the floor is refused). */
  lowerAt: LowerAt;
}

/** A lower bound on epsilon(delta) from a floor on grid h in direction d (-Infinity for none). */
export type LowerAt = (delta: number, h: number, d: Direction) => number;

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
  const account = failingClosed(treeAccount(event));
  if (slack === 0) return account;
  if (!(slack <= MAX_SLACK)) return { epsilon: () => Infinity, delta: () => 1, bounds: () => ({ lower: 0, upper: Infinity }), lowerAt: () => 0 };
  const up = (x: number) => roundUp(x + 2 * slack);
  const down = (x: number) => Math.max(0, (x - 2 * slack) * (1 - ROUND_UP));
  /** delta raised by its rounding, for a lower end (below 1). */
  const raised = (delta: number) => Math.min(delta * (1 + ROUND_UP), 1 - 2 ** -53);
  return {
    epsilon: (delta, enough = Number.NEGATIVE_INFINITY) => up(account.epsilon(delta * (1 - ROUND_UP), (enough - 2 * slack) * (1 - 2 * ROUND_UP))),
    delta: (eps) => Math.min(1, roundUp(account.delta(eps - 2 * slack - ROUND_UP * Math.abs(eps)))),
    bounds(delta, lowerAt) {
      const upper = up(account.bounds(delta * (1 - ROUND_UP), lowerAt).upper);
      return { lower: Math.min(upper, down(account.bounds(raised(delta), lowerAt).lower)), upper };
    },
    lowerAt: (delta, h, d) => down(account.lowerAt(raised(delta), h, d)),
  };
}

/** An account whose NaN answers (a computation gone wrong) read as no privacy: never a NaN figure. */
function failingClosed(account: PldAccount): PldAccount {
  return {
    epsilon: (delta, enough) => {
      const epsilon = account.epsilon(delta, enough);
      return Number.isNaN(epsilon) ? Infinity : epsilon;
    },
    delta: (epsilon) => {
      const delta = account.delta(epsilon);
      return Number.isNaN(delta) ? 1 : delta;
    },
    bounds: (delta, lowerAt) => {
      const { lower, upper } = account.bounds(delta, lowerAt);
      return Number.isNaN(lower) || Number.isNaN(upper) ? { lower: 0, upper: Infinity } : { lower, upper };
    },
    lowerAt: (delta, h, d) => {
      const lower = account.lowerAt(delta, h, d);
      return Number.isNaN(lower) ? 0 : lower;
    },
  };
}

/**
 * One direction's answers on grids getting finer: the smallest so far (every one is an upper
 * bound) and the grid it came from, the last answer and the finest grid asked.
 */
interface Track {
  readonly direction: Direction;
  best: number;
  h: number;
  previous: number;
  finest: number;
  settled: boolean;
  /** A grid refused before any finer answer: the next is twice as coarse (between it and the coarse grid). */
  refused?: number;
  /** How many times the finer grid's error a halving moves the answer: 3 where that error falls as h^2 (smoothLoss), 1 where it falls as h. */
  readonly moves: number;
}

/** The share of an answer's delta its rounding bound may take before the tilted distribution is built too (tilt.ts). */
const TILT_WHEN = 2 ** -6;
/** How far below the untilted masses' own epsilon the tilt's cutoff sits: the answer, with its rounding bound, lies above. */
const TILT_BELOW = 2 ** -6;

/** Refused grids a track may fall back from, each to one twice as coarse: 2^16 covers FINEST to COARSE. */
const FALLBACKS = 16;

/** How much coarser the first grid of a direction catching up with another is (a power of two, so grids are shared). */
const CATCH_UP = 8;

/** The track with the largest answer (the first of equals). */
const largest = (tracks: readonly Track[]): Track => tracks.reduce((a, b) => (b.best > a.best ? b : a));

/**
 * A track's answer on grid h (`failed`: refused, too long to build, which settles it with its best
 * so far, unless it has no answer finer than the coarse grid yet and a grid twice as coarse is
 * still finer than that: then that one is asked next).
 */
function advance(track: Track, h: number, value: number, failed: number): void {
  if (value === failed) {
    if (track.previous === Infinity && 2 * h < track.finest) track.refused = h;
    else [track.finest, track.settled] = [h, true];
    return;
  }
  track.finest = h;
  track.refused = undefined;
  if (value < track.best) {
    track.best = value;
    track.h = h;
  }
  track.settled = value <= 0 || Math.abs(track.previous - value) <= track.moves * SETTLED * value;
  track.previous = value;
}

/**
 * Refines the tracks along the grids `hs` until the largest answer settles: only the direction
 * whose answer is the largest is refined (the others' answers are already upper bounds below it),
 * until the finer grid's error, estimated from the last move (Track.moves), is at most SETTLED of
 * the answer, or the grids run out. Each step takes one track to a grid of hs, or CATCH_UP times
 * one, below its finest so far, or (after a refusal) to a grid twice as coarse as the one refused,
 * so there are at most 2 hs.length + FALLBACKS steps per track; at that cap (never reached) the
 * largest answer so far, an upper bound like every answer, is returned.
 */
function refine(
  tracks: Track[],
  hs: readonly number[],
  answer: (h: number, direction: Direction, ahead: boolean) => number,
  failed: number,
  enough = Number.NEGATIVE_INFINITY,
): Track {
  for (let step = 0; step < (2 * hs.length + FALLBACKS) * tracks.length; step++) {
    const top = largest(tracks);
    const next = top.refused === undefined ? hs.find((step) => step < top.finest) : 2 * top.refused;
    if (top.settled || next === undefined || top.best <= enough) return top;
    // A direction overtaking one already refined to that grid may need far less to drop below it:
    // a grid CATCH_UP times coarser is tried first (it costs about 1/CATCH_UP as much).
    const behind = top.refused === undefined && tracks.some((t) => t !== top && t.finest <= next) && next * CATCH_UP < top.finest;
    const h = behind ? next * CATCH_UP : next;
    // A track's first answer on a fine grid never settles it (there is no move yet), so unless it
    // is only catching up, the next grid will be asked for too: `ahead` builds both at once.
    advance(top, h, answer(h, top.direction, !behind && top.refused === undefined && top.previous === Infinity && h / 2 >= FINEST), failed);
  }
  return largest(tracks);
}

/** Tracks that start from each direction's answer on the coarse grid of step h. */
const tracksFrom = (directions: readonly Direction[], moves: number, h: number, coarse: (direction: Direction) => number): Track[] =>
  directions.map((direction) => {
    const best = coarse(direction);
    return { direction, best, h, previous: Infinity, finest: h, settled: best <= 0, moves };
  });

/** The accountant of an event tree, its 'close' events read as their `event`. */
function treeAccount(event: Event): PldAccount {
  const directions = directionsOf(event);
  const smooth = smoothLoss(event);
  const moves = smooth ? 3 : 1;
  /** Each distribution asked for: its value (none where its build was refused: more than MAX_WORK) and its cost (masses.ts, `allowed`). */
  const entries = new Map<string, Entry>();
  /**
   * A distribution, built on first use under its allowance and kept, and charged to the call
   * (oneCall) at its cost, once, whether built now or before, so that each answer depends on the
   * call alone, never on what earlier calls built. Refused (TooLong) where its build was, or where
   * the call cannot pay for it; a cheaper one (a coarser grid) may still be, until REFUSALS.
   */
  function request<T>(k: string, build: () => T): T {
    const budget = current!;
    let entry = entries.get(k);
    const before = entry && budget.answered.get(entry);
    if (before !== undefined) {
      if (before) return entry!.value as T;
      throw tooLong(entry!.cost);
    }
    if (!(budget.remaining > 0)) throw tooLong(Number.POSITIVE_INFINITY);
    if (entry === undefined) {
      const { value, costs } = allowed(1, build);
      entry = { value, cost: costs[0]! };
      entries.set(k, entry);
    }
    const paid = entry.value !== undefined && entry.cost <= budget.remaining;
    budget.answered.set(entry, paid);
    if (paid) {
      budget.remaining -= entry.cost;
      return entry.value as T;
    }
    if (++budget.refusals >= REFUSALS) budget.remaining = 0;
    throw tooLong(entry.cost);
  }
  /** body() as one question, within the call's budget: `none` (no privacy certified) when a distribution it needs is refused. */
  const question = <T>(body: () => T, none: T): T => oneCall(() => orNone(body, none));
  const T = releases(event);
  /**
   * The mass each release's grid may leave above its top for an answer at delta: at most a
   * thousandth of delta over the T releases (a power of two, so grids are shared between
   * questions; docs/accounting.md, "Choosing the grid"); 0 (the default grids) for delta(epsilon).
   */
  const tailFor = (delta: number) => 2 ** Math.floor(Math.log2((delta * 2 ** -10) / T));
  const key = (h: number, d: Direction, tail: number) => `pmf ${h} ${d} ${tail}`;
  /**
   * The distribution on grid h; `ahead`: the one on grid h/2 built with it, for about the work of
   * that one alone (eventPmfLevels), each level at its own cost; if together they are refused,
   * each is built alone when asked for.
   */
  const pmfAt = (h: number, d: Direction, tail = 0, ahead = false): Pmf => {
    const [here, half, both] = [key(h, d, tail), key(h / 2, d, tail), `pair ${key(h, d, tail)}`];
    // Only where the call could pay for both: a pair's build may take up to twice MAX_WORK, and is not charged.
    if (ahead && current!.remaining >= 2 * MAX_WORK && !entries.has(here) && !entries.has(half) && !entries.has(both)) {
      const { value, costs } = allowed(2, () => eventPmfLevels(event, h, d, tail, 2));
      if (value) {
        entries.set(here, { value: value[0], cost: costs[0]! });
        entries.set(half, { value: value[1], cost: costs[1]! });
      } else entries.set(both, { cost: 0 }); // each is built alone when asked for
    }
    return request(here, () => eventPmf(event, h, d, tail));
  };
  /** The floor pair on grid h for an answer at delta: its grids leave out what the distributions' leave above their tops (tailFor). */
  const floorAt = (h: number, d: Direction, delta: number): FloorPair => {
    const tail = tailFor(delta);
    return request(`floor ${h} ${d} ${tail}`, () => eventFloor(event, h, d, tail));
  };
  /**
   * pmfEpsilon, kept per distribution and delta: `bounds` asks again what `epsilon` asked (the
   * distribution itself is still requested, and charged, by each call).
   */
  const searches = new WeakMap<Pmf, Map<number, number>>();
  const searched = (pmf: Pmf, h: number, delta: number): number =>
    memo(
      memo(searches, pmf, () => new Map<number, number>()),
      delta,
      () => pmfEpsilon(pmf, h, delta),
    );
  /**
   * The distribution on grid h tilted towards `target` (tilt.ts), kept per target: none where the
   * event is not a composition or no tilt helps.
   */
  const tiltedAt = (h: number, d: Direction, tail: number, target: number): Pmf | undefined =>
    event.type === 'composed'
      ? orNone(() => request(`tilted ${h} ${d} ${tail} ${target}`, () => tiltedPmf(event, h, d, tail, target)).pmf, undefined)
      : undefined;
  /**
   * epsilon(delta) on grid h; where the rounding bound takes more than TILT_WHEN of delta, also
   * from the distribution tilted towards just below the answer the masses give without it, and
   * the smaller (both are upper bounds).
   */
  const epsilonAt = (h: number, d: Direction, delta: number, ahead = false) => {
    const tail = tailFor(delta);
    const pmf = pmfAt(h, d, tail, ahead);
    const epsilon = searched(pmf, h, delta);
    if (!(pmf.error1 > TILT_WHEN * delta)) return epsilon;
    const tilted = tiltedAt(h, d, tail, pmfEpsilon({ ...pmf, error1: 0 }, h, delta) * (1 - TILT_BELOW));
    return tilted ? Math.min(epsilon, searched(tilted, h, delta)) : epsilon;
  };
  /** delta(epsilon) on grid h; as epsilonAt, tilted towards epsilon where the rounding bound takes more than TILT_WHEN of the answer. */
  const deltaAt = (h: number, d: Direction, epsilon: number, ahead = false) => {
    const pmf = pmfAt(h, d, 0, ahead);
    const delta = pmfDelta(pmf, h, epsilon);
    if (!(pmf.error1 > TILT_WHEN * (delta - pmf.error1))) return delta;
    const tilted = tiltedAt(h, d, 0, epsilon);
    return tilted ? Math.min(delta, pmfDelta(tilted, h, epsilon)) : delta;
  };
  /** The loss's spread, its epsilon at delta 1e-2 on the coarse grid. */
  const spread = () => Math.max(...directions.map((d) => epsilonAt(COARSE, d, 1e-2)));

  /** The grid steps to use for an answer near `scale`: the first fine one and its halvings (powers of two, so grids are shared between questions). */
  const steps = (scale: number) => {
    const first = 2 ** Math.floor(Math.log2(Math.min(COARSE, Math.max(FINEST, scale / ((smooth ? STEPS.smooth : STEPS.atoms) * Math.sqrt(T))))));
    return Array.from({ length: HALVINGS + 1 }, (_, k) => Math.max(FINEST, first / 2 ** k));
  };

  /** epsilon(delta)'s tracks, refined until the largest settles (a grid too long to build ends its track), or is at most `enough`. */
  function epsilonTracks(delta: number, enough = Number.NEGATIVE_INFINITY): { tracks: Track[]; top: Track } {
    const tracks = tracksFrom(directions, moves, COARSE, (d) => epsilonAt(COARSE, d, delta));
    // The largest direction answers: with no grid to refine on, its coarse answer (0, or Infinity).
    const first = largest(tracks);
    if (first.best <= Math.max(0, enough)) return { tracks, top: first };
    // A coarse grid's rounding and tails may exceed a tiny delta: then the finer grids follow the spread of the loss.
    const scale = first.best < Infinity ? first.best : spread();
    if (scale === Infinity) return { tracks, top: first };
    const top = refine(tracks, steps(Math.max(scale, 1e-3)), (h, d, ahead) => orNone(() => epsilonAt(h, d, delta, ahead), Infinity), Infinity, enough);
    return { tracks, top };
  }

  /**
   * A certified lower bound on epsilon(delta) from the rounded-down masses on the grid h in one
   * direction (the true delta is the larger of the directions'): floorEpsilon, in one pass over them.
   */
  const ownLowerAt: LowerAt = (delta, h, d) => {
    const pair = floorAt(h, d, delta);
    const lower = floorEpsilon(pair, h, delta);
    if (!(pair.errorP > TILT_WHEN * delta) || event.type !== 'composed') return lower;
    // As for epsilonAt: where the rounding bound takes more than TILT_WHEN of delta, the floor
    // tilted towards just below where the test of the lower end its masses give without it
    // starts, and the larger end.
    const tail = tailFor(delta);
    const unrounded = floorEpsilon({ ...pair, errorP: 0, errorQ: 0 }, h, delta);
    if (!Number.isFinite(unrounded)) return lower; // no test passes delta even without the rounding bound
    const start = testStart(pair, h, unrounded);
    const target = start - TILT_BELOW * Math.abs(start) - h;
    if (!Number.isFinite(target)) return lower;
    const tilted = orNone(() => request(`tilted floor ${h} ${d} ${tail} ${target}`, () => tiltedFloor(event, h, d, tail, target)).pair, undefined);
    return tilted ? Math.max(lower, floorEpsilon(tilted, h, delta)) : lower;
  };

  /** lowerAt's bound, between 0 and `upper`. */
  function lowerEpsilon(lowerAt: LowerAt, h: number, d: Direction, delta: number, upper: number): number {
    return Math.min(upper, Math.max(0, lowerAt(delta, h, d)));
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
    epsilon: (delta, enough) => question(() => Math.max(0, epsilonTracks(delta, enough).top.best), Infinity),
    delta: (eps) => question(() => deltaOf(eps), 1),
    bounds: (delta, lowerAt = ownLowerAt) => question(() => boundsOf(delta, lowerAt), { lower: 0, upper: Infinity }),
    // A refused floor throws TooLong to the range asking (coarserFloor then tries the coarse grid).
    lowerAt: (delta, h, d) => oneCall(() => ownLowerAt(delta, h, d)),
  };

  /** delta(epsilon) on grids refined until it settles; each is an upper bound, the smallest is kept. */
  function deltaOf(epsilon: number): number {
    const tracks = tracksFrom(directions, moves, COARSE, (d) => deltaAt(COARSE, d, epsilon));
    // The grid follows the spread of the loss, not only epsilon: at epsilon near 0 a step scaled to
    // epsilon would build millions of points for nothing.
    const loss = spread();
    const hs = steps(Math.max(epsilon, Number.isFinite(loss) ? loss : 0, 1e-3));
    return refine(tracks, hs, (h, d, ahead) => orNone(() => deltaAt(h, d, epsilon, ahead), 1), 1).best;
  }

  /**
   * lowerEpsilon on grid h, or where its floor is refused (random allocation's floor covers longer
   * tails than its upper distribution), on the coarse grid, the cheapest: every grid's floor gives
   * a valid lower end.
   */
  function coarserFloor(lowerAt: LowerAt, h: number, d: Direction, delta: number, upper: number): number {
    for (const step of h < COARSE ? [h, COARSE] : [h]) {
      const lower = orNone(() => lowerEpsilon(lowerAt, step, d, delta, upper), undefined);
      if (lower !== undefined) return lower;
    }
    return 0;
  }

  /**
   * The certified range, refined until it is within TIGHT of its upper end (or the halvings run
   * out); the lower end from the direction with the largest upper one, by lowerAt.
   */
  function boundsOf(delta: number, lowerAt: LowerAt): { lower: number; upper: number } {
    const { tracks, top } = epsilonTracks(delta);
    let h = top.h;
    if (top.best === Infinity) return { lower: lowerEpsilon(lowerAt, h, top.direction, delta, Number.MAX_VALUE), upper: Infinity };
    let lower = coarserFloor(lowerAt, h, top.direction, delta, top.best);
    let upper = top.best;
    // Past LOWER_CEILING the range is wide only where no one would certify it: finer grids would cost time for nothing.
    for (let k = 0; k < HALVINGS && upper - lower > TIGHT * upper && lower < LOWER_CEILING && h / 2 >= FINEST; k++) {
      h /= 2;
      const finer = orNone(() => {
        // Every direction that is the largest on the way gets its answer on the finer grid.
        for (let t = largest(tracks); t.finest > h; t = largest(tracks)) advance(t, h, epsilonAt(h, t.direction, delta), Infinity);
        const t = largest(tracks);
        return { upper: t.best, lower: lowerEpsilon(lowerAt, h, t.direction, delta, t.best) };
      }, undefined);
      if (!finer) break; // too long to build: keep the range so far
      upper = Math.min(upper, finer.upper);
      lower = Math.max(lower, finer.lower);
    }
    return { lower: Math.max(0, Math.min(lower, upper)), upper: Math.max(0, upper) };
  }
}
