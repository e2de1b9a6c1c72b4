// Grid mode's discrete Gaussian noise between two continuous Gaussians (docs/accounting.md,
// "Discrete Gaussian"). Rounding a continuous Gaussian value y to the integers by a discrete
// Gaussian of parameter tau centred on y commutes with integer shifts, and turns N(q, s^2) into a
// law within e^(+-eta) of the discrete Gaussian of variance s^2 + tau^2 centred on q (Poisson
// summation); adding N(0, tau^2) to a discrete Gaussian of variance sigma^2 gives a law within
// e^(+-eta') of N(q, sigma^2 + tau^2). So the release is, up to those factors, a post-processing
// of continuous Gaussian noise with variances sigma_i^2 - tau^2 (an upper event) and has one as
// a post-processing with variances sigma_i^2 + tau^2 (a lower event).
import { ROUND_UP } from '../core/rounding.js';
import type { Event } from './events.js';
import { lossNorm } from './loss.js';

/** tau^2 = 16: tau = 4 grid steps. */
const TAU2 = 16;
/** The comparison needs every scale above tau; from 8 steps on, sigma^2 - tau^2 >= (3/4) sigma^2, so the subtraction costs under 2 ulp, which the round-down covers. */
const SMALLEST_SCALE = 8;
/**
 * The slacks of one release of fewer than 2^53 coordinates: 2^53 ln((1 + eta)/(1 - eta)) with
 * eta = 2 sum_{m >= 1} e^(-2 pi^2 m^2 tau^2) = 1.377e-137 (upper: 2.48e-121), and with
 * eta = 2 sum e^(-2 pi^2 m^2 tau^2 / 2) = 5.248e-69 plus the normaliser's 1.4e-137 (lower:
 * 9.45e-53), computed in mpmath and rounded up here.
 */
export const SLACK_UPPER = 1e-120;
export const SLACK_LOWER = 1e-51;

/**
 * The most an upper event's distance can exceed the zCDP's sqrt(2 rho): the ratio of a scale to
 * sqrt(scale^2 - tau^2) at the smallest scale, 2 / sqrt(3) (a budget file's close events are
 * checked against it, accounting/event-json.ts).
 */
export const CLOSE_RATIO = SMALLEST_SCALE / Math.sqrt(SMALLEST_SCALE ** 2 - TAU2);

/** The events of independent discrete Gaussian noise: 'close' Gaussians above and below it, and the upper one's distance. */
export interface DiscreteGaussianEvents {
  readonly upper: Event & { type: 'close' };
  readonly lower: Event & { type: 'close' };
  readonly mu: number;
  readonly slack: number;
}

/**
 * For sensitivities `steps` (whole grid steps) and scales sigma_i (in steps), each at least 8
 * where the sensitivity is not 0, the upper and lower events (with `fallback` for the Renyi
 * method: the noise's zCDP); undefined when a scale is below 8 steps.
 */
export function discreteGaussianEvents(steps: Float64Array, scaleAt: (i: number) => number, fallback: Event): DiscreteGaussianEvents | undefined {
  for (let i = 0; i < steps.length; i++) if (steps[i] !== 0 && !(scaleAt(i) >= SMALLEST_SCALE)) return undefined;
  // Continuous scales below (upper) and above (lower) the exact sqrt(sigma^2 -+ tau^2), past rounding.
  const mu = lossNorm(steps, (i) => Math.sqrt(scaleAt(i) ** 2 - TAU2) * (1 - ROUND_UP), 2).total;
  const below = lossNorm(steps, (i) => Math.sqrt(scaleAt(i) ** 2 + TAU2) * (1 + ROUND_UP), 2).total * (1 - 4 * ROUND_UP);
  return {
    upper: { type: 'close', slack: SLACK_UPPER, event: { type: 'gaussian', mu }, fallback },
    lower: { type: 'close', slack: SLACK_LOWER, event: { type: 'gaussian', mu: below }, fallback },
    mu,
    slack: SLACK_UPPER,
  };
}
