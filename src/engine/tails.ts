// Chernoff bounds on the tails of a sum of independent grid losses (docs/accounting.md, "Powers in
// the frequency domain"): where a composition of distributions (each repeated some times) keeps all
// but a given mass, and how much mass lies above a point. They choose the window of the circular
// convolution in pld.ts; only the upper bound on the mass above the window affects a reported
// figure (it goes to infinity), so that one is rounded up.
import { wasm } from '../wasm/loader.js';
import { f64, inArena } from './arena.js';

/** The unit roundoff 2^-53. */
const U = 2 ** -53;
/** The exponents t tried, per grid step: 2^(k/2) for k = -40..16, from about 1e-6 to 256. */
const RATES = Array.from({ length: 57 }, (_, k) => 2 ** ((k - 40) / 2));

/** One part of a sum: `times` indices drawn independently from the masses x (plus an l1 error e1). */
export interface TailPart {
  readonly x: Float64Array;
  readonly times: number;
  readonly e1: number;
}

/** Chernoff bounds on the sum S of the parts' indices. */
export interface SumTails {
  /** The window [lo, hi] outside which each tail holds at most `tail`. */
  window(tail: number): { lo: number; hi: number };
  /** An upper bound on P(S >= c) (0 when c is past S's largest index). */
  above(c: number): number;
}

/** Beyond this many masses times RATES, the rates are searched in two stages (sideOf). */
const RATE_WORK = 2 ** 22;
/** The mass each tail of a composition may leave outside its window (masses.ts): 2^-60. The two-stage search narrows the window for it. */
export const WINDOW_TAIL = 2 ** -60;
/** The first stage's stride through RATES. */
const STRIDE = 4;

/** One side of the Chernoff bounds: rates t > 0, and at each the sum of times ln M(t) (upper tail) or times ln M(-t) (lower tail). */
interface Side {
  readonly rates: readonly number[];
  readonly logs: readonly number[];
}

/**
 * A side's rates and moments: all of RATES for short parts; for long ones (a composition of many
 * distinct releases, where each rate costs a pass over all their masses) every 4th rate, then the
 * three on each side of the one whose window end for a tail of 2^-60 is nearest: any rate gives a
 * valid bound, the best ones a narrow window.
 */
function sideOf(parts: readonly TailPart[], sign: 1 | -1): Side {
  const length = parts.reduce((sum, { x }) => sum + x.length, 0);
  const at = (indices: number[]) => {
    const rates = indices.map((k) => RATES[k]!);
    return {
      rates,
      logs: moments(
        parts,
        rates.map((t) => sign * t),
      ),
    };
  };
  if (length * RATES.length <= RATE_WORK) return at(RATES.map((_, k) => k));
  const coarse = at(RATES.map((_, k) => k).filter((k) => k % STRIDE === 0));
  let best = 0;
  const end = (k: number) => (coarse.logs[k]! - Math.log(WINDOW_TAIL)) / coarse.rates[k]!;
  for (let k = 1; k < coarse.rates.length; k++) if (end(k) < end(best)) best = k;
  const fine = at([-3, -2, -1, 1, 2, 3].map((d) => STRIDE * best + d).filter((k) => k >= 0 && k < RATES.length));
  return { rates: [...coarse.rates, ...fine.rates], logs: [...coarse.logs, ...fine.logs] };
}

/**
 * sum over the parts of times ln M(t) at each rate t (one sign), each ln M an upper bound
 * (assembly/accounting/moments.ts), the sum raised by its own rounding, (parts + 1) u times the
 * sum of the magnitudes.
 */
function moments(parts: readonly TailPart[], rates: readonly number[]): number[] {
  const w = wasm();
  const count = rates.length;
  const sums = new Float64Array(count);
  const magnitudes = new Float64Array(count);
  const longest = parts.reduce((most, { x }) => Math.max(most, x.length), 0); // no spread: there may be 1e5 parts
  inArena(w, 8 * (longest + 2 * count), (at) => {
    const ratesAt = at + 8 * longest;
    const out = ratesAt + 8 * count;
    f64(w, ratesAt, count).set(rates);
    for (const { x, times, e1 } of parts) {
      f64(w, at, x.length).set(x);
      w.logMoments(at, x.length, e1, ratesAt, count, out);
      f64(w, out, count).forEach((value, k) => {
        sums[k]! += times * value;
        magnitudes[k]! += Math.abs(times * value);
      });
    }
  });
  return Array.from(sums, (sum, k) => sum + (parts.length + 1) * U * magnitudes[k]!);
}

/**
 * The tails of the sum S of the parts' indices, from P(S >= c) <= e^(sum times ln M(t) - t c)
 * and P(S <= c) <= e^(sum times ln M(-t) + t c) for t > 0 (M the moment generating function of
 * a part's masses), at the best t tried (sideOf); the moments are computed once for every
 * question.
 */
export function sumTails(parts: readonly TailPart[]): SumTails {
  const top = parts.reduce((sum, { x, times }) => sum + times * (x.length - 1), 0);
  const up = sideOf(parts, 1);
  const down = sideOf(parts, -1);
  return {
    window(tail) {
      let lo = 0;
      let hi = top;
      up.rates.forEach((t, k) => {
        hi = Math.min(hi, Math.ceil((up.logs[k]! - Math.log(tail)) / t));
      });
      down.rates.forEach((t, k) => {
        lo = Math.max(lo, Math.floor((Math.log(tail) - down.logs[k]!) / t));
      });
      return lo <= hi ? { lo, hi } : { lo: 0, hi: top };
    },
    above(c) {
      if (c > top) return 0;
      const best = Math.min(...up.rates.map((t, k) => up.logs[k]! - t * c));
      // exp errs by an ulp or two; each exponent's own rounding is within its 2 (n + 2) u margin times `times`, added there.
      return Math.min(1, Math.exp(best + 1e-12 * Math.abs(best) + 1e-12) * (1 + 2 ** -50));
    },
  };
}
