// The discrete Gaussian pair of the privacy-loss distributions (docs/accounting.md, "Discrete
// Gaussian pair"): P = N_Z(0, v) against Q = N_Z(d, v) on the integers, P(x) = e^(-x^2 / 2v) / Z.
// The loss of atom x is L(x) = (d^2 - 2 d x) / 2v, decreasing in x; the pair is symmetric
// (x -> d - x swaps P and Q). Atoms beyond SPAN standard deviations weigh less than e^-722, below
// the smallest normal double, and are left out.
import { twoSumError } from "../math/summation";

/** The unit roundoff, 2^-53. */
const U: f64 = 1.1102230246251565e-16;
/** Standard deviations of atoms kept on each side: e^(-38^2/2) = e^-722 < 2^-1041. */
const SPAN: f64 = 38.0;
/** sqrt(2 pi) = 2.5066282746310002 (0x40040D931FF62705). */
const SQRT_2PI = reinterpret<f64>(0x40040D931FF62705);
/** An absolute margin for the atoms left out and for results near the smallest doubles: 2^-1000. */
const FLOOR: f64 = 9.332636185032189e-302;

/** The atoms kept: -span(v) .. span(v) + d. */
// @ts-ignore: decorator
@inline function span(v: f64): f64 {
  return Math.ceil(SPAN * Math.sqrt(v));
}

/**
 * The last atom whose loss is above eps, taken generously: (d^2 - 2 v eps)/2d raised by 8 u
 * (|v eps|/d + d), more than its rounding, so an atom within rounding of eps is counted.
 */
// @ts-ignore: decorator
@inline function lastAbove(v: f64, d: f64, eps: f64): f64 {
  return Math.min(span(v) + d, Math.ceil((d * d - 2.0 * v * eps) / (2.0 * d) + 8.0 * U * (Math.abs(v * eps) / d + d)) - 1.0);
}

// @ts-ignore: decorator
@inline function weight(x: f64, v: f64): f64 {
  return Math.exp(-(x * x) / (2.0 * v));
}

/** The last variance the normalizer was computed for, and the normalizer. */
let normFor: f64 = NaN;
let norm: f64 = 0.0;

/**
 * Z = sum over the integers of e^(-x^2 / 2v): by Poisson summation sqrt(2 pi v) (1 + 2 sum_k e^(-2 pi^2 k^2 v)),
 * which is sqrt(2 pi v) to double precision for v >= 9 (e^(-2 pi^2 9) < 2^-256); summed directly below.
 */
function normalizer(v: f64): f64 {
  if (v == normFor) return norm;
  let z: f64;
  if (v >= 9.0) z = SQRT_2PI * Math.sqrt(v);
  else {
    const k = span(v);
    z = 0.0;
    for (let x = k; x >= 1.0; x -= 1.0) z += 2.0 * weight(x, v); // from the tails in: small terms first
    z += 1.0;
  }
  normFor = v;
  norm = z;
  return z;
}

/** The Q-mass of the last bin discreteGaussianBin summed. */
let binQ: f64 = 0.0;
export function lastQ(): f64 {
  return binQ;
}

/**
 * The P-mass (returned) and the Q-mass (lastQ) of the atoms whose loss lies in (y0, y1] (in
 * [y0, y1) with `leftClosed`): x in [(d^2 - 2 v y1)/2d, (d^2 - 2 v y0)/2d), the ends rounded by
 * the same formula at a shared edge, so that bins part the atoms.
 */
export function discreteGaussianBin(v: f64, d: f64, y0: f64, y1: f64, leftClosed: bool): f64 {
  const k = span(v);
  const from = (d * d - 2.0 * v * y1) / (2.0 * d);
  const to = (d * d - 2.0 * v * y0) / (2.0 * d);
  const a = Math.max(-k, leftClosed ? Math.floor(from) + 1.0 : Math.ceil(from));
  const b = Math.min(k + d, leftClosed ? Math.floor(to) : Math.ceil(to) - 1.0);
  let p: f64 = 0.0;
  let q: f64 = 0.0;
  for (let x = a; x <= b; x += 1.0) {
    p += weight(x, v);
    q += weight(x - d, v);
  }
  const z = normalizer(v);
  binQ = q / z;
  return p / z;
}

/**
 * delta(eps) of the pair, raised by its rounding: the sum over the atoms with loss above eps
 * (x <= m, m taken generously: an atom within rounding of eps adds nothing, as its term is
 * clamped at 0) of P(x) (1 - e^(eps - L(x))), terms >= 0, for any real eps. Each term's relative
 * error is within (4 + |x^2/2v| + 4 (|eps| + |L|)) u (the exponentials' arguments are rounded),
 * the sum's within (count + 4) u, and the atoms left out weigh less than FLOOR.
 */
export function discreteGaussianDelta(v: f64, d: f64, eps: f64): f64 {
  const k = span(v);
  const m = lastAbove(v, d, eps);
  let sum: f64 = 0.0;
  let error: f64 = 0.0;
  for (let x = -k; x <= m; x += 1.0) {
    const loss = (d * d - 2.0 * d * x) / (2.0 * v);
    const term = weight(x, v) * Math.max(0.0, -Math.expm1(eps - loss));
    sum += term;
    error += term * (4.0 + (x * x) / (2.0 * v) + 4.0 * (Math.abs(eps) + Math.abs(loss)));
  }
  const z = normalizer(v);
  const count = Math.max(0.0, m + k + 1.0);
  return Math.min(1.0, (sum * (1.0 + (count + 8.0) * U) + 2.0 * U * error) / z + FLOOR);
}

/**
 * deltas[i] = delta(eps[i]) for i < n, the eps ascending (-Infinity and Infinity allowed; `deltas`
 * may be `eps`), in one sweep: with the atoms x <= m_i (loss above eps_i) summed from the left in
 * compensated sums A and B of P and Q, delta_i = A - e^eps_i B, raised by what the roundings can
 * hide: 8 u (A + e^eps_i B) for the sums and the subtraction, 2 u (A' + e^eps_i B') for the
 * weights (A' and B' the sums of each weight times 2 + |its exponent|, the exponentials'
 * arguments being rounded), 16 u (|eps| + 1 + d^2/v) A for an atom counted generously (its loss
 * within rounding of eps), and FLOOR.
 */
export function discreteGaussianDeltas(v: f64, d: f64, eps: usize, n: i32, deltas: usize): void {
  const z = normalizer(v);
  let ah: f64 = 0.0;
  let al: f64 = 0.0;
  let bh: f64 = 0.0;
  let bl: f64 = 0.0;
  let ea: f64 = 0.0;
  let eb: f64 = 0.0;
  let x = -span(v);
  for (let i = n - 1; i >= 0; i--) {
    const e0 = load<f64>(eps + (<usize>i << 3));
    if (e0 == Infinity) {
      store<f64>(deltas + (<usize>i << 3), 0.0); // no loss exceeds it
      continue;
    }
    const m = lastAbove(v, d, e0);
    for (; x <= m; x += 1.0) {
      const yp = (x * x) / (2.0 * v);
      const yq = ((x - d) * (x - d)) / (2.0 * v);
      const p = Math.exp(-yp);
      const q = Math.exp(-yq);
      const s = ah + p;
      al += twoSumError(ah, p, s);
      ah = s;
      const t = bh + q;
      bl += twoSumError(bh, q, t);
      bh = t;
      ea += p * (2.0 + yp);
      eb += q * (2.0 + yq);
    }
    const a = (ah + al) / z;
    const b = (bh + bl) / z;
    const e = Math.exp(e0);
    // An atom counted generously has a loss at most 8 u (|eps| + d^2/v) below eps (the threshold's
    // margin times 2d/2v), so its negative part is at most that times its P-mass, which is in A.
    const margin = 8.0 * U * (a + e * b) + (2.0 * U * (ea + e * eb)) / z + 16.0 * U * (Math.min(Math.abs(e0), 1e300) + 1.0 + (d * d) / v) * a + FLOOR;
    store<f64>(deltas + (<usize>i << 3), Math.min(1.0, Math.max(0.0, a - e * b + margin)));
  }
}
