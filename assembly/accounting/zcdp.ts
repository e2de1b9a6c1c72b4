// rho-zCDP (Bun & Steinke 2016) converted to (epsilon, delta)-DP, both ways, and the distance
// mu = sqrt(2 rho) whose conversion meets a request (docs/accounting.md, "Accounting"). In WebAssembly
// so that every engine computes the same figures (the engines' own Math.exp and Math.log1p differ
// in the last bit; AssemblyScript's are the same code everywhere).

/** log of the CKS Corollary 13 bound at alpha = 1 + e^x. */
// @ts-ignore: decorator
@inline function logBound(x: f64, rho: f64, epsilon: f64): f64 {
  const a = 1.0 + Math.exp(x); // alpha > 1
  return (a - 1.0) * (a * rho - epsilon) - x + a * Math.log1p(-1.0 / a);
}

/** (sqrt 5 - 1) / 2, the golden section. */
const PHI: f64 = 0.6180339887498949;
/**
 * The relative round-up of delta: the bound's logarithm is a handful of operations on numbers up
 * to (alpha - 1) alpha rho, whose rounding errors stay far below 2^-40 relative in delta.
 */
const DELTA_MARGIN: f64 = 1.0 + 9.094947017729282e-13; // 1 + 2^-40

/**
 * delta(eps) of a rho-zCDP mechanism (Canonne, Kamath & Steinke 2020, Corollary 13):
 * inf over alpha > 1 of exp((alpha - 1)(alpha rho - eps)) / (alpha - 1) (1 - 1/alpha)^alpha.
 * Any alpha gives a valid bound, so an approximate minimum (golden section on log(alpha - 1))
 * stays safe; the result is rounded up and capped at 1.
 */
export function zcdpDelta(rho: f64, epsilon: f64): f64 {
  if (rho == 0.0) return 0.0;
  let lo: f64 = -30.0;
  let hi: f64 = 300.0; // alpha up to e^300: small rho at epsilon 0 needs alpha near 1 / sqrt(rho)
  for (let i = 0; i < 120; i++) {
    const x1 = hi - PHI * (hi - lo);
    const x2 = lo + PHI * (hi - lo);
    if (logBound(x1, rho, epsilon) < logBound(x2, rho, epsilon)) hi = x2;
    else lo = x1;
  }
  return Math.min(1.0, Math.exp(logBound(0.5 * (lo + hi), rho, epsilon)) * DELTA_MARGIN);
}

/** The smallest epsilon (bisection, keeping the end that satisfies the bound) with zcdpDelta(rho, epsilon) <= delta. */
export function zcdpEpsilon(rho: f64, delta: f64): f64 {
  if (zcdpDelta(rho, 0.0) <= delta) return 0.0;
  let lo: f64 = 0.0;
  let hi = rho + 2.0 * Math.sqrt(rho * Math.log(1.0 / delta)) + 1.0; // the classical bound, with room
  // No end found within a double's range of doublings: no epsilon is claimed.
  for (let i = 0; zcdpDelta(rho, hi) > delta; i++) {
    if (i == 2100) return Infinity;
    hi *= 2.0;
  }
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (zcdpDelta(rho, mid) > delta) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The largest distance mu below `upper` (bisection, keeping the end that satisfies it) with zcdpDelta(mu^2 / 2, epsilon) <= delta. */
export function zcdpMu(epsilon: f64, delta: f64, upper: f64): f64 {
  let lo: f64 = 0.0;
  let hi = upper; // the continuous mu0: the zCDP conversion is never tighter than the exact curve
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (zcdpDelta(0.5 * mid * mid, epsilon) <= delta) lo = mid;
    else hi = mid;
  }
  return lo;
}
