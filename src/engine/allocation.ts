// Random allocation, "balls in bins" (Feldman & Shenfeld 2025; docs/accounting.md, "Random
// allocation"): each record takes part in exactly one of `steps` Gaussian releases, chosen
// uniformly at random. Per step i the loss of the output y_i is l_i = mu y_i - mu^2/2, which is
// B ~ N(mu^2/2, mu^2) at the record's step and D ~ N(-mu^2/2, mu^2) at every other step; without
// the record every l_i is D. The likelihood ratio of the whole output is S/t, S = sum e^(l_i): the
// remove direction's loss is ln(S/t) under the law with the record, the add direction's -ln(S/t)
// under the law without it. S is a sum of independent lognormal terms: each is put on a linear
// grid of step g, the sum is a power in the frequency domain (masses.ts), and each sum maps to its
// loss, rounded up to the loss grid.
import { wasm } from '../wasm/loader.js';
import { f64, inArena } from './arena.js';
import { WINDOW_TAIL } from './tails.js';
import {
  carriedError,
  charge,
  convolutionError,
  convolve,
  type Direction,
  type FloorPair,
  l1,
  type Pmf,
  REMOVE,
  selfCompose,
  TooLong,
  U,
  windowPower,
  convolveMasses,
} from './masses.js';

/**
 * Standard deviations of a lognormal term's exponent kept, the first whose grids fit (charge):
 * the normal tails beyond are 6.9e-19 (below 2^-60), 3.2e-14 and 4.0e-11. The tail a remove
 * term leaves goes to the infinite loss, so the wider the better; at small noise multipliers
 * (large mu, long lognormal tails) only the narrower ones fit.
 */
const SPREADS = [8.8, 7.5, 6.5];

/** `build` with the first spread whose grids fit: a distribution too long at every spread stays too long. */
function widestThatFits<T>(build: (spread: number) => T): T {
  for (const spread of SPREADS.slice(0, -1)) {
    try {
      return build(spread);
    } catch (error) {
      if (!(error instanceof TooLong)) throw error;
    }
  }
  return build(SPREADS[SPREADS.length - 1]!);
}
/** The grid of the sums, relative to the loss grid h: the terms' rounding moves the loss by at most g t / S. */
const SUM_STEP = 0.5;
/** Relative widening (or narrowing) of each bin of a term, far above the roundings of its ends (lognormalGrid). */
const WIDEN = 1e-12;
/**
 * The record's own term beyond this many times the top R_hi of the other terms' sum is mapped to
 * its loss directly: the loss moves by at most ln(1 + 1/DIRECT) there, on the term's mass above
 * DIRECT R_hi (R_hi is far out in the others' tail, so that mass is tiny: P(B > ln 2 R_hi)).
 */
const DIRECT = 2;
/**
 * For add, terms above this many times t are moved down to it: the loss -ln(S/t) only grows, and
 * stays below -ln 2, where one allocation's delta(eps >= 0) does not look.
 */
const ADD_CAP = 2;

/** A term's masses on the grid (lognormalGrid): bins 0 .. n - 1, the mass beyond, and an l1 bound on their roundings. */
function termMasses(mean: number, mu: number, g: number, n: number, up: boolean, widen: number) {
  charge(n);
  const w = wasm();
  return inArena(w, 8 * n, (at) => {
    const beyond = w.lognormalGrid(mean, mu, g, n, up, widen, at);
    const probs = f64(w, at, n).slice();
    return { probs, beyond, error: 16 * U * (l1(probs) + beyond) };
  });
}

/** How many grid steps cover a term e^D up to `spread` standard deviations of D, D ~ N(mean, mu^2). */
const termLength = (mean: number, mu: number, g: number, spread: number) => Math.ceil(Math.exp(mean + spread * mu) / g) + 2;

/** The loss bin, on the grid h, of a loss rounded up: a margin of 1e-6 bins covers the rounding of loss / h. */
const upBin = (loss: number, h: number) => Math.ceil(loss / h + 1e-6);

/** Masses filed under loss bins (integers), gathered into a distribution on the loss grid. */
function onLossGrid(ks: number[], ps: number[], infinity: number, error1: number): Pmf {
  let lower = Infinity;
  let upper = -Infinity;
  for (const k of ks) {
    lower = Math.min(lower, k);
    upper = Math.max(upper, k);
  }
  if (!(upper >= lower)) return { lower: 0, probs: new Float64Array(1), infinity: Math.min(1, infinity), error: error1, error1 };
  charge(upper - lower + 1);
  const probs = new Float64Array(upper - lower + 1);
  ks.forEach((k, i) => {
    probs[k - lower]! += ps[i]!;
  });
  // The l2 norm of the errors is at most their l1 norm.
  return { lower, probs, infinity: Math.min(1, infinity), error: error1, error1 };
}

/** Masses filed under loss bins as they come, then gathered (onLossGrid) with the filing's rounding. */
function filer() {
  const ks: number[] = [];
  const ps: number[] = [];
  // Sums come in order of their loss: runs filed under one bin are added up as they come, each
  // run's sum within (its length) u of its mass; `longest` is the longest run.
  let run = 0;
  let longest = 1;
  return {
    file(k: number, p: number): void {
      if (!(p > 0)) return;
      if (ks.length > 0 && ks[ks.length - 1] === k) {
        ps[ps.length - 1]! += p;
        longest = Math.max(longest, ++run);
      } else {
        ks.push(k);
        ps.push(p);
        run = 1;
      }
    },
    /** The distribution, its errors those of the sums plus the filing's (at most longest u times the mass filed). */
    done(infinity: number, error1: number): Pmf {
      return onLossGrid(ks, ps, infinity, error1 + 2 * U * longest * ps.reduce((a, b) => a + b, 0));
    },
  };
}

/**
 * The pessimistic distribution of the loss of `steps` (>= 2) allocated Gaussian releases at
 * distance mu, in a direction, on the loss grid h. Every bin of a term is widened (WIDEN): masses
 * counted twice where bins overlap only raise every delta.
 */
export function allocationPmf(mu: number, steps: number, direction: Direction, h: number): Pmf {
  return direction === REMOVE ? widestThatFits((spread) => removePmf(mu, steps, h, spread)) : addPmf(mu, steps, h);
}

/**
 * Remove: every term rounded up, so that the sum and the loss ln(S/t) only grow; the other terms
 * beyond `spread` go to infinity; the record's own term above DIRECT times the top R_hi of the
 * others' sum is mapped to ln((y + R_hi)/t) directly (their sum beyond R_hi is in its mass at
 * infinity), and beyond `spread` to infinity.
 */
function removePmf(mu: number, steps: number, h: number, spread: number): Pmf {
  const g = SUM_STEP * h;
  const m = (mu * mu) / 2;
  const out = filer();
  const other = termMasses(-m, mu, g, termLength(-m, mu, g, spread), true, WIDEN);
  const rest = selfCompose({ lower: 0, probs: other.probs, infinity: other.beyond, error: other.error, error1: other.error }, steps - 1);
  const top = (rest.lower + rest.probs.length - 1) * g;
  const n = Math.min(termLength(m, mu, g, spread), Math.ceil((DIRECT * top) / g) + 2);
  const own = termMasses(m, mu, g, n, true, WIDEN);
  const sum = convolve({ lower: 0, probs: own.probs, infinity: 0, error: own.error, error1: own.error }, rest);
  const lowest = Math.max(1, sum.lower); // a sum of 0 (rounding noise: every term is rounded up to g at least) counts as g
  for (let i = 0; i < sum.probs.length; i++) out.file(upBin(Math.log((Math.max(lowest, sum.lower + i) * g) / steps), h), sum.probs[i]!);
  // The record's term above the grid: loss at most ln((y + R_hi)/t), bin by bin up to `spread`.
  const w = wasm();
  const last = Math.exp(m + spread * mu);
  let y0 = (n - 1) * g;
  const first = upBin(Math.log((y0 + top) / steps), h);
  charge(upBin(Math.log((last + top) / steps), h) - first);
  for (let k = first; y0 < last; k++) {
    // The bin's top edge rounded down: a term just above it goes to the next bin.
    const y1 = Math.min(last, (steps * Math.exp(k * h) - top) * (1 - WIDEN));
    if (y1 > y0) {
      out.file(k, w.lognormalMass(m, mu, y0 * (1 - WIDEN), y1));
      y0 = y1;
    }
  }
  return out.done(sum.infinity + w.lognormalMass(m, mu, last * (1 - WIDEN), Infinity), sum.error1);
}

/**
 * Add: every term rounded down (the loss -ln(S/t) only grows), the tail beyond the widest spread
 * or ADD_CAP t moved down to the last bin, a sum of 0 an infinite loss; the sum is kept as its
 * negative, so that the tails the power cuts go the pessimistic way.
 */
function addPmf(mu: number, steps: number, h: number): Pmf {
  const g = SUM_STEP * h;
  const m = (mu * mu) / 2;
  const out = filer();
  const term = termMasses(-m, mu, g, Math.min(termLength(-m, mu, g, SPREADS[0]!), Math.ceil((ADD_CAP * steps) / g) + 2), false, WIDEN);
  // Negated: index -j for the term j g, the tail beyond the grid moved down onto its last bin.
  const n = term.probs.length;
  const negated = new Float64Array(n);
  for (let j = 0; j < n; j++) negated[n - 1 - j] = term.probs[j]!;
  negated[0]! += term.beyond;
  const sum = selfCompose({ lower: -(n - 1), probs: negated, infinity: 0, error: term.error, error1: term.error }, steps);
  let infinity = sum.infinity;
  sum.probs.forEach((p, i) => {
    const s = -(sum.lower + i) * g;
    if (s > 0) out.file(upBin(-Math.log(s / steps), h), p);
    else infinity += p;
  });
  return out.done(infinity, sum.error1);
}

/** A sum's masses on its window (index offset lo), with an l1 bound on their errors. */
interface Sum {
  readonly lo: number;
  readonly probs: Float64Array;
  readonly error: number;
}

/** `times` terms summed (windowPower): the wrapped tails and the inputs' carried errors in the bound. */
function sumOf(term: { probs: Float64Array; error: number }, times: number): Sum {
  const { lo, probs, above, fft } = windowPower(term.probs, times, term.error);
  return { lo, probs, error: fft + carriedError(times, l1(term.probs), term.error, term.error) + WINDOW_TAIL + above };
}

/** The record's term added to a sum of the others. */
function withTerm(own: { probs: Float64Array; error: number }, rest: Sum): Sum {
  const { masses, fft, N } = convolveMasses(own.probs, rest.probs);
  return { lo: rest.lo, probs: masses, error: convolutionError(Math.sqrt(N) * fft, own.error, l1(own.probs), rest.error, l1(rest.probs)) };
}

/** Losses beyond +-50 are filed at it: any filing of outcomes gives valid tests. */
const FLOOR_RANGE = 50;
/** The most the second law's errors, tilted, may weigh: 2^-30 (9.313225746154785e-10). */
const TILTED_ERROR = 2 ** -30;

/**
 * The floor pair of `steps` allocated Gaussian releases (docs/accounting.md, "Random allocation"):
 * the laws of a statistic of the output, T = the sum over steps of e^(l_i) rounded down to the
 * grid and capped at its last bin. By data processing, any set of T's values is a test between the
 * two neighbours, so P(A) - e^eps Q(A) for T's laws is a lower bound on delta(eps). The first
 * law's masses come from narrowed bins and the second's from widened ones (WIDEN), which only
 * lowers that bound. Each value of T is filed under its own loss, ln(p/q) rounded down, at most
 * the loss at which the second law's error bound, tilted, reaches TILTED_ERROR (tests at larger
 * losses are then coarser, never wrong), at least -FLOOR_RANGE; outcomes the first law never
 * gives are left out.
 */
export function allocationFloor(mu: number, steps: number, direction: Direction, h: number): FloorPair {
  return widestThatFits((spread) => floorAt(mu, steps, direction, h, spread));
}

/** allocationFloor with the terms capped at `spread` standard deviations of their exponent (the statistic's c). */
function floorAt(mu: number, steps: number, direction: Direction, h: number, spread: number): FloorPair {
  const g = SUM_STEP * h;
  const m = (mu * mu) / 2;
  const n = termLength(-m, mu, g, spread);
  const term = (mean: number, widen: number) => {
    const t = termMasses(mean, mu, g, n, false, widen);
    t.probs[n - 1]! += t.beyond; // capped: the tail is the last bin's
    return t;
  };
  const withRecord = (widen: number) => withTerm(term(m, widen), sumOf(term(-m, widen), steps - 1));
  const without = (widen: number) => sumOf(term(-m, widen), steps);
  const [p, q] = direction === REMOVE ? [withRecord(-WIDEN), without(WIDEN)] : [without(-WIDEN), withRecord(WIDEN)];
  const errorQ = q.error + 16 * U * l1(q.probs);
  const ceiling = Math.min(FLOOR_RANGE, Math.log(TILTED_ERROR / errorQ));
  const lowest = Math.min(p.lo, q.lo);
  const length = Math.max(p.lo + p.probs.length, q.lo + q.probs.length) - lowest;
  const ks = new Float64Array(length);
  let kmin = Infinity;
  let kmax = -Infinity;
  const mass = (x: Sum, s: number) => x.probs[s - x.lo] ?? 0;
  for (let i = 0; i < length; i++) {
    const s = lowest + i;
    const a = mass(p, s);
    if (!(a > 0)) continue;
    const b = mass(q, s);
    const loss = b > 0 ? Math.max(-FLOOR_RANGE, Math.min(ceiling, Math.log(a / b))) : ceiling;
    ks[i] = Math.floor(loss / h);
    kmin = Math.min(kmin, ks[i]!);
    kmax = Math.max(kmax, ks[i]!);
  }
  if (!(kmax >= kmin)) return { lower: 0, p: new Float64Array(1), q: new Float64Array(1), tilt: h / 2, errorP: p.error, errorQ: q.error };
  charge(kmax - kmin + 1);
  const intoP = new Float64Array(kmax - kmin + 1);
  const intoQ = new Float64Array(kmax - kmin + 1);
  for (let i = 0; i < length; i++) {
    const s = lowest + i;
    const a = mass(p, s);
    if (!(a > 0)) continue;
    const k = ks[i]!;
    intoP[k - kmin]! += a;
    // Tilted as floorBins' masses are: times e^(loss_k + h/2).
    intoQ[k - kmin]! += mass(q, s) * Math.exp(k * h + h / 2);
  }
  // Each tilt is at most e^(kmax h + h/2); the sums' own rounding is within 16 u of them.
  const tilted = errorQ * Math.exp(kmax * h + h / 2);
  return { lower: kmin, p: intoP, q: intoQ, tilt: h / 2, errorP: p.error + 16 * U * l1(p.probs), errorQ: tilted };
}
