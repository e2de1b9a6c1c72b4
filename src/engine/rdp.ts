// The Renyi-DP accountant (docs/rdp.md): an upper bound on the RDP curve eps(alpha) of an event
// tree (events.ts), and its conversion to (epsilon, delta)-DP. The subsampled-Gaussian formulas,
// the default orders and the conversions are ported from dp_accounting's rdp_privacy_accountant.py
// (Apache 2.0; github.com/google/differential-privacy, python/dp_accounting), so the figures match
// dp_accounting's RdpAccountant; on top of the port every value is an upper bound: each is
// computed with a bound on its rounding error added (docs/rdp.md, "Rounding"). Events that
// dp_accounting does not support get bounds from their own RDP curves (docs/rdp.md, "Subsampling").
//
// Every exp, log and expm1 is the WebAssembly module's, so every engine computes the same bits.
import { powerOfTwoBelow, roundUp } from '../core/rounding.js';
import { exp, expm1, log as ln } from '../math/elementary.js';
import { log1p } from '../math/log1p.js';
import { LogBinomial, logAdd, logExpm1, logSubSign, softplus, U, up, upperLogSum } from '../math/log-bounds.js';
import { wasm } from '../wasm/loader.js';
import type { Event } from './events.js';

/**
 * dp_accounting's DEFAULT_RDP_ORDERS: 1.1, 1.2, ..., 10.9 (as 1 + x/10 in doubles), 11, 12, ..., 63,
 * 128, 256, 512, 1024.
 */
export const RDP_ORDERS: readonly number[] = Object.freeze([
  ...Array.from({ length: 99 }, (_, x) => 1 + (x + 1) / 10),
  ...Array.from({ length: 53 }, (_, k) => 11 + k),
  128,
  256,
  512,
  1024,
]);

/**
 * The orders of the Renyi route the accountant computes alongside its own figures (accounting/privacy.ts),
 * which only wins near the accountant's error floor (docs/accounting.md, "Composition by FFT",
 * paragraph "Where the bound gives out"): 20 orders spread as dp_accounting's 156 are, for about
 * a fifth of the work.
 */
export const FALLBACK_ORDERS: readonly number[] = Object.freeze([1.25, 1.5, 1.75, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128, 256]);

/** Mantissa bits a Gaussian's mu keeps in the fallback route's event (coarsened). */
const FALLBACK_BITS = 8;

/**
 * The event for the fallback route: every Gaussian's mu rounded up to 8 significant bits (by at
 * most 2^-8 relative) and equal parts of a composition merged. Its Renyi curve is at least the
 * event's (a Gaussian pair at a larger mu dominates one at a smaller mu, subsampled or not: the
 * smaller is a post-processing of the larger), and a noise schedule of 1000 different steps
 * becomes about a hundred.
 */
export function coarsened(event: Event): Event {
  switch (event.type) {
    case 'gaussian': {
      const { mu } = event;
      if (!(mu > 0 && Number.isFinite(mu))) return event;
      const unit = powerOfTwoBelow(mu) * 2 ** -FALLBACK_BITS; // a power of two: mu / unit is exact
      return { type: 'gaussian', mu: Math.ceil(mu / unit) * unit };
    }
    case 'poisson':
      return { ...event, event: coarsened(event.event) };
    case 'composed': {
      const parts = new Map<string, [Event, number]>();
      for (const [child, times] of event.events) {
        const part = coarsened(child);
        const key = JSON.stringify(part);
        parts.set(key, [part, (parts.get(key)?.[1] ?? 0) + times]);
      }
      return { type: 'composed', events: [...parts.values()] };
    }
    default:
      return event;
  }
}

const LN2 = Math.LN2; // "the Number value for" ln 2 (ECMAScript): the nearest double, the same on every engine
/** dp_accounting's _MAX_STEPS_LOG_A_FRAC. */
const MAX_FRAC_STEPS = 1000;
/** dp_accounting's max_alpha of _compute_rdp_sample_wor_gaussian_int: beyond it the forward differences are replaced by the general bound. */
const WOR_EXACT_MAX = 256;
/**
 * The largest order at which the sums over i = 0..alpha of the subsampling bounds are formed (they
 * take O(alpha) terms, and a nested subsampled event O(alpha^2)); beyond it only the
 * joint-convexity bound (or, for the Gaussian, its own RDP) is used, which holds at every order.
 */
const MAX_SUM_ORDER = 4096;

// ---------------------------------------------------------------------------------------------
// Elementary functions (WebAssembly) and safe rounding.
// ---------------------------------------------------------------------------------------------

/** A bound on |d log Q(x) / dx| = 1 / M(x): below (x + sqrt(x^2 + 4)) / 2 <= x + 1 for x >= 0, and 2 phi(x) <= e^(-x^2/2) for x < 0 (Q(x) > 1/2). */
function logQSlope(x: number): number {
  return x >= 0 ? x + 1 : Math.min(1, exp((-x * x) / 2));
}

/** Scratch arrays for the terms of a log-sum (never more than a few thousand terms per order). */
let scratchL = new Float64Array(2048);
let scratchE = new Float64Array(2048);
function scratch(n: number): [Float64Array, Float64Array] {
  if (scratchL.length < n) {
    scratchL = new Float64Array(n);
    scratchE = new Float64Array(n);
  }
  return [scratchL, scratchE];
}

// ---------------------------------------------------------------------------------------------
// Mechanisms without sampling.
// ---------------------------------------------------------------------------------------------

/** Gaussian noise at distance mu: alpha mu^2 / 2 (exactly; rounded up). */
function gaussianRdp(mu: number, alpha: number): number {
  if (mu === 0) return 0;
  if (alpha === Infinity) return Infinity;
  return up((alpha * (mu * mu)) / 2); // up keeps an underflowing mu^2 positive
}

/**
 * An eps-DP mechanism: the Renyi divergence of binary randomized response, which every eps-DP
 * pair is a post-processing of (Kairouz, Oh & Viswanath 2015), hence also below min(eps,
 * alpha eps^2 / 2) (docs/rdp.md, "Pure DP"):
 *   eps + log1p(expm1(-2 (alpha - 1) eps) / (1 + e^eps)) / (alpha - 1),
 * plus 2^-47 eps (its rounding error, as for the Laplace formula).
 */
function pureRdp(epsilon: number, alpha: number): number {
  if (epsilon === 0) return 0;
  if (alpha === Infinity || epsilon === Infinity) return epsilon;
  const c = expm1(-2 * (alpha - 1) * epsilon) / (1 + exp(epsilon));
  const value = epsilon + log1p(c) / (alpha - 1) + 2 ** -47 * epsilon;
  return Math.min(up(value), up((alpha * epsilon * epsilon) / 2), epsilon);
}

/**
 * Laplace noise with sensitivity / scale = eps (Mironov 2017, Proposition 6), ported from
 * dp_accounting's _laplace_rdp:
 *   eps + log1p((alpha - 1) expm1((1 - 2 alpha) eps) / (2 alpha - 1)) / (alpha - 1),
 * plus 2^-47 eps (its rounding error is below 13 u eps; docs/rdp.md, "Laplace"), and at most
 * the pure bounds eps and alpha eps^2 / 2.
 */
function laplaceRdp(epsilon: number, alpha: number): number {
  if (epsilon === 0) return 0;
  if (alpha === Infinity || epsilon === Infinity) return epsilon;
  const c = ((alpha - 1) * expm1((1 - 2 * alpha) * epsilon)) / (2 * alpha - 1);
  const value = epsilon + log1p(c) / (alpha - 1) + 2 ** -47 * epsilon;
  return Math.min(up(value), up((alpha * epsilon * epsilon) / 2), epsilon);
}

/**
 * Discrete Laplace noise, P(y) proportional to r^|y| with r = e^(-1/scale), shifted by an integer
 * d = sensitivity (docs/rdp.md, "Discrete Laplace"): with eps0 = d / scale and s = r^(2 alpha - 1),
 *   eps(alpha) = eps0 + log(B) / (alpha - 1),
 *   B = (1 + s^d + (1 - r)(s - s^d) / (1 - s)) / (1 + r),
 * exactly; plus its rounding bound, and at most the pure bound of eps0.
 */
function discreteLaplaceRdp(scale: number, sensitivity: number, alpha: number): number {
  const epsilon0 = sensitivity / scale;
  if (epsilon0 === 0) return 0;
  const pure = pureRdp(up(epsilon0), alpha);
  if (alpha === Infinity || !(epsilon0 < Infinity) || !Number.isInteger(sensitivity)) return pure;
  const inv = 1 / scale;
  const k = 2 * alpha - 1;
  const oneMinusR = -expm1(-inv); // 1 - r
  const onePlusR = 1 + exp(-inv);
  const s = exp(-k * inv);
  const sd = exp(-k * epsilon0); // s^d
  const middle = sensitivity === 1 ? 0 : (oneMinusR * s * -expm1(-k * (sensitivity - 1) * inv)) / -expm1(-k * inv);
  const logB = ln((1 + sd + middle) / onePlusR);
  const value = epsilon0 + logB / (alpha - 1) + 2 ** -46 * (epsilon0 + 1 / (alpha - 1));
  return Math.min(up(value), pure);
}

// ---------------------------------------------------------------------------------------------
// The Poisson-subsampled Gaussian (Mironov, Talwar & Zhang 2019), ported from dp_accounting's
// _compute_log_a_int and _compute_log_a_frac. mu = 1 / sigma; (i^2 - i) / (2 sigma^2) is
// (i^2 - i) mu^2 / 2.
// ---------------------------------------------------------------------------------------------

/**
 * Integer alpha >= 2. dp_accounting sums A = sum_i C(alpha, i) q^i (1 - q)^(alpha - i)
 * e^((i^2 - i) mu^2 / 2); since the binomial weights sum to 1, A - 1 is the same sum with
 * e^(...) - 1, whose terms are all >= 0 (i >= 2): log A = log1p(A - 1) keeps full relative
 * accuracy where A is near 1 (docs/rdp.md, "Poisson-subsampled Gaussian").
 */
function sampledGaussianInt(q: number, mu: number, alpha: number): number {
  const logQ = ln(q);
  const log1mQ = log1p(-q);
  const halfMu2 = (mu * mu) / 2;
  const [L, E] = scratch(alpha);
  const c = new LogBinomial(alpha);
  c.next();
  let n = 0;
  for (let i = 2; i <= alpha; i++) {
    c.next();
    const quad = (i * i - i) * halfMu2;
    const le = logExpm1(quad);
    const a = i * logQ;
    const b = (alpha - i) * log1mQ;
    L[n] = c.value + a + b + le;
    E[n] = c.error + 6 * U * (Math.abs(c.value) + Math.abs(a) + Math.abs(b) + quad + Math.abs(le));
    n++;
  }
  return up(softplus(upperLogSum(L, E, n)) / (alpha - 1));
}

/**
 * Fractional alpha: dp_accounting's series over i = 0, 1, ... of the two halves of A split at
 * z0 = sigma^2 log(1/q - 1) + 1/2, stopped when both terms decrease and are e^-30 below the
 * total. Like dp_accounting's, it adds |C(alpha, i)|: beyond alpha the coefficients alternate in
 * sign and the terms decrease, so once the sum has passed i = ceil(alpha) + 1 (the first negative
 * coefficient; required here as well) the truncated sum of absolute values is at least A
 * (docs/rdp.md, "Poisson-subsampled Gaussian"); a series that has not converged after 1000 terms
 * is therefore still a bound (dp_accounting drops the order).
 */
function sampledGaussianFrac(q: number, mu: number, alpha: number): number {
  const w = wasm();
  const mu2 = mu * mu;
  const halfMu2 = mu2 / 2;
  const logQ = ln(q);
  const log1mQ = log1p(-q);
  const lq = ln(1 / q - 1);
  const z0 = lq / mu2 + 0.5;
  // The absolute error of z0: the rounding of 1/q - 1 (relative u / (1 - q)), of the log and the division.
  const errZ0 = 2 * U * (Math.abs(z0) + (Math.abs(lq) + 1 / (1 - q)) / mu2 + 1);
  const [L, E] = scratch(2 * MAX_FRAC_STEPS);
  const c = new LogBinomial(alpha);
  let a0 = -Infinity;
  let a1 = -Infinity;
  let last0 = -Infinity;
  let last1 = -Infinity;
  let n = 0;
  for (let i = 0; i < MAX_FRAC_STEPS; i++) {
    if (i > 0) c.next();
    const j = alpha - i;
    const x0 = (i - z0) * mu;
    const x1 = (z0 - j) * mu;
    const e0 = w.normalLogSf(x0);
    const e1 = w.normalLogSf(x1);
    const q0 = (i * i - i) * halfMu2;
    const q1 = (j * j - j) * halfMu2;
    const s0 = c.value + i * logQ + j * log1mQ + q0 + e0;
    const s1 = c.value + j * logQ + i * log1mQ + q1 + e1;
    // Each part of s0 and s1 is within a few ulp of itself (c.error for log C); x0 and x1 carry the
    // error of z0 and two roundings, which moves log Q by at most logQSlope times as much.
    const dx0 = mu * (errZ0 + U * Math.abs(i - z0)) + U * Math.abs(x0);
    const dx1 = mu * (errZ0 + U * Math.abs(z0 - j)) + U * Math.abs(x1);
    L[n] = s0;
    E[n++] = c.error + 6 * U * (Math.abs(c.value) + Math.abs(i * logQ) + Math.abs(j * log1mQ) + q0 + Math.abs(e0)) + logQSlope(x0) * dx0;
    L[n] = s1;
    E[n++] = c.error + 6 * U * (Math.abs(c.value) + Math.abs(j * logQ) + Math.abs(i * log1mQ) + Math.abs(q1) + Math.abs(e1)) + logQSlope(x1) * dx1;
    a0 = logAdd(a0, s0);
    a1 = logAdd(a1, s1);
    const total = logAdd(a0, a1);
    if (s0 < last0 && s1 < last1 && Math.max(s0, s1) < total - 30 && i > alpha + 1) break;
    last0 = s0;
    last1 = s1;
  }
  return up(Math.max(0, upperLogSum(L, E, n)) / (alpha - 1));
}

/** dp_accounting's _compute_rdp_poisson_subsampled_gaussian at one order. */
function sampledGaussianRdp(q: number, mu: number, alpha: number): number {
  if (q === 0 || mu === 0) return 0;
  // Where mu^2 underflows, the Gaussian's own (tiny, positive) bound, which subsampling cannot exceed.
  if (q >= 1 || mu * mu === 0) return gaussianRdp(mu, alpha);
  if (alpha === Infinity || mu * mu === Infinity) return Infinity;
  if (Number.isInteger(alpha)) return alpha > MAX_SUM_ORDER ? gaussianRdp(mu, alpha) : sampledGaussianInt(q, mu, alpha);
  // The series needs its 1000 terms to pass ceil(alpha) + 1; beyond (dp_accounting: inf), the Gaussian's own bound.
  return alpha + 1 < MAX_FRAC_STEPS - 1 ? sampledGaussianFrac(q, mu, alpha) : gaussianRdp(mu, alpha);
}

// ---------------------------------------------------------------------------------------------
// Sampling without replacement, replace-one neighbours (Wang, Balle & Kasiviswanathan 2019),
// ported from dp_accounting's _compute_rdp_sample_wor_gaussian_int and _get_forward_diffs.
// ---------------------------------------------------------------------------------------------

/**
 * dp_accounting's _get_forward_diffs(cgf, n): log |Delta^(k+1) f(-1)| for k = 0..n+1, where
 * f(x) = e^cgf(x) on x = -1, 0, 1, ... (f(-1) = 1) and cgf(x) = x (x + 1) mu^2 / 2.
 */
function forwardDiffs(mu: number, n: number): Float64Array {
  const halfMu2 = (mu * mu) / 2;
  const vec = new Float64Array(n + 3);
  const signs: boolean[] = new Array<boolean>(n + 3).fill(true);
  for (let i = 1; i < n + 3; i++) vec[i] = (i - 1) * i * halfMu2; // cgf(i - 1)
  const deltas = new Float64Array(n + 2);
  for (let i = 0; i < n + 2; i++) {
    const m = n + 2 - i;
    for (let j = 0; j < m; j++) {
      if (signs[j] === signs[j + 1]) {
        const [sign, magnitude] = logSubSign(vec[j + 1]!, vec[j]!);
        vec[j] = magnitude;
        signs[j] = signs[j + 1] ? sign : !sign;
      } else {
        vec[j] = logAdd(vec[j]!, vec[j + 1]!);
        signs[j] = signs[j + 1]!;
      }
    }
    deltas[i] = vec[0]!;
  }
  return deltas;
}

/** The forward differences up to order 256, per mu (each difference depends only on the values before it, not on how many are computed). */
const diffCache = new Map<number, Float64Array>();
function diffsFor(mu: number): Float64Array {
  let d = diffCache.get(mu);
  if (!d) {
    d = forwardDiffs(mu, WOR_EXACT_MAX);
    if (diffCache.size >= 64) diffCache.clear();
    diffCache.set(mu, d);
  }
  return d;
}

/**
 * log A_alpha for integer alpha >= 2 by WBK19 Theorem 27 (alpha <= 256) or Theorem 9 (above),
 * as dp_accounting computes it: A = 1 + sum_{i >= 2} q^i C(alpha, i) T_i with
 * T_2 = min(4 (e^(mu^2) - 1), 2 e^(mu^2)) and T_i = min(4 sqrt(Delta_lo Delta_hi), 2 e^cgf(i - 1))
 * (Theorem 27) or 2 e^cgf(i - 1) (Theorem 9); summed as log(A - 1), then log A = log1p(A - 1).
 */
function withoutReplacementLogA(q: number, mu: number, alpha: number): number {
  if (alpha === 1) return 0;
  const mu2 = mu * mu;
  const halfMu2 = mu2 / 2;
  const logQ = ln(q);
  const logF2m1 = mu2 + ln(-expm1(-mu2)); // log(e^(mu^2) - 1)
  const deltas = alpha <= WOR_EXACT_MAX ? diffsFor(mu) : undefined;
  const [L, E] = scratch(alpha);
  let n = 0;
  const c = new LogBinomial(alpha);
  c.next();
  for (let i = 2; i <= alpha; i++) {
    c.next();
    let t: number;
    if (i === 2) t = Math.min(2 * LN2 + logF2m1, mu2 + LN2);
    else {
      const cgf = (i - 1) * i * halfMu2;
      t = LN2 + cgf;
      if (deltas) t = Math.min(2 * LN2 + 0.5 * (deltas[2 * Math.floor(i / 2) - 1]! + deltas[2 * Math.ceil(i / 2) - 1]!), t);
    }
    const a = i * logQ;
    L[n] = t + a + c.value;
    E[n++] = c.error + 6 * U * (Math.abs(t) + Math.abs(a) + Math.abs(c.value));
  }
  return softplus(upperLogSum(L, E, n)) * (1 + 4 * U);
}

/** dp_accounting's _compute_rdp_sample_wor_gaussian_scalar (fractional orders: WBK19 Corollary 10, interpolating the CGF). */
function withoutReplacementGaussianRdp(q: number, mu: number, alpha: number): number {
  if (q === 0 || mu === 0) return 0;
  if (q >= 1 || mu * mu === 0) return gaussianRdp(mu, alpha);
  if (alpha === Infinity || mu * mu === Infinity) return Infinity;
  if (alpha > MAX_SUM_ORDER) return gaussianRdp(mu, alpha); // (the caller also takes the joint-convexity bound)
  if (Number.isInteger(alpha)) return up(withoutReplacementLogA(q, mu, alpha) / (alpha - 1));
  if (alpha < 2) return up(withoutReplacementLogA(q, mu, 2)); // t K(2) / (alpha - 1) with t = alpha - 1
  const lo = Math.floor(alpha);
  const t = alpha - lo;
  const x = withoutReplacementLogA(q, mu, lo);
  const y = withoutReplacementLogA(q, mu, lo + 1);
  return up(((1 - t) * x + t * y) / (alpha - 1));
}

// ---------------------------------------------------------------------------------------------
// Any event evaluated along an order grid, with the values of nested events remembered.
// ---------------------------------------------------------------------------------------------

/** The distance of an equivalent single Gaussian mechanism when `event` is Gaussian noise only (composed Gaussians add mu^2), else undefined. */
function effectiveMu(event: Event): number | undefined {
  if (event.type === 'gaussian') return event.mu;
  if (event.type !== 'composed') return undefined;
  let sum = 0;
  for (const [e, times] of event.events) {
    const mu = effectiveMu(e);
    if (mu === undefined) return undefined;
    if (times !== 0 && mu !== 0) sum += times * (mu * mu);
  }
  return roundUp(Math.sqrt(sum * (1 + (event.events.length + 2) * U)));
}

class Evaluator {
  private readonly memo = new WeakMap<Event, Map<number, number>>();

  rdp(event: Event, alpha: number): number {
    let values = this.memo.get(event);
    if (!values) {
      values = new Map();
      this.memo.set(event, values);
    }
    let value = values.get(alpha);
    if (value === undefined) {
      value = this.compute(event, alpha);
      values.set(alpha, value);
    }
    return value;
  }

  private compute(event: Event, alpha: number): number {
    switch (event.type) {
      case 'gaussian':
        return gaussianRdp(event.mu, alpha);
      case 'laplace':
        return laplaceRdp(event.epsilon, alpha);
      case 'discrete-laplace':
        return discreteLaplaceRdp(event.scale, event.sensitivity, alpha);
      case 'discrete-gaussian':
        // Canonne, Kamath & Steinke 2020, Proposition 5: at most the continuous Gaussian's.
        if (event.sensitivity === 0 || event.variance === Infinity) return 0;
        if (alpha === Infinity) return Infinity;
        return up((alpha * (event.sensitivity * event.sensitivity)) / (2 * event.variance));
      case 'pure':
        return pureRdp(event.epsilon, alpha);
      case 'close':
        return this.rdp(event.fallback, alpha);
      case 'thresholded':
        return Infinity; // its delta has no Renyi bound
      case 'zcdp':
        if (event.rho === 0) return 0;
        return alpha === Infinity ? Infinity : up(alpha * event.rho);
      case 'poisson': {
        const q = event.rate;
        if (q === 0) return 0;
        if (q >= 1 || alpha === Infinity) return this.rdp(event.event, alpha);
        const mu = effectiveMu(event.event);
        if (mu !== undefined) return sampledGaussianRdp(q, mu, alpha);
        return this.subsampled(event.event, q, alpha, false);
      }
      case 'without-replacement': {
        const q = Math.min(1, (event.size / event.population) * (1 + U)); // m / n rounded up
        if (event.size === 0) return 0;
        if (q >= 1 || alpha === Infinity) return this.rdp(event.event, alpha);
        const mu = effectiveMu(event.event);
        if (mu !== undefined) return Math.min(withoutReplacementGaussianRdp(q, mu, alpha), this.trivial(event.event, q, alpha));
        return this.subsampled(event.event, q, alpha, true);
      }
      case 'allocation':
        // With Q fixed, e^((alpha - 1) D_alpha(P || Q)) is convex in P (and in Q with P fixed):
        // the mixture over the record's step is at most the release's own curve.
        return this.rdp(event.event, alpha);
      case 'composed': {
        let sum = 0;
        for (const [e, times] of event.events) {
          if (times === 0) continue;
          const r = this.rdp(e, alpha);
          if (r !== 0) sum += times * r; // (times may be Infinity)
        }
        return sum === 0 ? 0 : up(sum * (1 + event.events.length * U));
      }
    }
  }

  /**
   * The subsampled RDP of any event from the event's own curve: the integer-order bound
   * (Poisson: docs/rdp.md, "Poisson subsampling of any event"; without replacement: WBK19
   * Theorem 9), its CGF interpolated linearly between integer orders (the CGF is convex), and
   * at most the bound log(1 + gamma (e^((alpha - 1) eps(alpha)) - 1)) / (alpha - 1) at alpha
   * itself.
   */
  private subsampled(inner: Event, q: number, alpha: number, withoutReplacement: boolean): number {
    if (alpha > MAX_SUM_ORDER) return this.trivial(inner, q, alpha);
    const cgf = (k: number): number => (k === 1 ? 0 : withoutReplacement ? this.withoutReplacementCgf(inner, q, k) : this.poissonCgf(inner, q, k));
    let bound: number;
    if (Number.isInteger(alpha)) bound = cgf(alpha) / (alpha - 1);
    else if (alpha < 2)
      bound = cgf(2); // t cgf(2) / (alpha - 1) with t = alpha - 1
    else {
      const lo = Math.floor(alpha);
      const t = alpha - lo;
      bound = ((1 - t) * cgf(lo) + t * cgf(lo + 1)) / (alpha - 1);
    }
    return Math.min(up(bound), this.trivial(inner, q, alpha));
  }

  /** log(1 + gamma expm1((alpha - 1) eps(alpha))) / (alpha - 1), by joint convexity (docs/rdp.md, "Subsampling"). */
  private trivial(inner: Event, q: number, alpha: number): number {
    const r = this.rdp(inner, alpha);
    if (r === 0) return 0;
    if (r === Infinity) return Infinity;
    const k = (alpha - 1) * r;
    const lq = ln(q);
    const le = logExpm1(k);
    const value = softplus(lq + le);
    // softplus is 1-Lipschitz: the errors of log q and log expm1(k) (k rounded once) pass through, plus its own few ulp.
    return up((value + 2 * U * (k + Math.abs(le) + Math.abs(lq) + 2) + 4 * U * value) / (alpha - 1));
  }

  /** (l - 1) eps(l) of `inner` for l = 2..alpha (index l), or undefined when one is infinite. Computed before a caller takes the scratch arrays, which the inner evaluation may use. */
  private cgfs(inner: Event, alpha: number): Float64Array | undefined {
    const ks = new Float64Array(alpha + 1);
    for (let l = 2; l <= alpha; l++) {
      ks[l] = (l - 1) * this.rdp(inner, l);
      if (ks[l] === Infinity) return undefined;
    }
    return ks;
  }

  /**
   * An upper bound on the CGF (alpha - 1) eps'(alpha) of the Poisson-subsampled event at integer
   * alpha >= 2 (docs/rdp.md, "Poisson subsampling of any event"): the larger of
   *   A1 - 1 = sum_{l=2..alpha} C(alpha, l) (1-q)^(alpha-l) q^l (e^((l-1) eps(l)) - 1),
   *   A2 - 1 = C(alpha, 2) q^2 (e^eps(2) - 1) / (1 - q)
   *            + sum_{l=3..alpha} C(alpha, l) q^l (1-q)^(1-l) (1 + e^((l-1) eps(l))).
   */
  private poissonCgf(inner: Event, q: number, alpha: number): number {
    const ks = this.cgfs(inner, alpha);
    if (ks === undefined) return Infinity;
    const logQ = ln(q);
    const log1mQ = log1p(-q);
    const [L, E] = scratch(alpha);
    const c = new LogBinomial(alpha);
    c.next();
    let n1 = 0;
    for (let l = 2; l <= alpha; l++) {
      c.next();
      const k = ks[l]!;
      if (k === 0) continue;
      const le = logExpm1(k);
      const a = l * logQ;
      const b = (alpha - l) * log1mQ;
      L[n1] = c.value + a + b + le;
      E[n1++] = c.error + 6 * U * (Math.abs(c.value) + Math.abs(a) + Math.abs(b) + k + Math.abs(le));
    }
    const log1 = upperLogSum(L, E, n1);
    const d = new LogBinomial(alpha);
    d.next();
    let n2 = 0;
    for (let l = 2; l <= alpha; l++) {
      d.next();
      const k = ks[l]!;
      const a = l * logQ;
      const b = (l === 2 ? -1 : 1 - l) * log1mQ;
      const t = l === 2 ? (k === 0 ? -Infinity : logExpm1(k)) : softplus(k);
      L[n2] = d.value + a + b + t;
      E[n2++] = d.error + 6 * U * (Math.abs(d.value) + Math.abs(a) + Math.abs(b) + k + Math.abs(t));
    }
    const log2 = upperLogSum(L, E, n2);
    return up(softplus(Math.max(log1, log2)));
  }

  /**
   * WBK19 Theorem 9 with eps(infinity) unknown, the general bound dp_accounting uses for the
   * Gaussian beyond order 256: log A with A = 1 + C(alpha, 2) q^2 min(4 (e^eps(2) - 1), 2 e^eps(2))
   * + sum_{j=3..alpha} 2 C(alpha, j) q^j e^((j-1) eps(j)).
   */
  private withoutReplacementCgf(inner: Event, q: number, alpha: number): number {
    const ks = this.cgfs(inner, alpha);
    if (ks === undefined) return Infinity;
    const logQ = ln(q);
    const [L, E] = scratch(alpha);
    let n = 0;
    const c = new LogBinomial(alpha);
    c.next();
    for (let j = 2; j <= alpha; j++) {
      c.next();
      const k = ks[j]!;
      const t = j === 2 ? Math.min(2 * LN2 + (k === 0 ? -Infinity : logExpm1(k)), k + LN2) : LN2 + k;
      const a = j * logQ;
      L[n] = c.value + a + t;
      E[n++] = c.error + 6 * U * (Math.abs(c.value) + Math.abs(a) + Math.abs(t));
    }
    return up(softplus(upperLogSum(L, E, n)));
  }
}

// ---------------------------------------------------------------------------------------------
// The API.
// ---------------------------------------------------------------------------------------------

/**
 * An upper bound on the RDP epsilon of `event` at order alpha > 1 (Infinity when unbounded, and
 * at alpha = Infinity the pure-DP epsilon, or Infinity).
 */
export function rdp(event: Event, alpha: number): number {
  if (!(alpha > 1)) throw new RangeError(`dpnoise: internal error: RDP order ${alpha} is not > 1.`);
  return new Evaluator().rdp(event, alpha);
}

/** rdp(event, alpha) at every order (nested events evaluated once per order). */
export function rdpCurve(event: Event, orders: readonly number[] = RDP_ORDERS): Float64Array {
  const evaluator = new Evaluator();
  return Float64Array.from(orders, (alpha) => {
    if (!(alpha > 1)) throw new RangeError(`dpnoise: internal error: RDP order ${alpha} is not > 1.`);
    return evaluator.rdp(event, alpha);
  });
}

/**
 * The epsilon at `delta` from the RDP curve, as dp_accounting's compute_epsilon (Canonne, Kamath &
 * Steinke 2020, Proposition 12; Asoodeh et al. 2020): the smallest over the orders of
 *   eps(alpha) + log((alpha - 1) / alpha) - log(delta alpha) / (alpha - 1)      (alpha > 1.01),
 * or 0 when delta^2 > 1 - e^-eps(alpha) (the KL bound); each with its rounding bound added, and the
 * minimum rounded up. `order` is the order attaining it (0 when delta = 0, as dp_accounting).
 */
export function rdpEpsilon(event: Event, delta: number, orders: readonly number[] = RDP_ORDERS): { epsilon: number; order: number } {
  return curveEpsilon(rdpCurve(event, orders), orders, delta);
}

/** rdpEpsilon from a curve already computed at `orders`. */
export function curveEpsilon(curve: Float64Array, orders: readonly number[], delta: number): { epsilon: number; order: number } {
  if (delta === 0) return { epsilon: curve.every((r) => r === 0) ? 0 : Infinity, order: 0 };
  let best = Infinity;
  let order = orders[0] ?? 0;
  for (let i = 0; i < orders.length; i++) {
    const a = orders[i]!;
    const r = curve[i]!;
    let epsilon: number;
    if (delta * delta * (1 - 2 ** -50) > -expm1(-r) * (1 + 2 ** -50)) epsilon = 0;
    else if (a === Infinity) epsilon = r;
    else if (a > 1.01) {
      const l1 = ln((a - 1) / a);
      const l2 = ln(delta * a) / (a - 1);
      epsilon = r + l1 - l2 + 2 ** -49 * (r + Math.abs(l1) + Math.abs(l2) + 1 / (a - 1) + 1);
    } else epsilon = Infinity;
    if (epsilon < best) {
      best = epsilon;
      order = a;
    }
  }
  return { epsilon: best === Infinity ? Infinity : roundUp(Math.max(0, best)), order };
}

/**
 * The delta at `epsilon` from the RDP curve, as dp_accounting's compute_delta (Canonne, Kamath &
 * Steinke 2020, Proposition 12): the smallest over the orders of the smaller of
 * sqrt(1 - e^-eps(alpha)) (the KL bound) and (for alpha > 1.01)
 *   exp((alpha - 1)(eps(alpha) - epsilon + log((alpha - 1) / alpha)) - log alpha),
 * each with its rounding bound added; rounded up, and at most 1.
 */
export function rdpDelta(event: Event, epsilon: number, orders: readonly number[] = RDP_ORDERS): number {
  return curveDelta(rdpCurve(event, orders), orders, epsilon);
}

/** rdpDelta from a curve already computed at `orders`. */
export function curveDelta(curve: Float64Array, orders: readonly number[], epsilon: number): number {
  let best = Infinity;
  for (let i = 0; i < orders.length; i++) {
    const a = orders[i]!;
    const r = curve[i]!;
    let logDelta: number;
    if (r === 0) logDelta = -Infinity;
    else {
      const kl = ln(-expm1(-r));
      logDelta = 0.5 * kl + U * (Math.abs(kl) + 3);
    }
    if (a === Infinity) {
      if (r <= epsilon) logDelta = -Infinity;
    } else if (a > 1.01) {
      const l1 = ln((a - 1) / a);
      const la = ln(a);
      const bound = (a - 1) * (r - epsilon + l1) - la;
      logDelta = Math.min(logDelta, bound + 2 ** -49 * ((a - 1) * (r + epsilon + Math.abs(l1)) + la + 1));
    }
    if (logDelta < best) best = logDelta;
  }
  return best === -Infinity ? 0 : Math.min(1, up(exp(best))); // a positive bound stays positive
}
