// Privacy-loss distributions (docs/accounting.md, "Privacy-loss distributions"): the tight method of
// the accountant. An event (events.ts) becomes a distribution of the privacy loss on a grid of
// step h, discretized pessimistically by connect the dots (assembly/accounting/pld.ts), composed
// by masses.ts (the lower bound's floor pairs by repeated squaring). Every figure is an upper
// bound: the discretization dominates the true distribution, the mass cut from the tails goes to
// the infinite loss, and the transforms' rounding is bounded and added. Add/remove neighbours
// have two directions (a subsampled pair is not symmetric); each is composed on its own and the
// larger delta is reported.
import { wasm, type WasmExports } from '../wasm/loader.js';
import { roundUp } from '../core/rounding.js';
import { allocationFloor, allocationPmf } from './allocation.js';
import type { Event } from './events.js';
import { f64, inArena } from './arena.js';
import {
  ADD,
  atLevel,
  charge,
  chargeShared,
  composeAll,
  convolveFloor,
  powerFloor,
  type Direction,
  type FloorPair,
  inTree,
  l1,
  MAX_LENGTH,
  type Pmf,
  REMOVE,
  selfCompose,
  tooLong,
  U,
} from './masses.js';

export { type Direction, TooLong } from './masses.js';

/**
 * Standard deviations of a Gaussian loss kept on each side of its mean (the rest is within connect
 * the dots' end points): 9, which leaves less than 2e-19 outside, or fewer where a release may
 * leave more (`tail`, eventPmf).
 */
const SPREAD = 9;

/** The standard deviations that leave at most `tail` of a normal law above (0: SPREAD). */
const spreadFor = (w: WasmExports, tail: number): number => (tail > 0 ? Math.min(SPREAD, w.normalIsf(tail)) : SPREAD);
/** The wasm kinds of assembly/accounting/pld.ts. */
const KIND = { gaussian: 0, laplace: 1, pure: 2, 'discrete-laplace': 3, 'discrete-gaussian': 4 } as const;

/** A base pair: the Gaussian, Laplace, randomized-response and discrete Laplace pairs. */
type BasePair = Extract<Event, { type: keyof typeof KIND }>;

/** The base pair of a single release, when this method has one. */
function basePair(event: Event): BasePair | undefined {
  switch (event.type) {
    case 'gaussian':
      return Number.isFinite(event.mu) ? event : undefined;
    case 'laplace':
    case 'pure':
      return Number.isFinite(event.epsilon) ? event : undefined;
    case 'discrete-laplace':
      return event.scale > 0 && Number.isFinite(event.sensitivity / event.scale) ? event : undefined;
    case 'discrete-gaussian':
      // Its atoms are summed one by one: up to 2^20 of them (38 standard deviations each side,
      // sigma up to 13797), a second or two per grid; beyond, the Renyi route.
      return event.variance > 0 && event.sensitivity >= 1 && Number.isFinite(event.sensitivity) && 76 * Math.sqrt(event.variance) <= 2 ** 20
        ? event
        : undefined;
    case 'close':
      return basePair(event.event); // its slack is added by the accountant (accountant.ts)
    default:
      return undefined;
  }
}

/** A base pair's wasm kind and parameters: mu or epsilon; the discrete Laplace's scale and sensitivity (in steps). */
function wasmPair(base: BasePair): [kind: number, parameter: number, extra: number] {
  switch (base.type) {
    case 'gaussian':
      return [KIND.gaussian, base.mu, 0];
    case 'discrete-laplace':
      return [KIND[base.type], base.scale, base.sensitivity];
    case 'discrete-gaussian':
      return [KIND[base.type], base.variance, base.sensitivity];
    default:
      return [KIND[base.type], base.epsilon, 0];
  }
}

/** The events this method can account for exactly. */
export function pldSupports(event: Event): boolean {
  switch (event.type) {
    case 'poisson':
      return basePair(event.event) !== undefined;
    case 'allocation':
      return allocated(event) !== undefined;
    case 'composed':
      return event.events.some(([, times]) => times > 0) && event.events.every(([e, times]) => times === 0 || pldSupports(e));
    default:
      return basePair(event) !== undefined;
  }
}

/**
 * Whether every base pair of the event is Gaussian: its losses have a density, and the connect-the-dots
 * error falls as h^2; atoms (Laplace, randomized response, the discrete pairs) and random
 * allocation's rounded sums make it fall as h.
 */
export function smoothLoss(event: Event): boolean {
  if (event.type === 'poisson') return basePair(event.event)?.type === 'gaussian';
  if (event.type === 'composed') return event.events.every(([e, times]) => times === 0 || smoothLoss(e));
  return basePair(event)?.type === 'gaussian';
}

/** Whether both directions of add/remove neighbours give the same distribution (no subsampling inside). */
function symmetric(event: Event): boolean {
  if (event.type === 'poisson' || event.type === 'allocation') return false;
  if (event.type === 'composed') return event.events.every(([e]) => symmetric(e));
  return true;
}

/** ln(1 - q + q e^x): a loss x of the base pair on a Poisson-subsampled batch (remove direction). */
function subsampledLoss(w: WasmExports, q: number, x: number): number {
  return w.log(1 + q * w.expm1(x));
}

/** The range of losses, [lo, hi], that carries the mass of a base pair (subsampled at rate q, in a direction). */
function lossRange(w: WasmExports, base: BasePair, q: number, direction: Direction, spread: number): [number, number] {
  let lo: number;
  let hi: number;
  if (base.type === 'gaussian') {
    const mu = base.mu;
    // The loss is N(mu^2/2, mu^2) under the first law, N(-mu^2/2, mu^2) under the second. The
    // subsampled remove pair's first law (1 - q) Q + q P has mass under both; the add pair's is Q.
    const half = (mu * mu) / 2;
    lo = (q >= 1 ? half : -half) - spread * mu;
    hi = (direction === ADD && q < 1 ? -half : half) + spread * mu;
  } else if (base.type === 'discrete-gaussian') {
    // Atoms within `spread` standard deviations of either mean: losses (d^2 + 2 d x)/2v up to that, rounded up.
    const d = base.sensitivity;
    const e = roundUp((d * d + 2 * d * spread * Math.sqrt(base.variance)) / (2 * base.variance));
    lo = -e;
    hi = e;
  } else {
    // The largest loss, rounded up (the discrete Laplace's d / t past the division's rounding).
    const e = base.type === 'discrete-laplace' ? roundUp(base.sensitivity / base.scale) : base.epsilon;
    lo = -e;
    hi = e;
  }
  if (q >= 1) return [lo, hi];
  if (direction === REMOVE) return [subsampledLoss(w, q, lo), subsampledLoss(w, q, hi)];
  return [-subsampledLoss(w, q, hi), -subsampledLoss(w, q, lo)];
}

/**
 * The subsampling transforms at the grid points (assembly/accounting/pld.ts, subsampledGrid) for
 * one grid step, computed once per rate and direction over the widest range asked so far: the
 * releases of a composition differ in their noise, not in these.
 */
class SubsampledGrids {
  private readonly grids = new Map<string, { lower: number; losses: Float64Array; factors: Float64Array; directs: Float64Array }>();
  constructor(private readonly h: number) {}

  /** The transforms at the n grid points from `lower` on. */
  at(w: WasmExports, rate: number, direction: Direction, lower: number, n: number): [losses: Float64Array, factors: Float64Array, directs: Float64Array] {
    const key = `${rate} ${direction}`;
    let grid = this.grids.get(key);
    if (!grid || lower < grid.lower || lower + n > grid.lower + grid.losses.length) {
      // The widest range asked so far, unless that spans more than MAX_LENGTH (ranges far apart): then this one's.
      const wide = grid && Math.max(lower + n, grid.lower + grid.losses.length) - Math.min(lower, grid.lower) <= MAX_LENGTH ? grid : undefined;
      const from = wide ? Math.min(lower, wide.lower) : lower;
      const length = (wide ? Math.max(lower + n, wide.lower + wide.losses.length) : lower + n) - from;
      grid = inArena(w, 24 * length, (at) => {
        w.subsampledGrid(rate, direction, from, this.h, length, at, at + 8 * length, at + 16 * length);
        return {
          lower: from,
          losses: f64(w, at, length).slice(),
          factors: f64(w, at + 8 * length, length).slice(),
          directs: f64(w, at + 16 * length, length).slice(),
        };
      });
      this.grids.set(key, grid);
    }
    const start = lower - grid.lower;
    return [grid.losses.subarray(start, start + n), grid.factors.subarray(start, start + n), grid.directs.subarray(start, start + n)];
  }
}

/** The grid points (lower, n) of step h that cover the losses [lo, hi]. */
function gridRange(lo: number, hi: number, h: number): [lower: number, n: number] {
  const lower = Math.floor(lo / h);
  const n = Math.max(2, Math.ceil(hi / h) - lower + 1);
  if (!(n <= MAX_LENGTH)) throw tooLong(n); // NaN too: a range that overflowed
  return [lower, n];
}

/**
 * The connect-the-dots distributions of a base pair on a Poisson-subsampled batch (q = 1: none) on
 * the grids h, h/2, ..., h/2^(levels - 1), each on its own range (gridRange): the pair's curve is
 * evaluated once, on the finest grid over all the ranges (a coarser grid's points are every other
 * point of the next, exactly: h is a power of two or the only level), so each distribution is the
 * one a build on its grid alone gives, bit for bit.
 */
function basePmfs(base: BasePair, q: number, direction: Direction, grids: SubsampledGrids, h: number, tail: number, levels: number): Pmf[] {
  const w = wasm();
  const [lo, hi] = lossRange(w, base, q, direction, spreadFor(w, tail));
  const ranges = Array.from({ length: levels }, (_, l) => gridRange(lo, hi, h / 2 ** l));
  // In the finest grid's indices: level l's point i is at (lower_l + i) 2^(levels - 1 - l).
  const stride = (l: number) => 2 ** (levels - 1 - l);
  const from = Math.min(...ranges.map(([lower], l) => lower * stride(l)));
  const count = Math.max(...ranges.map(([lower, n], l) => (lower + n - 1) * stride(l))) - from + 1;
  chargeShared(
    count,
    ranges.map(([, n]) => n),
  );
  const [kind, parameter, extra] = wasmPair(base);
  const transforms = grids.at(w, q, direction, from, count);
  return inArena(w, 8 * (4 * count + Math.max(...ranges.map(([, n]) => 2 * n))), (at) => {
    transforms.forEach((values, k) => {
      f64(w, at + 8 * k * count, count).set(values);
    });
    const curve = at + 24 * count;
    w.gridDeltas(kind, parameter, extra, at, at + 8 * count, at + 16 * count, count, curve);
    const all = f64(w, curve, count);
    const deltas = curve + 8 * count;
    return ranges.map(([lower, n], l) => {
      const levelDeltas = f64(w, deltas, n);
      const step = stride(l);
      const start = lower * step - from;
      for (let i = 0; i < n; i++) levelDeltas[i] = all[start + i * step]!;
      const probs = deltas + 8 * n;
      const infinity = w.connectDots(h / 2 ** l, n, deltas, probs);
      return { lower, probs: f64(w, probs, n).slice(), infinity, error: 0, error1: 0 };
    });
  });
}

/** How an event's distribution (or floor pair) is built: from a base pair, from a random allocation, composed and repeated. */
interface Builders<T> {
  base(pair: BasePair, q: number, direction: Direction): T;
  allocation(mu: number, steps: number, direction: Direction): T;
  /** The composition of several. */
  all(items: T[]): T;
  self(x: T, times: number): T;
}

/** The Gaussian distance of a random allocation this method takes: of Gaussian releases, over 2 steps or more. */
function allocated(event: Extract<Event, { type: 'allocation' }>): number | undefined {
  return event.event.type === 'gaussian' && Number.isFinite(event.event.mu) && event.steps >= 2 ? event.event.mu : undefined;
}

/** An event in one direction, built by `builders`. */
function eventOf<T>(event: Event, direction: Direction, builders: Builders<T>): T {
  switch (event.type) {
    case 'poisson':
      return builders.base(basePair(event.event)!, event.rate, direction);
    case 'allocation':
      return builders.allocation(allocated(event)!, event.steps, direction);
    case 'composed':
      return builders.all(event.events.filter(([, times]) => times > 0).map(([child, times]) => builders.self(eventOf(child, direction, builders), times)));
    default: {
      const pair = basePair(event);
      if (!pair) throw new Error(`dpnoise: internal error: no privacy-loss distribution for a ${event.type} event.`);
      return builders.base(pair, 1, direction);
    }
  }
}

/** The directions of add/remove neighbours whose distributions differ: one when they are the same. */
export const directionsOf = (event: Event): Direction[] => (symmetric(event) ? [REMOVE] : [REMOVE, ADD]);

/** `one` in both directions of add/remove neighbours (once when they are the same). */
const bothDirections = <T>(event: Event, one: (direction: Direction) => T): T[] => directionsOf(event).map(one);

/**
 * The distribution of an event in one direction. `tail`: the mass each release's grid may leave
 * above its top for the infinite loss (a Gaussian loss's grid then spans fewer standard deviations);
 * 0 for the default, under 2e-19.
 */
export function eventPmf(event: Event, h: number, direction: Direction, tail = 0): Pmf {
  return eventPmfLevels(event, h, direction, tail, 1)[0]!;
}

/**
 * The distributions of an event in one direction on the grids h, h/2, ..., h/2^(levels - 1) (h a
 * power of two when levels > 1), each as eventPmf gives it, for about the work of the finest:
 * each release's curve is evaluated once (basePmfs).
 */
export function eventPmfLevels(event: Event, h: number, direction: Direction, tail: number, levels: number): Pmf[] {
  const grids = new SubsampledGrids(h / 2 ** (levels - 1));
  // Each level's work is charged to it (masses.ts, atLevel), as a build of that level alone would be.
  const each = (items: Pmf[][], f: (level: Pmf[]) => Pmf) => Array.from({ length: levels }, (_, l) => atLevel(l, () => f(items.map((item) => item[l]!))));
  return eventOf<Pmf[]>(event, direction, {
    base: (pair, q, dir) => basePmfs(pair, q, dir, grids, h, tail, levels),
    allocation: (mu, steps, dir) => Array.from({ length: levels }, (_, l) => atLevel(l, () => allocationPmf(mu, steps, dir, h / 2 ** l))),
    all: (items) => each(items, composeAll),
    self: (x, times) => x.map((pmf, l) => atLevel(l, () => selfCompose(pmf, times))),
  });
}

/** The distributions of an event in both directions (one when they are the same). */
export function eventPmfs(event: Event, h: number): Pmf[] {
  return bothDirections(event, (d) => eventPmf(event, h, d));
}

/** delta(epsilon) of a distribution, an upper bound. */
export function pmfDelta(pmf: Pmf, h: number, epsilon: number): number {
  return onPmf(pmf, (w, at, n) => w.pldDelta(at, n, pmf.lower, h, pmf.infinity + pmf.error1, 0, epsilon));
}

/** epsilon(delta) of a distribution, an upper bound. */
export function pmfEpsilon(pmf: Pmf, h: number, delta: number): number {
  return onPmf(pmf, (w, at, n) => w.pldEpsilon(at, n, pmf.lower, h, pmf.infinity + pmf.error1, 0, delta));
}

/** `f` on a distribution's masses in the module's memory (as onFloor for a floor pair). */
function onPmf(pmf: Pmf, f: (w: WasmExports, at: number, n: number) => number): number {
  const w = wasm();
  const n = pmf.probs.length;
  return inArena(w, 8 * n, (at) => {
    f64(w, at, n).set(pmf.probs);
    return f(w, at, n);
  });
}

/**
 * The floor masses of a base pair (subsampled at rate q, in a direction). `tail`, as for eventPmf:
 * the mass the grid may leave above its top; the masses beyond the grid are left out of every test
 * set, which only lowers the floor.
 */
function baseFloor(base: BasePair, q: number, direction: Direction, h: number, tail: number): FloorPair {
  const w = wasm();
  const [lo, hi] = lossRange(w, base, q, direction, spreadFor(w, tail));
  const lower = Math.floor(lo / h) - 1; // a bin below the lowest loss: bins are (l_k, l_k+1], and an atom may sit at lo
  const n = Math.max(2, Math.ceil(hi / h) - lower + 1);
  charge(n);
  const [kind, parameter, extra] = wasmPair(base);
  const tilt = Math.min(h / 2, 1); // e^tilt stays finite on the coarsest grids (assembly/accounting/pld.ts, floorBins)
  return inArena(w, 16 * n, (at) => {
    w.floorBins(kind, parameter, extra, q, direction, lower, h, tilt, n, at, at + 8 * n);
    const p = f64(w, at, n).slice();
    const tilted = f64(w, at + 8 * n, n).slice();
    // Each mass is within a few ulp of the true one (16 u covers the bin's and the tilt's roundings).
    return { lower, p, q: tilted, tilt, errorP: 16 * U * l1(p), errorQ: 16 * U * l1(tilted), relative: 16 * U };
  });
}

/** The floor pair of an event in one direction (`tail` as for eventPmf; 0 for the default grids). */
export function eventFloor(event: Event, h: number, direction: Direction, tail = 0): FloorPair {
  return eventOf(event, direction, {
    base: (pair, q, dir) => baseFloor(pair, q, dir, h, tail),
    allocation: (mu, steps, dir) => allocationFloor(mu, steps, dir, h),
    all: (items) => inTree(items, convolveFloor),
    self: (x, times) => powerFloor(x, times),
  });
}

/** The floor pairs of an event in both directions (one when they are the same). */
export function eventFloors(event: Event, h: number): FloorPair[] {
  return bothDirections(event, (d) => eventFloor(event, h, d));
}

/** A lower bound on delta(epsilon) from a floor pair. */
export function floorDelta(pair: FloorPair, h: number, epsilon: number): number {
  return onFloor(pair, (w, p, q, n) => w.floorDelta(p, q, n, pair.lower, h, pair.tilt, pair.errorP, pair.errorQ, epsilon));
}

/** A lower bound on epsilon(delta) from a floor pair, in one pass (-Infinity for none). */
export function floorEpsilon(pair: FloorPair, h: number, delta: number): number {
  return onFloor(pair, (w, p, q, n) => w.floorEpsilon(p, q, n, pair.lower, h, pair.tilt, pair.errorP, pair.errorQ, delta));
}

/** `f` on a floor pair's masses in the module's memory. */
function onFloor(pair: FloorPair, f: (w: WasmExports, p: number, q: number, n: number) => number): number {
  const w = wasm();
  const n = pair.p.length;
  return inArena(w, 16 * n, (at) => {
    f64(w, at, n).set(pair.p);
    f64(w, at + 8 * n, n).set(pair.q);
    return f(w, at, at + 8 * n, n);
  });
}
