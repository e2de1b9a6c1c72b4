// The Gaussian privacy profile (MATH.md sections 2 and 3), computed in WebAssembly.
//
// Gaussian noise whose neighbouring outputs are at Mahalanobis distance mu is (epsilon, delta)-DP
// exactly when delta >= delta(epsilon; mu) = Q(epsilon/mu - mu/2) - e^epsilon Q(epsilon/mu + mu/2).
import { nonNegative, probability } from './validate.js';
import { wasm } from './wasm.js';

/** The privacy profile delta(epsilon; mu) of a Gaussian mechanism with distance mu. */
export function gaussianDelta(mu: number, epsilon: number): number {
  return wasm().gaussianDelta(nonNegative('mu', mu), nonNegative('epsilon', epsilon));
}

/**
 * mu0(epsilon, delta): the largest distance mu at which a Gaussian mechanism is
 * (epsilon, delta)-DP. Always on the safe side: gaussianDelta(result, epsilon) <= delta,
 * and within 1e-12 relative of the exact root.
 */
export function gaussianMu(epsilon: number, delta: number): number {
  return wasm().gaussianMu(nonNegative('epsilon', epsilon), probability('delta', delta));
}

/**
 * The smallest epsilon >= 0 for which a Gaussian mechanism with distance mu is
 * (epsilon, delta)-DP; rounded up, so gaussianDelta(mu, result) <= delta.
 */
export function gaussianEpsilon(mu: number, delta: number): number {
  return wasm().gaussianEpsilon(nonNegative('mu', mu), probability('delta', delta));
}
