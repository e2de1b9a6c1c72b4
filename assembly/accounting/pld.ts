// Privacy-loss distributions (docs/accounting.md, "Privacy-loss distributions"): the hockey-stick
// curves delta(eps) of the mechanisms the library accounts for, their pessimistic discretization
// on a grid of losses (connect the dots, Doroshenko et al. 2022, made certain by a check of every
// grid point), and delta(eps) and eps(delta) of a discretized distribution.
//
// A discretized distribution is the n doubles p_i at `probs` (the probability, under the first of
// the two neighbouring output laws, of loss (lower + i) h) and a mass at infinite loss.
import { normalLogSf, normalLogPdf, normalSf } from "../math/special";
import { twoSumError } from "../math/summation";
import { discreteGaussianBin, discreteGaussianDelta, discreteGaussianDeltas, lastQ } from "./discrete-gaussian";
import { gaussianDelta, GL_W1, GL_W2, GL_W3, GL_W4, GL_X1, GL_X2, GL_X3, GL_X4 } from "./profile"; // the 8-point Gauss-Legendre rule

/** Mechanism kinds of hockeyDelta. */
export const GAUSSIAN: i32 = 0;
export const LAPLACE: i32 = 1;
/** Randomized response, the worst pair of pure epsilon-DP (Kairouz, Oh & Viswanath 2015). */
export const PURE: i32 = 2;
/** Discrete Laplace noise of scale t (`parameter`) at an integer sensitivity d (`extra`). */
export const DISCRETE_LAPLACE: i32 = 3;
/** Discrete Gaussian noise of variance v (`parameter`) at an integer sensitivity d (`extra`): assembly/accounting/discrete-gaussian.ts. */
export const DISCRETE_GAUSSIAN: i32 = 4;
/** Directions of a Poisson-subsampled pair (add/remove neighbours). */
export const REMOVE: i32 = 0;
export const ADD: i32 = 1;

/** The unit roundoff, 2^-53. */
const U: f64 = 1.1102230246251565e-16;

/**
 * delta(eps) of the discrete Laplace pair, rounded up (docs/accounting.md, "Discrete Laplace"):
 * P = DLap(0, t), Q = DLap(d, t), P(x) proportional to r^|x| with r = e^(-1/t). The loss is d/t for
 * x <= 0, (d - 2x)/t for 0 < x < d and -d/t for x >= d; atom k in 0..d stands for those outputs.
 * For eps >= 0, the atoms k <= m have loss above eps, and
 * delta = [(1 - e^(eps - d/t)) + r (1 - r^m) (1 - e^(eps - (d - m - 1)/t))] / (1 + r), a sum of
 * terms >= 0 (no cancellation). m is taken generously (an atom whose loss is within rounding of
 * eps may be counted: it adds at most 2 (2 slack / t) of negative mass), and the result is raised
 * by that and by the arithmetic's rounding. The pair is symmetric (x -> d - x swaps P and Q).
 */
function discreteLaplaceDelta(t: f64, d: f64, eps: f64): f64 {
  if (eps < 0.0) return -Math.expm1(eps) + Math.exp(eps) * discreteLaplaceDelta(t, d, -eps);
  const slack = 8.0 * U * (eps * t + d);
  const m = Math.min(d - 1.0, Math.ceil(0.5 * (d - eps * t) + slack) - 1.0);
  if (m < 0.0) return 0.0; // every loss is below eps, by more than rounding
  const r = Math.exp(-1.0 / t);
  const top = -Math.expm1(eps - d / t);
  const inner = m < 1.0 ? 0.0 : r * -Math.expm1(-m / t) * -Math.expm1(eps - (d - m - 1.0) / t);
  const margin = 32.0 * U * (eps + d / t) + 16.0 * U;
  return Math.min(1.0, Math.max(0.0, (top + inner) / (1.0 + r)) + margin);
}

/** delta(eps) of the base mechanism for every real eps (symmetric: H(P, Q) = H(Q, P)). */
function baseDelta(kind: i32, parameter: f64, extra: f64, eps: f64): f64 {
  if (kind == DISCRETE_LAPLACE) return discreteLaplaceDelta(parameter, extra, eps);
  if (kind == DISCRETE_GAUSSIAN) return discreteGaussianDelta(parameter, extra, eps);
  if (kind == GAUSSIAN) {
    if (parameter == 0.0) return eps >= 0.0 ? 0.0 : -Math.expm1(eps);
    if (eps >= 0.0) return gaussianDelta(parameter, eps);
    // H_{e^eps}(P, Q) = 1 - e^eps + e^eps H_{e^-eps}(Q, P), and the Gaussian pair is symmetric.
    return -Math.expm1(eps) + Math.exp(eps) * gaussianDelta(parameter, -eps);
  }
  if (eps >= parameter) return 0.0;
  if (eps < -parameter) return -Math.expm1(eps);
  // Laplace with epsilon0 = sensitivity / scale: 1 - e^((eps - epsilon0) / 2) between -epsilon0 and epsilon0.
  if (kind == LAPLACE) return -Math.expm1(0.5 * (eps - parameter));
  // Randomized response: losses +-epsilon0 with masses e^epsilon0 / (1 + e^epsilon0) and 1 / (1 + e^epsilon0).
  return -Math.expm1(eps - parameter) / (1.0 + Math.exp(-parameter));
}

/**
 * delta(eps), rounded up, of a mechanism (`kind`, its parameter) on a Poisson-subsampled batch
 * (`rate` in (0, 1]; 1 for none), in the direction given (remove: the mixture against the base;
 * add: the base against the mixture; Balle, Barthe & Gaboardi 2018).
 */
export function hockeyDelta(kind: i32, parameter: f64, extra: f64, rate: f64, direction: i32, eps: f64): f64 {
  const base = baseLossAt(rate, direction, eps);
  return subsampled(isNaN(direct) ? baseDelta(kind, parameter, extra, base) : 0.0);
}

/** Set by baseLossAt: the factor of the base curve's value, or (not NaN) the answer without it. */
let factor: f64 = 1.0;
let direct: f64 = NaN;

/**
 * The base pair's eps at which a Poisson-subsampled pair's curve at eps reads the base curve
 * (ascending in eps), and its `factor` (Balle, Barthe & Gaboardi 2018). Remove, (1 - q) Q + q P
 * against Q: q H_{e^eps'}(P, Q) with e^eps' = 1 + (e^eps - 1)/q, or `direct` 1 - e^eps where
 * e^eps <= 1 - q (base loss -Infinity). Add, Q against (1 - q) Q + q P: a H_{e^eps''}(Q, P) with
 * a = 1 - (1 - q) e^eps and e^eps'' = q e^eps / a, or `direct` 0 where a <= 0 (base loss
 * Infinity). Rate 1: eps itself, factor 1.
 */
function baseLossAt(rate: f64, direction: i32, eps: f64): f64 {
  direct = NaN;
  factor = 1.0;
  if (rate >= 1.0) return eps;
  if (direction == REMOVE) {
    const m = Math.expm1(eps); // e^eps - 1
    if (m <= -rate) {
      direct = -m;
      return -Infinity;
    }
    factor = rate;
    return Math.log1p(m / rate);
  }
  const a = -Math.expm1(eps) + rate * Math.exp(eps);
  if (a <= 0.0) {
    direct = 0.0;
    return Infinity;
  }
  factor = a;
  return eps + Math.log(rate / a);
}

/** The subsampled pair's delta from the base curve's value at the last baseLossAt, capped at 1. */
// @ts-ignore: decorator
@inline function subsampled(base: f64): f64 {
  return Math.min(1.0, isNaN(direct) ? factor * base : direct);
}

/**
 * The subsampling transforms at the grid points (lower + i) h, i < n (baseLossAt): losses[i] the
 * base loss at which the pair's curve reads the base curve (ascending in i), factors[i] its factor,
 * and directs[i] the curve's value where it does not read it (NaN where it does). They depend on
 * the rate, the direction and the grid only, so releases of different noise share them.
 */
export function subsampledGrid(rate: f64, direction: i32, lower: f64, h: f64, n: i32, losses: usize, factors: usize, directs: usize): void {
  for (let i = 0; i < n; i++) {
    put(losses, i, baseLossAt(rate, direction, (lower + <f64>i) * h));
    put(factors, i, factor);
    put(directs, i, direct);
  }
}

/** deltas[i] = hockeyDelta at the grid points of subsampledGrid's transforms, i < n (`deltas` may be `losses`). */
export function gridDeltas(kind: i32, parameter: f64, extra: f64, losses: usize, factors: usize, directs: usize, n: i32, deltas: usize): void {
  // The discrete Gaussian's curve point by point costs a sum over its atoms: one sweep over the
  // ascending base losses instead.
  if (kind == DISCRETE_GAUSSIAN) discreteGaussianDeltas(parameter, extra, losses, n, deltas);
  for (let i = 0; i < n; i++) {
    const d = at(directs, i);
    if (!isNaN(d)) put(deltas, i, d);
    else {
      const base = kind == DISCRETE_GAUSSIAN ? at(deltas, i) : baseDelta(kind, parameter, extra, at(losses, i));
      put(deltas, i, Math.min(1.0, at(factors, i) * base));
    }
  }
}

// @ts-ignore: decorator
@inline function at(p: usize, i: i32): f64 {
  return load<f64>(p + (<usize>i << 3));
}
// @ts-ignore: decorator
@inline function put(p: usize, i: i32, x: f64): void {
  store<f64>(p + (<usize>i << 3), x);
}


// @ts-ignore: decorator
@inline function pdf(z: f64): f64 {
  return Math.exp(normalLogPdf(z));
}

// 4-point Gauss-Legendre rule on [-1, 1]: nodes and weights (symmetric pairs).
const GL4_X1 = reinterpret<f64>(0x3FD5C23FD9DD3DFC); // 0.3399810435848562648026658
const GL4_X2 = reinterpret<f64>(0x3FEB8E6DBCF63985); // 0.8611363115940525752239465
const GL4_W1 = reinterpret<f64>(0x3FE4DE5F840C24CA); // 0.6521451548625461426269361
const GL4_W2 = reinterpret<f64>(0x3FD64340F7E7B66B); // 0.3478548451374538573730639
/** The widest w max(1, |c| + w) on which the 4-point rule is used (its relative error there is below 2e-17). */
const GL4_SPAN: f64 = 0.05;

/**
 * P(z0 < Z <= z1) for a standard normal Z, to a few ulp: on a very narrow interval
 * (w max(1, |c| + w) <= 0.05 for the width w and the centre c) the 4-point Gauss-Legendre rule,
 * on a narrow one (|c| w <= 1 and w <= 1/2) the 8-point rule, whose errors there are far below an
 * ulp (docs/accounting.md, "The certified range"); otherwise a difference of tails that do not
 * cancel, Q(z0) (1 - Q(z1)/Q(z0)) by logarithms.
 */
export function normalMass(z0: f64, z1: f64): f64 {
  if (!(z1 > z0)) return 0.0;
  if (z0 == -Infinity) return normalSf(-z1);
  if (z1 == Infinity) return normalSf(z0);
  const w = z1 - z0;
  const c = 0.5 * (z0 + z1);
  if (w * Math.max(1.0, Math.abs(c) + w) <= GL4_SPAN) {
    const r = 0.5 * w;
    return r * (GL4_W1 * (pdf(c - r * GL4_X1) + pdf(c + r * GL4_X1)) + GL4_W2 * (pdf(c - r * GL4_X2) + pdf(c + r * GL4_X2)));
  }
  if (w <= 0.5 && Math.abs(c) * w <= 1.0) {
    const r = 0.5 * w;
    return r * (GL_W1 * (pdf(c - r * GL_X1) + pdf(c + r * GL_X1)) + GL_W2 * (pdf(c - r * GL_X2) + pdf(c + r * GL_X2)) +
      GL_W3 * (pdf(c - r * GL_X3) + pdf(c + r * GL_X3)) + GL_W4 * (pdf(c - r * GL_X4) + pdf(c + r * GL_X4)));
  }
  // A tail beyond the doubles (its log -Infinity) holds no mass: 0, not -Infinity - -Infinity.
  if (z0 >= 0.0) {
    const l0 = normalLogSf(z0);
    return l0 == -Infinity ? 0.0 : Math.exp(l0) * -Math.expm1(normalLogSf(z1) - l0);
  }
  if (z1 <= 0.0) {
    const l1 = normalLogSf(-z1);
    return l1 == -Infinity ? 0.0 : Math.exp(l1) * -Math.expm1(normalLogSf(-z0) - l1);
  }
  return 1.0 - normalSf(-z0) - normalSf(z1);
}

/** The masses of one bin, set by baseBin: under the first law (P) and the second (Q). */
let binP: f64 = 0.0;
let binQ: f64 = 0.0;

/**
 * The P- and Q-masses of the base pair's loss L in (y0, y1] (in [y0, y1) with `leftClosed`, which
 * matters for atoms only). Gaussian at distance mu: L = mu Z + mu^2/2 under P, mu Z - mu^2/2 under
 * Q. Laplace with epsilon0: atoms at epsilon0 (P-mass 1/2, Q-mass e^-epsilon0 / 2) and at
 * -epsilon0 (e^-epsilon0 / 2, 1/2), and between them P(L <= l) = e^((l - epsilon0)/2) / 2,
 * Q(L >= l) = e^((-l - epsilon0)/2) / 2. Randomized response: the atoms alone, with masses
 * e^epsilon0 / (1 + e^epsilon0) and 1 / (1 + e^epsilon0).
 */
function baseBin(kind: i32, parameter: f64, extra: f64, y0: f64, y1: f64, leftClosed: bool): void {
  if (kind == DISCRETE_LAPLACE) {
    discreteLaplaceBin(parameter, extra, y0, y1, leftClosed);
    return;
  }
  if (kind == DISCRETE_GAUSSIAN) {
    binP = discreteGaussianBin(parameter, extra, y0, y1, leftClosed);
    binQ = lastQ();
    return;
  }
  if (kind == GAUSSIAN) {
    const mu = parameter;
    const m = 0.5 * mu * mu;
    binP = normalMass((y0 - m) / mu, (y1 - m) / mu);
    binQ = normalMass((y0 + m) / mu, (y1 + m) / mu);
    return;
  }
  const e0 = parameter;
  binP = 0.0;
  binQ = 0.0;
  const inLow = leftClosed ? y0 <= -e0 && -e0 < y1 : y0 < -e0 && -e0 <= y1;
  const inHigh = leftClosed ? y0 <= e0 && e0 < y1 : y0 < e0 && e0 <= y1;
  if (kind == LAPLACE) {
    if (inHigh) {
      binP += 0.5;
      binQ += 0.5 * Math.exp(-e0);
    }
    if (inLow) {
      binP += 0.5 * Math.exp(-e0);
      binQ += 0.5;
    }
    const a = Math.max(y0, -e0);
    const b = Math.min(y1, e0);
    if (b > a) {
      // Each as its upper end's exponential times 1 - e^(-(b - a)/2): no factor overflows on a wide bin.
      const spread = -Math.expm1(-0.5 * (b - a));
      binP += 0.5 * Math.exp(0.5 * (b - e0)) * spread;
      binQ += 0.5 * Math.exp(0.5 * (-a - e0)) * spread;
    }
    return;
  }
  const heavy = 1.0 / (1.0 + Math.exp(-e0)); // e^e0 / (1 + e^e0)
  const light = 1.0 / (1.0 + Math.exp(e0));
  if (inHigh) {
    binP += heavy;
    binQ += light;
  }
  if (inLow) {
    binP += light;
    binQ += heavy;
  }
}

/**
 * The masses (binP, binQ) of the discrete Laplace pair's atoms (see discreteLaplaceDelta) with loss
 * (d - 2k)/t in (y0, y1] (in [y0, y1) with `leftClosed`): the atoms k in
 * [ceil((d - y1 t)/2), ceil((d - y0 t)/2) - 1] (with floor + 1 and floor for [y0, y1)), the same
 * formula at a shared edge, so the bins part the atoms. Atom 0 has masses 1/(1 + r) and
 * r^d/(1 + r), atom d the reverse; atoms i..j between them P-mass r^i (1 - r^n)/(1 + r) and Q-mass
 * r^(d - j) (1 - r^n)/(1 + r), n = j - i + 1.
 */
function discreteLaplaceBin(t: f64, d: f64, y0: f64, y1: f64, leftClosed: bool): void {
  const from = 0.5 * (d - y1 * t);
  const to = 0.5 * (d - y0 * t);
  const a = Math.max(0.0, leftClosed ? Math.floor(from) + 1.0 : Math.ceil(from));
  const b = Math.min(d, leftClosed ? Math.floor(to) : Math.ceil(to) - 1.0);
  binP = 0.0;
  binQ = 0.0;
  if (!(a <= b)) return;
  const r = Math.exp(-1.0 / t);
  const norm = 1.0 / (1.0 + r);
  const rd = Math.exp(-d / t);
  if (a == 0.0) {
    binP += norm;
    binQ += rd * norm;
  }
  if (b == d) {
    binP += rd * norm;
    binQ += norm;
  }
  const i = Math.max(a, 1.0);
  const j = Math.min(b, d - 1.0);
  if (i <= j) {
    const spread = -Math.expm1(-(j - i + 1.0) / t) * norm;
    binP += Math.exp(-i / t) * spread;
    binQ += Math.exp(-(d - j) / t) * spread;
  }
}

/** The base loss whose subsampled loss is y: ln(1 + (e^y - 1)/q), or -Infinity at and below ln(1 - q). */
// @ts-ignore: decorator
@inline function baseLoss(y: f64, rate: f64): f64 {
  const m = Math.expm1(y);
  return m <= -rate ? -Infinity : Math.log1p(m / rate);
}

/**
 * The base loss at the edge x of a pair's loss bin, on a Poisson-subsampled batch (rate q; 1 for
 * none) in a direction. Remove: the loss is ln(1 - q + q e^L), increasing in the base loss L;
 * add: it is -ln(1 - q + q e^L), decreasing.
 */
// @ts-ignore: decorator
@inline function edgeLoss(rate: f64, direction: i32, x: f64): f64 {
  return rate >= 1.0 ? x : baseLoss(direction == REMOVE ? x : -x, rate);
}

/**
 * The P- and Q-masses (binP, binQ) of the pair's loss in (x0, x1], given the base losses e0 and e1
 * at its edges (edgeLoss): on a Poisson-subsampled batch the remove pair is P' = (1 - q) Q + q P
 * against Q' = Q, the add pair P' = Q against Q' = (1 - q) Q + q P, whose base-loss bin is
 * [e1, e0).
 */
function pairBinAt(kind: i32, parameter: f64, extra: f64, rate: f64, direction: i32, e0: f64, e1: f64): void {
  if (rate >= 1.0) {
    baseBin(kind, parameter, extra, e0, e1, false);
    return;
  }
  if (direction == REMOVE) {
    baseBin(kind, parameter, extra, e0, e1, false);
    binP = (1.0 - rate) * binQ + rate * binP;
    return;
  }
  baseBin(kind, parameter, extra, e1, e0, true);
  const p = binP;
  binP = binQ;
  binQ = (1.0 - rate) * binQ + rate * p;
}

/** The P- and Q-masses (binP, binQ) of the pair's loss in (x0, x1] (pairBinAt). */
function pairBin(kind: i32, parameter: f64, extra: f64, rate: f64, direction: i32, x0: f64, x1: f64): void {
  pairBinAt(kind, parameter, extra, rate, direction, edgeLoss(rate, direction, x0), edgeLoss(rate, direction, x1));
}

/**
 * A bound on the relative error of hockeyDelta's result d: the Gaussian profile is within
 * 4e-15 max(1, |ln d|) (docs/accounting.md, "Gaussian privacy"), doubled to cover the subsampling
 * transforms' few roundings; the closed forms of the other kinds are within a few ulp.
 */
// @ts-ignore: decorator
@inline function deltaError(d: f64): f64 {
  return 8e-15 * Math.max(1.0, Math.abs(Math.log(d)));
}

/**
 * The pessimistic connect-the-dots distribution of a pair on the losses (lower + i) h, i < n
 * (n >= 2), given the pair's curve t_j there (`deltas`, from gridDeltas): probs[i] the masses,
 * returned the mass at infinity (Doroshenko et al. 2022): the distribution whose hockey-stick
 * curve meets the pair's at every grid point, linear in e^eps in between (above the true curve,
 * which is convex in e^eps). The mass at infinity is t_(n-1), and with T_j = t_j - t_(n-1),
 * A_j = sum_{i > j} p_i follows from the curve's recurrence D_(j-1) = D_j + c (A_(j-1) - D_j),
 * c = 1 - e^-h, solved for A_(j-1) with D = T: A_(j-1) = T_j + (T_(j-1) - T_j) / c, and
 * p_j = A_(j-1) - A_j (taken as 0 where rounding makes it negative); the rest of the mass,
 * 1 - A_0 - t_(n-1), goes to the lowest loss.
 *
 * Then the check: the distribution's own delta at every grid point, D_j plus the infinite mass,
 * computed by the same recurrence from the masses, carried in double-double so that its error
 * stays within 16 u (A_j + D_j + infinity), must reach t_j raised by its error bound; the largest
 * shortfall, a few ulp of the probability 1 at most, moves from the lowest losses to infinity
 * (docs/accounting.md, "Connect the dots").
 */
export function connectDots(h: f64, n: i32, deltas: usize, probs: usize): f64 {
  const infinity = at(deltas, n - 1);
  const c = -Math.expm1(-h);
  let above: f64 = 0.0; // A_j
  for (let j = n - 1; j >= 1; j--) {
    const tj = at(deltas, j) - infinity;
    const next = Math.max(above, tj + (at(deltas, j - 1) - infinity - tj) / c); // A_(j-1)
    put(probs, j, next - above);
    above = next;
  }
  put(probs, 0, Math.max(0.0, 1.0 - infinity - above));
  // A total P-mass above 1 (rounding) leaves from the lowest losses, which no grid point's delta counts.
  let total: f64 = infinity;
  for (let i = 0; i < n; i++) total += at(probs, i);
  let excess = total - 1.0;
  for (let i = 0; i < n && excess > 0.0; i++) {
    const p = at(probs, i);
    const taken = Math.min(p, excess);
    put(probs, i, p - taken);
    excess -= taken;
  }
  // The check, from the top, in double-double (Neumaier's two-sum).
  let ah: f64 = 0.0;
  let al: f64 = 0.0;
  let dh: f64 = 0.0;
  let dl: f64 = 0.0;
  let missing: f64 = 0.0;
  for (let j = n - 1; j >= 0; j--) {
    const target = at(deltas, j);
    const a = ah + al;
    const d = dh + dl;
    if (target > 0.0) {
      const own = infinity + d - 16.0 * U * (a + d + infinity);
      missing = Math.max(missing, target * (1.0 + deltaError(target)) - own);
    }
    const p = at(probs, j);
    const s = ah + p;
    al += twoSumError(ah, p, s);
    ah = s;
    const t = c * (ah + al - d);
    const r = dh + t;
    dl += twoSumError(dh, t, r);
    dh = r;
  }
  let move = missing;
  for (let i = 0; i < n && move > 0.0; i++) {
    const p = at(probs, i);
    const taken = Math.min(p, move);
    put(probs, i, p - taken);
    move -= taken;
  }
  return Math.min(1.0, infinity + missing);
}

/**
 * For the lower bound (docs/accounting.md, "The certified range"): the P-masses (intoP) and the
 * Q-masses (intoQ) of the pair's loss in the bins (loss_k, loss_{k+1}], k < n - 1, each filed
 * under its lower end (the loss rounded down); the masses below loss_0 and above loss_{n-1} are
 * left out. The Q-masses are stored tilted, times e^(loss_k + tilt) with tilt = h/2 (at most e^tilt
 * times the P-mass, as the loss in the bin is at least loss_k; about the P-mass, as it is h/2
 * above loss_k on average), so that convolution keeps them at the scale of the P-masses, and their
 * rounding relative to it; on grids coarser than 2 the tilt stays 1, so that e^tilt cannot
 * overflow (past h = 1419 it did, and the floor certified nothing). The tilt passes through
 * convolution (e^(a + b) = e^a e^b): after T compositions the tilt is e^(l + T tilt), which
 * floorDelta undoes with its own `tilt`, the sum.
 * Any set of outcomes is a test between the two laws, so its P-mass minus e^eps times its
 * Q-mass is a lower bound on delta(eps): composed bin by bin, these masses give such sets.
 */
export function floorBins(kind: i32, parameter: f64, extra: f64, rate: f64, direction: i32, lower: f64, h: f64, tilt: f64, n: i32, intoP: usize, intoQ: usize): void {
  for (let k = 0; k < n; k++) {
    if (k == n - 1) {
      put(intoP, k, 0.0);
      put(intoQ, k, 0.0);
      continue;
    }
    const loss = (lower + <f64>k) * h;
    pairBin(kind, parameter, extra, rate, direction, loss, (lower + <f64>(k + 1)) * h);
    put(intoP, k, binP);
    // The tilted Q-mass is at most binP e^tilt (the loss in the bin is at least `loss`): that bound
    // where binQ is below the normal range (underflow may have lowered it, a Laplace release past
    // epsilon 708) or e^loss overflows, which gave NaN.
    const cap = binP * Math.exp(tilt);
    const tilted = binQ * Math.exp(loss + tilt);
    put(intoQ, k, binQ >= NORMAL_MIN && tilted < Infinity ? Math.min(cap, tilted) : cap);
  }
}

/** 2^-1022, the smallest normal double. */
const NORMAL_MIN: f64 = 2.2250738585072014e-308;

/**
 * The floor's certified part at threshold bin K (floorDelta, floorEpsilon), summed from the top
 * bin down by floorStep: with P(K) and Q(K) the masses of bins >= K (Q = tilted Q e^-(l + tilt),
 * l_k = (lower + k) h), delta(eps) >= floorP - e^(eps + logQ) for every eps, where floorP =
 * P(K) - errorP and e^logQ = Q(K) + e^(-l_K - tilt) errorQ, each moved by the sums' rounding
 * the way that lowers the bound. Q(K) = e^(-t_K) A_K with t_K = l_K + tilt and
 * A_K = sum over k >= K of tilted Q_k e^(-(k - K) h), so A_(K-1) = tilted Q_(K-1) + e^-h A_K: no
 * exponential overflows, and the terms that underflow (n 2^-1074 at most) are added back.
 */
let floorP: f64 = 0.0;
let logQ: f64 = 0.0;
let sumP: f64 = 0.0;
let weighedQ: f64 = 0.0; // A_K

/** 2^-1074, the smallest double. */
const TINY: f64 = 5e-324;

/** Adds bin k to the sums and sets floorP and logQ for threshold k (`decay` = e^-h). */
// @ts-ignore: decorator
@inline function floorStep(massP: usize, massQ: usize, n: i32, k: i32, lower: f64, h: f64, tilt: f64, errorP: f64, errorQ: f64, decay: f64): void {
  const tilted = (lower + <f64>k) * h + tilt;
  sumP += at(massP, k);
  weighedQ = at(massQ, k) + weighedQ * decay;
  const steps = <f64>(n - k);
  floorP = sumP * (1.0 - steps * U) - errorP;
  // A_K's recurrence errs by at most 3 u per step (e^-h's rounding, the product's, the sum's).
  logQ = Math.log(weighedQ * (1.0 + 3.0 * steps * U) + errorQ + <f64>n * TINY) - tilted;
}

/**
 * A lower bound on delta(eps) from composed bin masses P and tilted Q (n each, bin k at loss
 * l_k = (lower + k) h rounded down): the largest, over thresholds K, of
 * P(bins >= K) - e^eps Q(bins >= K), less what the masses' errors (l1 bounds errorP and errorQ,
 * the latter on the tilted masses) and the sums' rounding can move it (floorStep). At least 0.
 * e^(eps + logQ) is raised past its argument's rounding (relative (|eps| + |logQ| + 2) 4 u).
 */
export function floorDelta(massP: usize, massQ: usize, n: i32, lower: f64, h: f64, tilt: f64, errorP: f64, errorQ: f64, eps: f64): f64 {
  sumP = 0.0;
  weighedQ = 0.0;
  const decay = Math.exp(-h);
  let best: f64 = 0.0;
  for (let k = n - 1; k >= 0; k--) {
    floorStep(massP, massQ, n, k, lower, h, tilt, errorP, errorQ, decay);
    if (!(floorP > best)) continue;
    const x = eps + logQ;
    best = Math.max(best, floorP - Math.exp(x) * (1.0 + 4.0 * U * (Math.abs(eps) + Math.abs(logQ) + 2.0)));
  }
  return best;
}

/**
 * A lower bound on eps(delta) from the same masses, in one pass: floorDelta(eps) > delta for every
 * eps below ln(floorP - delta) - logQ at some threshold, so the largest of these over the
 * thresholds, lowered past its rounding, is one (-Infinity where no threshold's floorP exceeds
 * delta). It replaces a bisection on floorDelta (60 sums).
 */
export function floorEpsilon(massP: usize, massQ: usize, n: i32, lower: f64, h: f64, tilt: f64, errorP: f64, errorQ: f64, delta: f64): f64 {
  sumP = 0.0;
  weighedQ = 0.0;
  const decay = Math.exp(-h);
  let best = -Infinity;
  for (let k = n - 1; k >= 0; k--) {
    floorStep(massP, massQ, n, k, lower, h, tilt, errorP, errorQ, decay);
    const above = floorP - delta;
    if (!(above > 0.0)) continue;
    const y = Math.log(above);
    const x = y - logQ;
    best = Math.max(best, x - 4.0 * U * (Math.abs(y) + Math.abs(logQ) + Math.abs(x) + 2.0));
  }
  return best;
}

/**
 * delta(eps) of the distribution (probs, n, lower, h, infinity): infinity + sum over losses above eps
 * of p_i (1 - e^(eps - loss_i)), plus `slack` (the caller's bound on the l2 norm of the masses'
 * errors) times the square root of the number of terms, and this sum's own rounding; capped at 1.
 */
export function pldDelta(probs: usize, n: i32, lower: f64, h: f64, infinity: f64, slack: f64, eps: f64): f64 {
  let sum: f64 = 0.0;
  let terms: f64 = 0.0;
  for (let i = n - 1; i >= 0; i--) {
    const loss = (lower + <f64>i) * h;
    if (loss <= eps) break;
    sum += at(probs, i) * -Math.expm1(eps - loss);
    terms += 1.0;
  }
  // Masses off by at most `slack` in l2 norm move the sum by at most slack sqrt(terms) (Cauchy-Schwarz, weights <= 1).
  return Math.min(1.0, infinity + sum * (1.0 + 4.0 * U * (terms + 2.0)) + slack * Math.sqrt(terms));
}

/** The slope of delta(eps) at crossing()'s guess, -e^(eps - loss_j) (A_j - D_j): its magnitude. */
let crossingSlope: f64 = 0.0;

/**
 * Where delta(eps) of the distribution meets delta, computed plainly (a guess, for pldEpsilon to
 * start from): from the top, delta at the grid points D_j + infinity, D_j = sum over i > j of
 * p_i (1 - e^((j - i) h)), by D_(j-1) = D_j + c (A_(j-1) - D_j) with c = 1 - e^-h and
 * A_j = sum over i > j of p_i; in the bin [loss_j, loss_(j+1)] where it first exceeds delta,
 * delta(eps) = infinity + A_j - e^(eps - loss_j) (A_j - D_j), solved for eps (and its slope there
 * kept in crossingSlope). NaN when no bin has it.
 */
function crossing(probs: usize, n: i32, lower: f64, h: f64, infinity: f64, delta: f64): f64 {
  const c = -Math.expm1(-h);
  let a: f64 = 0.0;
  let d: f64 = 0.0;
  for (let j = n - 1; j >= 0; j--) {
    // Here a and d are A_j and D_j.
    if (infinity + d > delta) {
      crossingSlope = infinity + a - delta; // e^(eps - loss_j) (A_j - D_j) at the solution
      return (lower + <f64>j) * h + Math.log((infinity + a - delta) / (a - d));
    }
    a += at(probs, j);
    d += c * (a - d);
  }
  return NaN;
}

/** pldEpsilon's tolerance at x: 2^-40 (9.094947017729282e-13) relative, at least 2^-60 (8.673617379884035e-19). */
// @ts-ignore: decorator
@inline function tolerance(x: f64): f64 {
  return Math.max(Math.abs(x) * 9.094947017729282e-13, 8.673617379884035e-19);
}

/**
 * The smallest eps (a safe upper bound, to 2^-40 relative or 2^-60 absolute) with
 * pldDelta(eps) <= delta; Infinity when even the infinite loss's mass exceeds delta. The search
 * starts from a bracket found around crossing()'s guess, by steps from the distance that the
 * rounding's margin moves the crossing (the guess's excess over its slope there), growing 16-fold;
 * then the Illinois method (regula falsi, halving the weight of an end kept twice) narrows it,
 * a handful of sums where a bisection took some forty (each sum is over the whole grid). The end
 * kept always meets delta; after 200 steps (never reached) it is returned as it is.
 */
export function pldEpsilon(probs: usize, n: i32, lower: f64, h: f64, infinity: f64, slack: f64, delta: f64): f64 {
  let hi = (lower + <f64>n) * h;
  let above = pldDelta(probs, n, lower, h, infinity, slack, hi) - delta; // at hi, <= 0
  if (above > 0.0) return Infinity;
  let lo = Math.min(0.0, lower * h);
  let below = pldDelta(probs, n, lower, h, infinity, slack, lo) - delta; // at lo, > 0
  if (below <= 0.0) {
    // delta at eps is at least 1 - e^eps for every pair: below 0 only a delta near 1 is met.
    lo = Math.log1p(-delta) - 1.0;
    if (lo >= hi) return hi;
    below = pldDelta(probs, n, lower, h, infinity, slack, lo) - delta;
    if (below <= 0.0) return lo;
  }
  const guess = crossing(probs, n, lower, h, infinity, delta);
  if (guess > lo && guess < hi) {
    const f = pldDelta(probs, n, lower, h, infinity, slack, guess) - delta;
    let step = Math.max(tolerance(guess), crossingSlope > 0.0 ? (2.0 * Math.abs(f)) / crossingSlope : 0.0);
    if (f > 0.0) {
      lo = guess;
      below = f;
      for (let x = lo + step; x < hi; x = lo + step) {
        const fx = pldDelta(probs, n, lower, h, infinity, slack, x) - delta;
        if (fx <= 0.0) {
          hi = x;
          above = fx;
          break;
        }
        lo = x;
        below = fx;
        step *= 16.0;
      }
    } else {
      hi = guess;
      above = f;
      for (let x = hi - step; x > lo; x = hi - step) {
        const fx = pldDelta(probs, n, lower, h, infinity, slack, x) - delta;
        if (fx > 0.0) {
          lo = x;
          below = fx;
          break;
        }
        hi = x;
        above = fx;
        step *= 16.0;
      }
    }
  }
  let kept = 0; // which end stayed last time: 1 lo, -1 hi
  for (let k = 0; k < 200 && hi - lo > tolerance(hi); k++) {
    let x = hi - (above * (hi - lo)) / (above - below);
    if (!(x > lo && x < hi)) x = 0.5 * (lo + hi);
    const fx = pldDelta(probs, n, lower, h, infinity, slack, x) - delta;
    if (fx > 0.0) {
      lo = x;
      below = fx;
      if (kept == -1) above *= 0.5;
      kept = -1;
    } else {
      hi = x;
      above = fx;
      if (kept == 1) below *= 0.5;
      kept = 1;
    }
  }
  return hi;
}
