// Logarithms of sums and differences of exponentials, with directed rounding: each returns its
// value or an upper bound with its own rounding error added (docs/rdp.md, "Rounding"). Used by
// the RDP accountant (src/engine/rdp.ts), whose log-sums are ported from dp_accounting's
// rdp_privacy_accountant.py (Apache 2.0; github.com/google/differential-privacy,
// python/dp_accounting): _log_add and _log_sub_sign.
//
// Every exp, log and expm1 is the WebAssembly module's, so every engine computes the same bits.
import { roundUp } from '../core/rounding.js';
import { exp, expm1, log as ln } from './elementary.js';
import { log1p } from './log1p.js';

/** One ulp, 2^-52 (twice the unit roundoff): the unit of the error bounds below, which also cover functions accurate to 1 ulp. */
export const U = 2 ** -52;
/** Below this an upper bound gets an absolute 2^-1070 instead of the relative round-up (subnormal results round absolutely). */
export const TINY = 2 ** -1000;

/** log(e^x - 1) for x > 0, without overflow or cancellation. */
export function logExpm1(x: number): number {
  return x > 1 ? x + ln(-expm1(-x)) : ln(expm1(x));
}

/** log(1 + e^x). */
export function softplus(x: number): number {
  return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

/** log(e^x + e^y), dp_accounting's _log_add. */
export function logAdd(x: number, y: number): number {
  const a = Math.min(x, y);
  const b = Math.max(x, y);
  if (a === -Infinity) return b;
  return log1p(exp(a - b)) + b;
}

/** A computed upper bound x >= 0 moved past its last rounding (relative 2^-50, or absolute 2^-1070 where x is tiny). */
export function up(x: number): number {
  const y = Math.max(x, 0);
  return y >= TINY ? roundUp(y) : y + 2 ** -1070;
}

/**
 * An upper bound on log(sum_i e^L[i]) given |error of L[i]| <= E[i]: each term is raised by its
 * error and by the rounding of L[i] - max and of exp (an ulp each); the terms are summed with
 * Neumaier's compensation (relative error below 2u + n^2 u^2; Higham 2002, section 4.3), the log
 * is within an ulp, and the final addition within an ulp of each part.
 */
export function upperLogSum(L: ArrayLike<number>, E: ArrayLike<number>, n: number): number {
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (L[i]! > max) max = L[i]!;
  if (max === -Infinity || max === Infinity) return max;
  let sum = 0;
  let compensation = 0;
  for (let i = 0; i < n; i++) {
    const d = L[i]! - max;
    if (d === -Infinity) continue;
    const x = exp(d + E[i]! + U * (Math.abs(d) + 1));
    const t = sum + x;
    compensation += sum >= x ? sum - t + x : x - t + sum;
    sum = t;
  }
  const logSum = ln(sum + compensation);
  return max + logSum + (2 + n * n * U) * U + 2 * U * (Math.abs(max) + Math.abs(logSum));
}

/**
 * log C(alpha, i) (|C| for fractional alpha) for i = 0, 1, 2, ... by the recurrence
 * C(alpha, i) = C(alpha, i - 1) (alpha - i + 1) / i, with a running bound on its absolute error.
 * (dp_accounting takes differences of gammaln; this recurrence needs only log, and its error is
 * tracked.)
 */
export class LogBinomial {
  value = 0;
  error = 0;
  private i = 0;
  constructor(private readonly alpha: number) {}
  next(): void {
    this.i++;
    const term = ln(Math.abs(this.alpha - this.i + 1) / this.i);
    this.value += term;
    this.error += U * (1 + 2 * Math.abs(term) + Math.abs(this.value));
  }
}

/** log(e^x - e^y) and its sign, dp_accounting's _log_sub_sign (with log(-expm1(.)) for log1p(-exp(.))). */
export function logSubSign(x: number, y: number): [boolean, number] {
  if (x > y) return [true, x + ln(-expm1(y - x))];
  if (x < y) return [false, y + ln(-expm1(x - y))];
  return [true, -Infinity];
}
