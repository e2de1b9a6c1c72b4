// rho-zCDP (Bun & Steinke 2016) converted to (epsilon, delta)-DP, both ways, and the distance
// mu = sqrt(2 rho) whose conversion meets a request (docs/math.md, "Accounting").
/**
 * delta(eps) of a rho-zCDP mechanism (Canonne, Kamath & Steinke 2020, Corollary 13):
 * inf over alpha > 1 of exp((alpha - 1)(alpha rho - eps)) / (alpha - 1) (1 - 1/alpha)^alpha.
 * Any alpha gives a valid bound, so an approximate minimum (golden section on log(alpha - 1))
 * stays safe.
 */
export function zcdpDelta(rho: number, epsilon: number): number {
  if (rho === 0) return 0;
  const logBound = (x: number) => {
    const a = 1 + Math.exp(x); // alpha > 1
    return (a - 1) * (a * rho - epsilon) - x + a * Math.log1p(-1 / a);
  };
  let lo = -30;
  let hi = 300; // alpha up to e^300: small rho at epsilon 0 needs alpha near 1 / sqrt(rho)
  const phi = (Math.sqrt(5) - 1) / 2;
  for (let i = 0; i < 120; i++) {
    const x1 = hi - phi * (hi - lo);
    const x2 = lo + phi * (hi - lo);
    if (logBound(x1) < logBound(x2)) hi = x2;
    else lo = x1;
  }
  return Math.min(1, Math.exp(logBound(0.5 * (lo + hi))));
}

/** The smallest epsilon (bisection, rounded up) with zcdpDelta(rho, epsilon) <= delta. */
export function zcdpEpsilon(rho: number, delta: number): number {
  if (zcdpDelta(rho, 0) <= delta) return 0;
  let lo = 0;
  let hi = rho + 2 * Math.sqrt(rho * Math.log(1 / delta)) + 1; // the classical bound, with room
  while (zcdpDelta(rho, hi) > delta) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (zcdpDelta(rho, mid) > delta) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The largest distance mu (rho = mu^2 / 2, bisection, rounded down) with zcdpDelta <= delta. */
export function zcdpMu(epsilon: number, delta: number, upper: number): number {
  let lo = 0;
  let hi = upper; // the continuous mu0: the zCDP conversion is never tighter than the exact curve
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (zcdpDelta((mid * mid) / 2, epsilon) <= delta) lo = mid;
    else hi = mid;
  }
  return lo;
}
