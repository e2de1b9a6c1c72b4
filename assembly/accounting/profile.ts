// The Gaussian privacy profile delta(eps; mu) and its inverses (docs/accounting.md, "Gaussian privacy" and "Calibration").
//
// With a = eps/mu - mu/2 and b = eps/mu + mu/2 we have b^2 - a^2 = 2 eps, so
// e^eps Q(b) = phi(a) M(b) with M the Mills ratio, and
//     delta = Q(a) - e^eps Q(b) = phi(a) (M(a) - M(b)).
// Working with log phi(a) and Mills ratios never forms e^eps and never underflows.
import { millsRatio, normalIsf, normalLogPdf, normalLogSf } from "../math/special";

const SQRT_2PI = reinterpret<f64>(0x40040D931FF62706); // 2.5066282746310005024

// M(a) - M(b) cancels when b - a = mu is small; where the integrand exp(-a t - t^2/2) varies
// little over [0, mu] (mu (a + mu) <= 2.5, mu <= 1), the difference is integrated directly.
const QUADRATURE_SPAN: f64 = 2.5;
// Beyond this a, delta < Q(a) < 1e-349 underflows; Q(a) is returned as the (safe) upper bound.
const A_NEGLIGIBLE: f64 = 40.0;

// 8-point Gauss-Legendre rule on [-1, 1]: nodes and weights (symmetric pairs).
export const GL_X1 = reinterpret<f64>(0x3FC77AC94F3C7345); // 0.1834346424956498049394761
export const GL_X2 = reinterpret<f64>(0x3FE0D129583284B4); // 0.525532409916328985817739
export const GL_X3 = reinterpret<f64>(0x3FE97E4AB249F41E); // 0.7966664774136267395915539
export const GL_X4 = reinterpret<f64>(0x3FEEBAB1CB0ACC67); // 0.9602898564975362316835609
export const GL_W1 = reinterpret<f64>(0x3FD736360B199343); // 0.3626837833783619829651504
export const GL_W2 = reinterpret<f64>(0x3FD413C50A255615); // 0.3137066458778872873379622
export const GL_W3 = reinterpret<f64>(0x3FCC76FB531D2B96); // 0.222381034453374470544356
export const GL_W4 = reinterpret<f64>(0x3FB9EA1D04CA0374); // 0.1012285362903762591525314

// @ts-ignore: decorator
@inline function glPair(a: f64, h: f64, x: f64, w: f64): f64 {
  const t1 = h * (1.0 - x);
  const t2 = h * (1.0 + x);
  return w * (Math.exp(-t1 * (a + 0.5 * t1)) + Math.exp(-t2 * (a + 0.5 * t2)));
}

/**
 * I = integral over [0, mu] of exp(-a t - t^2/2) dt = (Q(a) - Q(a + mu)) / phi(a).
 * Gauss-Legendre with 8 points is exact to 4e-17 relative while mu (a + mu) <= 2.5.
 */
function smallIntervalIntegral(a: f64, mu: f64): f64 {
  const h = 0.5 * mu;
  return h * (glPair(a, h, GL_X1, GL_W1) + glPair(a, h, GL_X2, GL_W2) +
    glPair(a, h, GL_X3, GL_W3) + glPair(a, h, GL_X4, GL_W4));
}

/** log delta(eps; mu) for mu >= 0, eps >= 0; -Infinity when delta = 0 (mu = 0). */
export function gaussianLogDelta(mu: f64, eps: f64): f64 {
  if (mu == 0.0) return -Infinity;
  const a = eps / mu - 0.5 * mu;
  const b = eps / mu + 0.5 * mu;
  if (mu <= 1.0 && mu * (Math.max(a, 0.0) + mu) <= QUADRATURE_SPAN) {
    if (a > A_NEGLIGIBLE) return normalLogSf(a);
    // M(a) - M(b) = I - (1 - e^-eps) M(b), since M(a) - e^-eps M(b) = I.
    return normalLogPdf(a) + Math.log(smallIntervalIntegral(a, mu) + Math.expm1(-eps) * millsRatio(b));
  }
  if (a >= 0.0) return normalLogPdf(a) + Math.log(millsRatio(a) - millsRatio(b));
  const logQa = normalLogSf(a);
  return logQa + Math.log1p(-Math.exp(normalLogPdf(a) - logQa) * millsRatio(b));
}

/** delta(eps; mu) = Q(eps/mu - mu/2) - e^eps Q(eps/mu + mu/2). */
export function gaussianDelta(mu: f64, eps: f64): f64 {
  return Math.exp(gaussianLogDelta(mu, eps));
}

/** d log delta / d mu = phi(a) / delta. */
function logDeltaSlopeMu(mu: f64, eps: f64, logDelta: f64): f64 {
  return Math.exp(normalLogPdf(eps / mu - 0.5 * mu) - logDelta);
}

/** d log delta / d eps = -e^eps Q(b) / delta = -phi(a) M(b) / delta. */
function logDeltaSlopeEps(mu: f64, eps: f64, logDelta: f64): f64 {
  return -Math.exp(normalLogPdf(eps / mu - 0.5 * mu) - logDelta) * millsRatio(eps / mu + 0.5 * mu);
}

const MAX_ITERATIONS = 200;
/**
 * The most halvings or doublings a bracket or a safe-side move takes: a double's exponent spans
 * 2098 binary orders (2^-1074 to 2^1024), so more can only mean that the search cannot end; the
 * search then returns its safe side (a closed-form bound) instead of looping.
 */
const MAX_STEPS = 2100;
const ULP: f64 = 2.220446049250313e-16; // 2^-52
const TWO_M50: f64 = 8.881784197001252e-16; // 2^-50
const TWO_M40: f64 = 9.094947017729282e-13; // 2^-40

/**
 * mu0(eps, delta): the largest mu with delta(eps; mu) <= delta, for eps >= 0 and 0 < delta < 1.
 * Safeguarded Newton inside a bracket [lo, hi] with delta(lo) <= delta < delta(hi), bisecting
 * geometrically when a step leaves it; the result is checked with gaussianDelta itself and only
 * ever moved down.
 */
export function gaussianMu(eps: f64, delta: f64): f64 {
  const target = Math.log(delta);
  // Lower end: delta(eps; mu) <= Q(a) and delta(eps; mu) <= delta(0; mu) <= mu / sqrt(2 pi).
  const z = normalIsf(delta);
  let lo = Math.max(muAtQuantile(eps, z), SQRT_2PI * delta);
  for (let i = 0; gaussianLogDelta(lo, eps) > target; i++) {
    if (i == MAX_STEPS) return muBound(eps, delta);
    lo *= 0.5;
  }
  let hi = lo * 2.0;
  for (let i = 0; gaussianLogDelta(hi, eps) <= target; i++) {
    if (i == MAX_STEPS) return safeBelow(lo, eps, delta);
    lo = hi;
    hi *= 2.0;
  }
  let mu = Math.sqrt(lo) * Math.sqrt(hi); // lo * hi underflows for delta below about 1e-160
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const logDelta = gaussianLogDelta(mu, eps);
    const g = logDelta - target;
    if (g == 0.0) break;
    if (g > 0.0) hi = mu; else lo = mu;
    let next = mu - g / logDeltaSlopeMu(mu, eps, logDelta);
    if (!(next > lo && next < hi)) next = Math.sqrt(lo) * Math.sqrt(hi);
    const step = Math.abs(next - mu);
    mu = next;
    if (step <= 0.25 * ULP * mu || hi - lo <= 2.0 * ULP * hi) break;
  }
  return safeBelow(mu, eps, delta);
}

/**
 * A bound on gaussianDelta's relative error at (mu, eps), kept as a margin below delta so that a
 * computed delta(eps; mu) <= delta (1 - bound) holds in exact arithmetic too: the error of
 * exp(log delta), 4e-15 max(1, |ln delta|), and that of rounding a = eps/mu - mu/2, which moves
 * log delta by about (|a| + 1) times a's error of a few ulp of eps/mu + mu/2 (it dominates for
 * eps beyond about 1e4). The mpmath fixtures check this bound region by region (docs/accounting.md,
 * "Calibration").
 */
// @ts-ignore: decorator
@inline function deltaError(mu: f64, eps: f64, delta: f64): f64 {
  const a = Math.abs(eps / mu - 0.5 * mu);
  return 4e-15 * Math.max(1.0, -Math.log(delta)) + TWO_M50 * (a + 1.0) * (eps / mu + 0.5 * mu);
}

/**
 * A mu whose delta(eps; mu) is at most delta in closed form, a little below the largest: with
 * z = Q^-1(delta), mu = sqrt(z^2 + 2 eps) - z makes a = eps/mu - mu/2 = z, and delta(eps; mu) <=
 * Q(a) = delta; rounded well down past normalIsf's few ulp.
 */
function muBound(eps: f64, delta: f64): f64 {
  return Math.max(0.0, muAtQuantile(eps, normalIsf(delta)) * (1.0 - TWO_M40));
}

/** An eps whose delta(eps; mu) is at most delta in closed form: a = eps/mu - mu/2 >= Q^-1(delta) makes delta(eps; mu) <= Q(a) <= delta; rounded well up. */
function epsBound(mu: f64, delta: f64): f64 {
  return Math.max(0.0, epsAtQuantile(mu, normalIsf(delta)) * (1.0 + TWO_M40));
}

/** The mu at which a = eps/mu - mu/2 is z: sqrt(z^2 + 2 eps) - z. */
// @ts-ignore: decorator
@inline function muAtQuantile(eps: f64, z: f64): f64 {
  return Math.sqrt(z * z + 2.0 * eps) - z;
}

/** The eps at which a = eps/mu - mu/2 is z: mu (z + mu/2). */
// @ts-ignore: decorator
@inline function epsAtQuantile(mu: f64, z: f64): f64 {
  return mu * (z + 0.5 * mu);
}

/**
 * Moves mu down, geometrically, until gaussianDelta(mu, eps) <= delta with the margin; the closed
 * form's bound (muBound) if that takes more than MAX_STEPS (the margin cannot be certified there).
 */
function safeBelow(mu: f64, eps: f64, delta: f64): f64 {
  let shrink = ULP;
  for (let i = 0; gaussianDelta(mu, eps) > delta * (1.0 - deltaError(mu, eps, delta)); i++) {
    if (i == MAX_STEPS) return Math.min(mu, muBound(eps, delta));
    mu *= 1.0 - shrink;
    shrink = Math.min(0.5, 2.0 * shrink);
  }
  return mu;
}

/**
 * epsilon(mu, delta): the smallest eps >= 0 with delta(eps; mu) <= delta (delta falls with eps).
 * Safeguarded Newton on eps in [lo, hi] with delta(lo) > delta >= delta(hi); rounded up.
 */
export function gaussianEpsilon(mu: f64, delta: f64): f64 {
  if (gaussianDelta(mu, 0.0) <= delta * (1.0 - deltaError(mu, 0.0, delta))) return 0.0;
  const target = Math.log(delta);
  // Upper end: delta(eps; mu) <= Q(a) <= delta once a = eps/mu - mu/2 >= Q^-1(delta).
  let hi = epsAtQuantile(mu, normalIsf(delta));
  if (!(hi > 0.0)) hi = mu;
  for (let i = 0; gaussianLogDelta(mu, hi) > target; i++) {
    if (i == MAX_STEPS) return Infinity; // no eps found: no privacy claimed
    hi *= 2.0;
  }
  let lo: f64 = 0.0;
  let eps = 0.5 * hi;
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const logDelta = gaussianLogDelta(mu, eps);
    const g = logDelta - target;
    if (g > 0.0) lo = eps; else hi = eps;
    if (g == 0.0) break;
    let next = eps - g / logDeltaSlopeEps(mu, eps, logDelta);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    const step = Math.abs(next - eps);
    eps = next;
    if (step <= 0.25 * ULP * eps || hi - lo <= ULP * hi) break;
  }
  return safeAbove(Math.max(eps, lo), mu, delta);
}

/**
 * Moves eps up, geometrically, until gaussianDelta(mu, eps) <= delta with the margin; the closed
 * form's bound (epsBound) if that takes more than MAX_STEPS. The step from eps = 0 is a fraction of
 * mu, eps's own scale (eps / mu is what delta depends on): a fixed step of 2^-104 took eps from
 * 3.4e-49 to 4.9e-32 at mu = 1e-50, where the margin, which grows with eps / mu, can never hold, and
 * the loop never ended.
 */
function safeAbove(eps: f64, mu: f64, delta: f64): f64 {
  let grow = ULP;
  for (let i = 0; gaussianDelta(mu, eps) > delta * (1.0 - deltaError(mu, eps, delta)); i++) {
    if (i == MAX_STEPS) return Math.max(eps, epsBound(mu, delta));
    eps = eps * (1.0 + grow) + grow * ULP * mu;
    grow *= 2.0;
  }
  return eps;
}
