// rho-zCDP (Bun & Steinke 2016) converted to (epsilon, delta)-DP, both ways, and the distance
// mu = sqrt(2 rho) whose conversion meets a request (docs/accounting.md, "Accounting"), computed in
// WebAssembly (assembly/accounting/zcdp.ts) so that every engine reports the same figures.
import { wasm } from '../wasm/loader.js';

/** delta(epsilon) of a rho-zCDP mechanism (Canonne, Kamath & Steinke 2020, Corollary 13), rounded up. */
export function zcdpDelta(rho: number, epsilon: number): number {
  return wasm().zcdpDelta(rho, epsilon);
}

/** The smallest epsilon (bisection, rounded up) with zcdpDelta(rho, epsilon) <= delta. */
export function zcdpEpsilon(rho: number, delta: number): number {
  return wasm().zcdpEpsilon(rho, delta);
}

/** The largest distance mu (rho = mu^2 / 2, bisection, rounded down) with zcdpDelta <= delta, below `upper`. */
export function zcdpMu(epsilon: number, delta: number, upper: number): number {
  return wasm().zcdpMu(epsilon, delta, upper);
}
