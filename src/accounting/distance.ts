// The distance mu that Gaussian noise is calibrated to, for a budget: the one place that turns a
// budget into mu, for continuous noise (the exact Gaussian curve) and for grid mode's discrete
// Gaussian noise (by the continuous Gaussians around it, docs/accounting.md "Discrete Gaussian",
// or through rho-zCDP, rho = mu^2 / 2, converted to (epsilon, delta) by zcdp.ts).
import type { ValidTarget } from '../core/target.js';
import { memo } from '../core/memo.js';
import { largestMeeting } from '../math/search.js';
import { wasm } from '../wasm/loader.js';
import { zcdpMu } from './zcdp.js';

/** Budgets Gaussian noise can meet. */
export const GAUSSIAN_NOTIONS = ['approximate', 'gdp', 'zcdp'] as const;

/** The largest mu at which continuous Gaussian noise meets `target` (approximate: mu0(epsilon, delta); rho-zCDP: sqrt(2 rho)). */
export function gaussianDistance(target: ValidTarget): number {
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
export function gridGaussianDistance(target: ValidTarget): number {
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

/** What calibrateGridGaussian builds: a release whose privacy answers epsilon(delta). */
export interface GridGaussianRelease {
  readonly privacy: { epsilon(delta: number): number };
}

/** The relative gap at which the grid Gaussian search stops: its scales are within 1e-6 of the smallest that meet the budget. */
const GRID_SEARCH_GAP = 1e-6;

/**
 * Grid-mode Gaussian noise for a budget: `build` makes the release for a distance. For
 * (epsilon, delta), by the release's own figures (the continuous Gaussians around the discrete
 * noise, docs/accounting.md "Discrete Gaussian"): the continuous mu0 (less 2^-40) when its noise
 * meets the budget, as it does on fine grids; otherwise the largest distance below it that meets
 * it, to 1e-6 (largestMeeting), from the zCDP distance, which always does. Other budgets: as asked.
 */
export function calibrateGridGaussian<T extends GridGaussianRelease>(target: ValidTarget, build: (mu: number) => T): [mu: number, release: T] {
  if (target.notion !== 'approximate') {
    const mu = gaussianDistance(target);
    return [mu, build(mu)];
  }
  const built = new Map<number, T>();
  const at = (mu: number) => memo(built, mu, () => build(mu));
  const mu0 = gaussianDistance(target) * (1 - 2 ** -40);
  const meets = (mu: number) => at(mu).privacy.epsilon(target.delta) <= target.epsilon;
  if (meets(mu0)) return [mu0, at(mu0)];
  const safe = gridGaussianDistance(target);
  const mu = safe >= mu0 ? safe : largestMeeting(meets, safe, { gap: GRID_SEARCH_GAP, ceiling: mu0 });
  return [mu, at(mu)];
}
