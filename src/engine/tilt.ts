// Tilted composition (docs/accounting.md, "Tilted composition"): a composition's distribution
// computed on masses weighted by e^(lambda loss), so that the FFT's rounding, which is relative to
// the largest masses, is relative to the tail that a small delta is read from. The composition
// of tilted masses is the tilted composition (e^(lambda (a + b)) = e^(lambda a) e^(lambda b)), so
// one power or product gives it; untilting multiplies each mass back by e^(log C - lambda loss),
// and the rounding bound with it, which is small where that factor is: above the cutoff loss.
import { roundUp } from '../core/rounding.js';
import type { Event } from './events.js';
import { composeAll, l1, type Pmf, selfCompose, U } from './masses.js';
import { type Direction, eventPmf } from './pld.js';

/** The tilts tried: 2^(k/2) for k = -4..16, 0.25 to 256. */
const TILTS = Array.from({ length: 21 }, (_, k) => 2 ** ((k - 4) / 2));

/** ln sum_i x_i e^(lambda loss_i), from the largest term down so nothing overflows (-Infinity for no finite mass). */
function logMoment(x: Pmf, h: number, lambda: number): number {
  const n = x.probs.length;
  const top = lambda * h * (x.lower + n - 1);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += x.probs[i]! * Math.exp(lambda * h * (x.lower + i) - top);
  return top + Math.log(sum);
}

/**
 * The masses x_i e^(lambda loss_i - logM), with the infinite loss left out (it composes apart),
 * and as errors their roundings: each within a relative (8 + 4 (|exponents|)) u.
 */
function tilted(x: Pmf, h: number, lambda: number, logM: number): Pmf {
  const n = x.probs.length;
  const probs = new Float64Array(n);
  for (let i = 0; i < n; i++) probs[i] = x.probs[i]! * Math.exp(lambda * h * (x.lower + i) - logM);
  const largest = Math.max(Math.abs(lambda * h * x.lower), Math.abs(lambda * h * (x.lower + n)));
  const relative = (8 + 4 * (largest + Math.abs(logM))) * U;
  let squares = 0;
  for (const p of probs) squares += p * p;
  return { lower: x.lower, probs, infinity: 0, error: roundUp(relative * Math.sqrt(squares)), error1: roundUp(relative * l1(probs)) };
}

/** The tilt of the list whose Chernoff factor C e^(-lambda target) = e^(sum times logM - lambda target) is the smallest, if below 1. */
function bestTilt(parts: ReadonlyArray<{ x: Pmf; times: number }>, h: number, target: number): number | undefined {
  let best = 0;
  let chosen: number | undefined;
  for (const lambda of TILTS) {
    const exponent = parts.reduce((sum, { x, times }) => sum + times * logMoment(x, h, lambda), 0) - lambda * target;
    if (exponent < best) [best, chosen] = [exponent, lambda];
  }
  return chosen;
}

/**
 * The distribution of a composed event in one direction, computed tilted towards `target` (a loss
 * below the answer sought; tiltedComposition); absent where the event is not a composition.
 */
export function tiltedPmf(event: Event, h: number, direction: Direction, tail: number, target: number): { pmf?: Pmf } {
  if (event.type !== 'composed') return {};
  return tiltedComposition(
    event.events.filter(([, times]) => times > 0).map(([child, times]) => ({ x: eventPmf(child, h, direction, tail), times })),
    h,
    target,
  );
}

/**
 * The composition of the parts (each x repeated `times` times) on grid h, computed tilted towards
 * `target`: above the largest grid loss at most target, each mass as the untilted composition has
 * it, with an error bound shrunk by e^(log C - lambda loss) there; all the other finite mass at
 * that loss (the most it can be: a larger loss only raises delta). `pmf` is absent where no tilt
 * shrinks the bound (the factor is not below 1 at target).
 */
export function tiltedComposition(parts: ReadonlyArray<{ x: Pmf; times: number }>, h: number, target: number): { pmf?: Pmf } {
  if (!(target > 0 && target < Infinity) || parts.length === 0) return {};
  const lambda = bestTilt(parts, h, target);
  if (lambda === undefined) return {};
  const logMs = parts.map(({ x }) => logMoment(x, h, lambda));
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
  let whole = 0; // ln of the untilted distributions' total mass
  parts.forEach(({ x, times }) => {
    kept += times * Math.log1p(-x.infinity);
    whole += times * Math.log(l1(x.probs) + x.infinity);
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
  const cutoff = Math.min(n - 1, Math.max(0, Math.floor(o.target / h) - c.lower));
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
