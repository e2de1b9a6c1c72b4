// Chernoff bounds on the tails of a sum of independent grid losses (docs/accounting.md, "Powers in
// the frequency domain"): where the times-fold self-composition of a distribution keeps all but a
// given mass, and how much mass lies above a point. They choose the window of the circular
// convolution in pld.ts; only the upper bound on the mass above the window affects a reported
// figure (it goes to infinity), so that one is rounded up.

/** The unit roundoff 2^-53. */
const U = 2 ** -53;
/** The exponents t tried, per grid step: 2^(k/2) for k = -40..16, from about 1e-6 to 256. */
const RATES = Array.from({ length: 57 }, (_, k) => 2 ** ((k - 40) / 2));

/**
 * An upper bound on ln of sum_i (x_i + e_i) e^(t i), i in [0, n), for every error e >= 0 with
 * |e|_1 <= e1 (t > 0: the error's worst place is i = n - 1; t < 0: i = 0). The sum is taken
 * relative to its anchor, the last index with mass for t > 0 and the first for t < 0 (the array's
 * end when e1 > 0), by Horner's rule in r = e^(-|t|) <= 1 on terms >= 0: it errs by at most
 * 2 (n + 1) u relative, which is added, and terms that underflow lose less than n 2^-1074 in all.
 */
function logMoment(x: Float64Array, t: number, e1: number): number {
  const n = x.length;
  const r = Math.exp(-Math.abs(t));
  let acc = 0;
  let anchor: number;
  if (t > 0) {
    anchor = n - 1;
    if (e1 === 0) while (anchor > 0 && !(x[anchor]! > 0)) anchor--;
    for (let i = 0; i <= anchor; i++) acc = acc * r + x[i]!; // sum x_i r^(anchor - i)
  } else {
    anchor = 0;
    if (e1 === 0) while (anchor < n - 1 && !(x[anchor]! > 0)) anchor++;
    for (let i = n - 1; i >= anchor; i--) acc = acc * r + x[i]!; // sum x_i r^(i - anchor)
  }
  const shift = t * anchor;
  return shift + Math.log(acc + e1 + n * 2 ** -1074) + 2 * (n + 2) * U * (1 + Math.abs(shift));
}

/** Chernoff bounds on the sum S of `times` indices drawn from masses x (plus an l1 error e1). */
export interface SumTails {
  /** The window [lo, hi] outside which each tail holds at most `tail`. */
  window(tail: number): { lo: number; hi: number };
  /** An upper bound on P(S >= c) (0 when c is past S's largest index). */
  above(c: number): number;
}

/**
 * The tails of the sum of `times` indices drawn from the masses x (plus an l1 error e1), from
 * P(S >= c) <= e^(times ln M(t) - t c) and P(S <= c) <= e^(times ln M(-t) + t c) for t > 0, at
 * the best t of RATES; the moments are computed once for every question.
 */
export function sumTails(x: Float64Array, times: number, e1: number): SumTails {
  const top = times * (x.length - 1);
  const up = RATES.map((t) => times * logMoment(x, t, e1));
  const down = RATES.map((t) => times * logMoment(x, -t, e1));
  return {
    window(tail) {
      let lo = 0;
      let hi = top;
      RATES.forEach((t, k) => {
        hi = Math.min(hi, Math.ceil((up[k]! - Math.log(tail)) / t));
        lo = Math.max(lo, Math.floor((Math.log(tail) - down[k]!) / t));
      });
      return lo <= hi ? { lo, hi } : { lo: 0, hi: top };
    },
    above(c) {
      if (c > top) return 0;
      const best = Math.min(...RATES.map((t, k) => up[k]! - t * c));
      // exp errs by an ulp or two; the exponent's own rounding is within its 2 (n + 2) u margin times `times`, added there.
      return Math.min(1, Math.exp(best + 1e-12 * Math.abs(best) + 1e-12) * (1 + 2 ** -50));
    },
  };
}
