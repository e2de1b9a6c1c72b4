// Tilted composition (docs/accounting.md, "Tilted composition"): a composition's distribution
// computed on masses weighted by e^(lambda loss), so that the FFT's rounding, which is relative to
// the largest masses, is relative to the tail that a small delta is read from. The composition
// of tilted masses is the tilted composition (e^(lambda (a + b)) = e^(lambda a) e^(lambda b)), so
// one power or product gives it; untilting multiplies each mass back by e^(log C - lambda loss),
// and the rounding bound with it, which is small where that factor is: above the cutoff loss.
import { roundUp } from '../core/rounding.js';
import type { Event } from './events.js';
import { charge, composeAll, convolveFloor, type FloorPair, inTree, l1, type Pmf, powerFloor, selfCompose, U } from './masses.js';
import { type Direction, eventFloor, eventPmf } from './pld.js';

/** The tilts tried: 2^(k/2) for k = -4..16, 0.25 to 256. */
const TILTS = Array.from({ length: 21 }, (_, k) => 2 ** ((k - 4) / 2));

/** ln sum_i masses_i e^(lambda (lower + i) h), from the largest term down so nothing overflows (-Infinity for no mass). */
function logMoment(masses: Float64Array, lower: number, h: number, lambda: number): number {
  const n = masses.length;
  charge(n); // every pass over masses is work the call's budget counts (masses.ts, MAX_WORK)
  const top = lambda * h * (lower + n - 1);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += masses[i]! * Math.exp(lambda * h * (lower + i) - top);
  return top + Math.log(sum);
}

/**
 * The masses times e^(lambda (lower + i) h - logM), and the bound on their roundings relative to
 * each: (8 + 4 (|exponents|)) u.
 */
function tiltMasses(masses: Float64Array, lower: number, h: number, lambda: number, logM: number): { tilted: Float64Array; relative: number } {
  const n = masses.length;
  charge(n);
  const tilted = new Float64Array(n);
  for (let i = 0; i < n; i++) tilted[i] = masses[i]! * Math.exp(lambda * h * (lower + i) - logM);
  const largest = Math.max(Math.abs(lambda * h * lower), Math.abs(lambda * h * (lower + n)));
  return { tilted, relative: (8 + 4 * (largest + Math.abs(logM))) * U };
}

/**
 * A distribution's masses tilted (tiltMasses), with the infinite loss left out (it composes apart);
 * as errors their roundings, and the errors x carries (from compositions within it) at the
 * largest factor.
 */
function tilted(x: Pmf, h: number, lambda: number, logM: number): Pmf {
  const { tilted: probs, relative } = tiltMasses(x.probs, x.lower, h, lambda, logM);
  let squares = 0;
  for (const p of probs) squares += p * p;
  const largest = Math.exp(lambda * h * (x.lower + x.probs.length) - logM) * (1 + 2 ** -40);
  return {
    lower: x.lower,
    probs,
    infinity: 0,
    error: roundUp(relative * Math.sqrt(squares) + x.error * largest),
    error1: roundUp(relative * l1(probs) + x.error1 * largest),
  };
}

/**
 * The tilt whose Chernoff factor at target, e^(sum times ln M(lambda) - lambda target), is the
 * smallest, if below 1 (`masses` and `lower` of each part: its P-masses), with each part's
 * ln M at it.
 */
function bestTilt(
  parts: ReadonlyArray<{ masses: Float64Array; lower: number; times: number }>,
  h: number,
  target: number,
): { lambda: number; logMs: number[] } | undefined {
  let best = 0;
  let chosen: { lambda: number; logMs: number[] } | undefined;
  for (const lambda of TILTS) {
    const logMs = parts.map(({ masses, lower }) => logMoment(masses, lower, h, lambda));
    const exponent = parts.reduce((sum, { times }, j) => sum + times * logMs[j]!, 0) - lambda * target;
    if (exponent < best) [best, chosen] = [exponent, { lambda, logMs }];
  }
  return chosen;
}

/** The index in masses from `lower` up (n of them) of the grid loss at most target, within them. */
const cutoffIndex = (lower: number, n: number, h: number, target: number) => Math.min(n - 1, Math.max(0, Math.floor(target / h) - lower));

/**
 * The distribution of a composed event in one direction, computed tilted towards `target` (a loss
 * below the answer sought; tiltedComposition); absent where the event is not a composition.
 */
export function tiltedPmf(event: Event, h: number, direction: Direction, tail: number, target: number): { pmf?: Pmf } {
  return event.type === 'composed'
    ? tiltedComposition(
        partsOf(event, (child) => eventPmf(child, h, direction, tail)),
        h,
        target,
      )
    : {};
}

/** A composition's parts, each built by `build` (its distribution or floor pair), with how many times it is composed. */
const partsOf = <T>(event: Extract<Event, { type: 'composed' }>, build: (child: Event) => T) =>
  event.events.filter(([, times]) => times > 0).map(([child, times]) => ({ x: build(child), times }));

/**
 * The composition of the parts (each x repeated `times` times) on grid h, computed tilted towards
 * `target`: above the largest grid loss at most target, each mass as the untilted composition has
 * it, with an error bound shrunk by e^(log C - lambda loss) there; all the other finite mass at
 * that loss (the most it can be: a larger loss only raises delta). `pmf` is absent where no tilt
 * shrinks the bound (the factor is not below 1 at target).
 */
export function tiltedComposition(parts: ReadonlyArray<{ x: Pmf; times: number }>, h: number, target: number): { pmf?: Pmf } {
  if (!(target > 0 && target < Infinity) || parts.length === 0) return {};
  const tilt = bestTilt(
    parts.map(({ x, times }) => ({ masses: x.probs, lower: x.lower, times })),
    h,
    target,
  );
  if (tilt === undefined) return {};
  const { lambda, logMs } = tilt;
  const powers = parts.map(({ x, times }, j) => selfCompose(tilted(x, h, lambda, logMs[j]!), times));
  // What a power moved to infinity (its window's upper tail and cut right tail) sits above its top,
  // but combined with the other parts not above the composition's: it is left out, and its mass
  // counts as error below. So, with several parts, does each power's first mass, which holds its
  // left tail moved up (masses.ts, cut) and below which its window's lost tail (2^-60) lies:
  // combined with the others those may land above the cutoff at too small a loss. Each counts at
  // most times the other parts' l1 norms, as a product carries an error.
  const wholes = powers.map((p) => l1(p.probs) + p.infinity + p.error1);
  const others = (j: number) => wholes.reduce((product, w, i) => (i === j ? product : product * w), 1);
  const lost = (p: Pmf) => p.infinity + (powers.length === 1 ? 0 : p.probs[0]! + 2 ** -60);
  const misplaced = powers.reduce((sum, p, j) => sum + lost(p) * others(j), 0);
  const composed = composeAll(powers.map((p) => ({ ...p, infinity: 0 })));
  let kept = 0; // ln of the probability that no release's loss is infinite
  let whole = 0; // ln of a bound on the untilted distributions' total mass
  parts.forEach(({ x, times }) => {
    kept += times * Math.log1p(-x.infinity);
    whole += times * Math.log(l1(x.probs) + x.infinity + x.error1);
  });
  const logC = parts.reduce((sum, { times }, j) => sum + times * logMs[j]!, 0);
  return {
    pmf: untilted(composed, h, lambda, logC, {
      infinity: -Math.expm1(kept),
      whole: Math.exp(whole),
      misplaced,
      target,
    }),
  };
}

/**
 * The tilted composition `c` multiplied back by e^(logC - lambda loss) above the cutoff (the grid
 * loss at most `target`, and at least c's first), each within the l1 error: c's error and the
 * misplaced mass times the factor at the first kept loss (the largest), and the roundings of the
 * factors. The rest of the mass `whole` lies at the cutoff, rounded up by that error so that it
 * holds at least what the masses kept may lack: it takes no part in a delta at the cutoff or
 * above, so the error a delta adds is that of the masses kept alone.
 */
function untilted(c: Pmf, h: number, lambda: number, logC: number, o: { infinity: number; whole: number; misplaced: number; target: number }): Pmf {
  const n = c.probs.length;
  charge(n);
  const cutoff = cutoffIndex(c.lower, n, h, o.target);
  const top = (c.lower + n) * h;
  const probs = new Float64Array(n - cutoff);
  let sum = 0;
  for (let i = cutoff + 1; i < n; i++) {
    probs[i - cutoff] = c.probs[i]! * Math.exp(logC - lambda * (c.lower + i) * h);
    sum += probs[i - cutoff]!;
  }
  // The tilted mass moved to infinity sits at top or above: at most its factor there.
  const infinity = Math.min(1, roundUp(roundUp(o.infinity) + c.infinity * Math.exp(logC - lambda * top) * (1 + 2 ** -40)));
  const factor = Math.exp(logC - lambda * (c.lower + cutoff + 1) * h) * (1 + 2 ** -40);
  const rounding = (8 + n + 4 * (Math.abs(logC) + lambda * Math.max(Math.abs(top), Math.abs((c.lower + cutoff) * h)))) * U * sum;
  const error1 = roundUp((c.error1 + o.misplaced) * factor + rounding);
  // More infinity than there is only moves mass up from the cutoff: the rest may be that much less.
  probs[0] = Math.max(0, roundUp(roundUp(o.whole) * (1 + 4 * U) + error1 - sum - infinity));
  return { lower: c.lower + cutoff, probs, infinity, error: error1, error1 };
}

/**
 * Where a floor's best test for epsilon starts: the bin K whose set of outcomes with losses at
 * or above it has the largest P-mass less e^epsilon times its Q-mass. The floor's losses are
 * rounded down, so this lies below epsilon itself, by about T h / 2.
 */
export function testStart(pair: FloorPair, h: number, epsilon: number): number {
  let [p, q, best, start] = [0, 0, Number.NEGATIVE_INFINITY, pair.lower + pair.p.length];
  for (let k = pair.p.length - 1; k >= 0; k--) {
    p += pair.p[k]!;
    q += pair.q[k]! * Math.exp(-(pair.lower + k) * h - pair.tilt);
    const gap = p - Math.exp(epsilon) * q;
    if (gap > best) [best, start] = [gap, pair.lower + k];
  }
  return start * h;
}

/**
 * The floor pair of a composed event in one direction, computed tilted towards `target` (a loss
 * below the lower end sought; tiltedFloorComposition); absent where the event is not a composition.
 */
export function tiltedFloor(event: Event, h: number, direction: Direction, tail: number, target: number): { pair?: FloorPair } {
  return event.type === 'composed'
    ? tiltedFloorComposition(
        partsOf(event, (child) => eventFloor(child, h, direction, tail)),
        h,
        target,
      )
    : {};
}

/**
 * The composition of floor pairs (docs/accounting.md, "Tilted composition"), each law tilted by
 * e^(lambda loss) before its power or product, and multiplied back from the bin at most `target`
 * up: the sets of outcomes whose losses reach at least that bin are tests as before, with the
 * errors of both laws shrunk by their factors there; the bins below are left out of every test.
 * `pair` is absent where no tilt shrinks the P-masses' factor below 1.
 */
export function tiltedFloorComposition(parts: ReadonlyArray<{ x: FloorPair; times: number }>, h: number, target: number): { pair?: FloorPair } {
  if (!Number.isFinite(target) || parts.length === 0) return {};
  const tilt = bestTilt(
    parts.map(({ x, times }) => ({ masses: x.p, lower: x.lower, times })),
    h,
    target,
  );
  if (tilt === undefined) return {};
  const { lambda } = tilt;
  let logP = 0;
  let logQ = 0;
  const pairs = parts.map(({ x, times }, j) => {
    const [mP, mQ] = [tilt.logMs[j]!, logMoment(x.q, x.lower, h, lambda)];
    logP += times * mP;
    logQ += times * mQ;
    const p = tiltMasses(x.p, x.lower, h, lambda, mP);
    const q = tiltMasses(x.q, x.lower, h, lambda, mQ);
    // An error relative to each mass stays so when tilted; any other, at most at the largest factor.
    const carried = (tilted: Float64Array, error: number, top: number) =>
      x.relative === undefined ? error * Math.exp(top) : x.relative * l1(tilted) * (1 + 2 ** -40);
    const pair: FloorPair = {
      lower: x.lower,
      p: p.tilted,
      q: q.tilted,
      tilt: x.tilt,
      errorP: roundUp(p.relative * l1(p.tilted) + carried(p.tilted, x.errorP, lambda * h * (x.lower + x.p.length) - mP)),
      errorQ: roundUp(q.relative * l1(q.tilted) + carried(q.tilted, x.errorQ, lambda * h * (x.lower + x.q.length) - mQ)),
    };
    return powerFloor(pair, times);
  });
  const c = inTree(pairs, convolveFloor);
  const n = c.p.length;
  charge(2 * n);
  const cutoff = cutoffIndex(c.lower, n, h, target);
  const top = (c.lower + n) * h;
  const p = new Float64Array(n - cutoff);
  const q = new Float64Array(n - cutoff);
  for (let i = cutoff; i < n; i++) {
    const loss = (c.lower + i) * h;
    p[i - cutoff] = c.p[i]! * Math.exp(logP - lambda * loss);
    q[i - cutoff] = c.q[i]! * Math.exp(logQ - lambda * loss);
  }
  // Each law's error at the bin of the cutoff, its largest factor; the factors' roundings relative to each mass.
  const at = (c.lower + cutoff) * h;
  const rounding = (8 + n + 4 * (Math.max(Math.abs(logP), Math.abs(logQ)) + lambda * Math.max(Math.abs(top), Math.abs(at)))) * U;
  return {
    pair: {
      lower: c.lower + cutoff,
      p,
      q,
      tilt: c.tilt,
      errorP: roundUp(c.errorP * Math.exp(logP - lambda * at) * (1 + 2 ** -40) + rounding * l1(p)),
      errorQ: roundUp(c.errorQ * Math.exp(logQ - lambda * at) * (1 + 2 ** -40) + rounding * l1(q)),
    },
  };
}
