// The distance mu that Gaussian noise is calibrated to, for a budget: the one place that turns a
// budget into mu, for continuous noise (the exact Gaussian curve) and for grid mode's discrete
// Gaussian noise (by the continuous Gaussians around it, docs/accounting.md "Discrete Gaussian",
// or through rho-zCDP, rho = mu^2 / 2, converted to (epsilon, delta) by zcdp.ts).
import type { Target } from '../core/budget.js';
import { wasm } from '../wasm/loader.js';
import { zcdpMu } from './zcdp.js';

/** Budgets Gaussian noise can meet. */
export const GAUSSIAN_NOTIONS = ['approximate', 'gdp', 'zcdp'] as const;

/** The largest mu at which continuous Gaussian noise meets `target` (approximate: mu0(epsilon, delta); rho-zCDP: sqrt(2 rho)). */
export function gaussianDistance(target: Target): number {
  switch (target.notion) {
    case 'approximate':
      return wasm().gaussianMu(target.epsilon, target.delta);
    case 'gdp':
      return target.mu;
    case 'zcdp':
      return Math.sqrt(2 * target.rho);
    case 'pure':
      throw new TypeError('dpnoise: Gaussian noise cannot give pure epsilon-DP; give `delta` too, or use Laplace noise.');
  }
}

/**
 * The largest mu at which grid mode's discrete Gaussian noise, accounted as rho-zCDP with
 * rho = mu^2 / 2 (Canonne, Kamath & Steinke 2020), meets `target`: for (epsilon, delta), the largest
 * mu whose zCDP conversion gives it (below the continuous mu0, as the conversion is never tighter);
 * mu and rho as asked.
 */
export function gridGaussianDistance(target: Target): number {
  if (target.notion !== 'approximate') return gaussianDistance(target);
  const { epsilon, delta } = target;
  const mu = zcdpMu(epsilon, delta, wasm().gaussianMu(epsilon, delta));
  if (!(mu > 0)) {
    throw new RangeError(
      `dpnoise: grid mode's zCDP accounting cannot give epsilon ${epsilon} with delta ${delta}; use a larger epsilon or delta, or mode 'continuous'.`,
    );
  }
  return mu;
}

/** The smallest noise scale drawn, in grid steps, on a coordinate that moves (scales and sensitivities in value units). */
export function smallestSteps(scales: Float64Array, sensitivity: Float64Array, grid: number): number {
  let least = Infinity;
  for (let i = 0; i < scales.length; i++) if (sensitivity[i] !== 0) least = Math.min(least, scales[i]! / grid);
  return least;
}

/** What calibrateGridGaussian builds: a release whose privacy answers epsilon(delta), and its smallest scale in grid steps. */
export interface GridGaussianRelease {
  readonly privacy: { epsilon(delta: number): number };
  /** The smallest noise scale drawn (in grid steps) on a coordinate that moves. */
  readonly smallestSteps: number;
}

/**
 * Grid-mode Gaussian noise for a budget: `build` makes the release for a distance. For
 * (epsilon, delta), by the continuous Gaussians around the discrete noise (docs/accounting.md,
 * "Discrete Gaussian"): the continuous mu0 (less 2^-40); if the noise drawn does not meet the
 * budget by its own figures, mu0 lowered by what tau = 4 steps cost at the smallest scale drawn,
 * sqrt(1 - tau^2 / sigma_min^2) (less 2^-30); if that does not meet it either (scales under 8
 * steps, or a grid that moved), the zCDP distance, which always does. Other budgets: as asked.
 */
export function calibrateGridGaussian<T extends GridGaussianRelease>(target: Target, build: (mu: number) => T): [mu: number, release: T] {
  if (target.notion !== 'approximate') {
    const mu = gaussianDistance(target);
    return [mu, build(mu)];
  }
  const meets = (release: T) => release.privacy.epsilon(target.delta) <= target.epsilon;
  const mu0 = gaussianDistance(target) * (1 - 2 ** -40);
  const first = build(mu0);
  if (meets(first)) return [mu0, first];
  const smallest = first.smallestSteps;
  const lowered = mu0 * Math.sqrt(Math.max(0, 1 - 16 / (smallest * smallest))) * (1 - 2 ** -30);
  if (lowered > 0) {
    const second = build(lowered);
    if (meets(second)) return [lowered, second];
  }
  const safe = gridGaussianDistance(target);
  return [safe, build(safe)];
}
