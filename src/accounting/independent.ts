// Independent-noise accounting: what any vector of noise scales guarantees for a sensitivity
// profile (docs/accounting.md, "Gaussian privacy"). Gaussian: the Mahalanobis distance
// mu = sqrt(sum_i (lambda_i / sigma_i)^2); Laplace: epsilon = sum_i lambda_i / b_i; their exact
// discrete versions pair by pair. Users need not trust scales computed elsewhere.
import { PROFILE_ENTRIES } from '../core/domains.js';
import { powerOfTwoBelow } from '../core/rounding.js';
import { memo } from '../core/memo.js';
import { numberIn, readOptions, vector } from '../core/validate.js';
import { discreteGaussianEvents } from '../engine/discrete-gaussian.js';
import type { Event } from '../engine/events.js';
import { halfSquare, lossNorm } from '../engine/loss.js';
import { closeGaussianRoute, type GdpPrivacy, gdpPrivacy, type Privacy, purePrivacy, type PurePrivacy, zcdpPrivacy } from './privacy.js';
/** Noise families whose independent noise this module accounts for directly. */
type IndependentFamily = 'gaussian' | 'laplace';

/**
 * The privacy of independent noise of `family` with these scales, for arrays already validated:
 * mu-GDP (Gaussian) or pure epsilon-DP (Laplace); with `discrete`, the exact discrete noise of grid
 * mode in grid steps (lambda and scales in steps): rho-zCDP with rho = sum (lambda_i / sigma_i)^2 / 2
 * for the discrete Gaussian (Canonne, Kamath & Steinke 2020) with the curves of the Gaussians around
 * it, pure epsilon-DP for the discrete Laplace with the curves of its pairs. `grouped`: the
 * sensitivities bound groups of coordinates, or are bounds with a margin (in steps, not attained):
 * no discrete Laplace pairs then, and no lower end of the range for the discrete Gaussian.
 */
export function independentPrivacy(
  family: IndependentFamily,
  lambda: Float64Array,
  scaleAt: (i: number) => number,
  discrete = false,
  grouped = false,
): Privacy {
  const { total, exactAt } = lossNorm(lambda, scaleAt, family === 'gaussian' ? 2 : 1);
  const warnings =
    exactAt === undefined ? [] : [`no privacy: coordinate ${exactAt} has sensitivity ${lambda[exactAt]} and scale 0, so it is released exactly.`];
  if (family === 'laplace') {
    // The coordinates' pairs composed, so that a long profile is tight for delta > 0.
    if (!(total < Infinity)) return purePrivacy(total, discrete ? 'discrete-laplace' : 'laplace', warnings);
    if (!discrete) {
      const events = laplaceEvents(lambda, scaleAt);
      return purePrivacy(total, 'laplace', warnings, events.upper, events.lower);
    }
    return purePrivacy(total, 'discrete-laplace', warnings, grouped ? undefined : discreteLaplaceEvent(lambda, scaleAt));
  }
  if (!discrete) return gdpPrivacy(total, 'gaussian', warnings);
  // rho-zCDP (Canonne, Kamath & Steinke 2020), and the continuous Gaussians around the noise.
  const rho = halfSquare(total);
  const zcdp: Event = { type: 'zcdp', rho };
  const near = total > 0 && total < Infinity ? discreteGaussianEvents(lambda, scaleAt, zcdp) : undefined;
  if (!near) return zcdpPrivacy(rho, 'discrete-gaussian', warnings);
  // The lower event holds where the sensitivities are attained; otherwise no lower end (zCDP's).
  return zcdpPrivacy(rho, 'discrete-gaussian', warnings, near.upper, grouped ? zcdp : near.lower, closeGaussianRoute(near.mu, near.slack));
}

/** Distinct epsilons up to which a Laplace profile's coordinates are grouped exactly. */
const EXACT_GROUPS = 256;
/** Mantissa bits kept when more are grouped: each epsilon moved by at most 2^-10 relative. */
const BUCKET_BITS = 10;

/**
 * Independent Laplace coordinates with epsilons lambda_i / b_i, as events for the accountant: equal
 * epsilons composed together, each rounded up (`upper`, for the figures) and down (`lower`, for
 * the lower end of the certified range) past the division's rounding. With more than 256 distinct
 * epsilons they are first rounded to 10 significant bits (up, and down), so a profile of any
 * length is a few hundred compositions at most.
 */
function laplaceEvents(lambda: Float64Array, scaleAt: (i: number) => number): { upper: Event; lower: Event } {
  const ratios = (key: (r: number) => number, limit: number) => {
    const counts = new Map<number, number>();
    for (let i = 0; i < lambda.length && counts.size <= limit; i++) {
      if (lambda[i] === 0) continue;
      const r = lambda[i]! / scaleAt(i) || Number.MIN_VALUE; // a ratio that underflows is still a loss
      counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
    }
    return counts;
  };
  const grouped = (counts: Map<number, number>, move: (r: number) => number): Event => ({
    type: 'composed',
    events: [...counts].map(([r, times]) => [{ type: 'laplace', epsilon: move(r) }, times] as const),
  });
  const exact = ratios((r) => r, EXACT_GROUPS);
  if (exact.size <= EXACT_GROUPS) return { upper: grouped(exact, (r) => r * (1 + 2 ** -52)), lower: grouped(exact, (r) => r * (1 - 2 ** -52)) };
  const unit = (r: number) => powerOfTwoBelow(r) * 2 ** -BUCKET_BITS; // a power of two: r / unit is exact
  const upper = ratios((r) => Math.ceil(r / unit(r)) * unit(r), Number.POSITIVE_INFINITY);
  const lower = ratios((r) => Math.floor(r / unit(r)) * unit(r), Number.POSITIVE_INFINITY);
  return { upper: grouped(upper, (r) => r * (1 + 2 ** -52)), lower: grouped(lower, (r) => r * (1 - 2 ** -52)) };
}

/** Distinct discrete Laplace pairs up to which a profile is accounted pair by pair. */
const DISCRETE_GROUPS = 256;

/**
 * Independent discrete Laplace coordinates (sensitivities d_i and scales t_i in grid steps, exactly
 * the noise drawn) as one event: equal pairs composed together. Undefined, so that randomized
 * response at the total accounts for them (it dominates every pair), for more than 256 distinct
 * pairs, or a sensitivity that is not a whole number of steps (a group's, which has no single pair).
 */
function discreteLaplaceEvent(lambda: Float64Array, scaleAt: (i: number) => number): Event | undefined {
  const counts = new Map<number, Map<number, number>>(); // sensitivity -> scale -> coordinates
  let distinct = 0;
  for (let i = 0; i < lambda.length; i++) {
    const d = lambda[i]!;
    if (d === 0) continue;
    if (!Number.isInteger(d)) return undefined;
    const t = scaleAt(i);
    const scales = memo(counts, d, () => new Map<number, number>());
    if (!scales.has(t) && ++distinct > DISCRETE_GROUPS) return undefined;
    scales.set(t, (scales.get(t) ?? 0) + 1);
  }
  const events = [...counts].flatMap(([d, scales]) =>
    [...scales].map(([t, times]) => [{ type: 'discrete-laplace', scale: t, sensitivity: d }, times] as const),
  );
  return { type: 'composed', events };
}

/**
 * Options of gaussianPrivacy and laplacePrivacy.
 *
 * @group Accounting
 */
export interface AccountingOptions {
  /** Noise scales: one number for all coordinates, or one per coordinate. */
  scales: number | Float64Array | readonly number[];
  /** The sensitivity of each coordinate. */
  sensitivity: Float64Array | readonly number[];
}

const SCALE_ENTRIES = { min: 0, max: Number.MAX_VALUE, basic: 'a finite number >= 0', range: 'a finite number >= 0' };

/** The privacy of a family's noise with the scales and sensitivities of `options`, validated here. */
export function accounted(family: IndependentFamily, options: AccountingOptions): Privacy {
  const o = readOptions('options', options, ['scales', 'sensitivity']);
  const lambda = vector('sensitivity', o.sensitivity, PROFILE_ENTRIES);
  const scales =
    typeof o.scales === 'number'
      ? numberIn('scales', o.scales, { min: 0, max: Number.MAX_VALUE })
      : vector('scales', o.scales, SCALE_ENTRIES, { length: lambda.length });
  return independentPrivacy(family, lambda, typeof scales === 'number' ? () => scales : (i) => scales[i]!);
}

/**
 * The privacy (mu-GDP) of independent Gaussian noise with standard deviations `scales`.
 *
 * @example
 * ```ts
 * import { gaussianPrivacy } from 'dpnoise';
 *
 * const p = gaussianPrivacy({ scales: [0.5, 1, 2], sensitivity: [0.1, 0.2, 0.4] });
 * console.log(p.kind, p.mu, p.rho); // 'gdp' 0.3464 = sqrt(3 * 0.2^2), 0.06
 * console.log(p.epsilon(1e-6), p.delta(1)); // 1.510, 0.00032
 * ```
 *
 * @group Accounting
 */
export function gaussianPrivacy(options: AccountingOptions): GdpPrivacy {
  return accounted('gaussian', options) as GdpPrivacy;
}

/**
 * The privacy (pure epsilon-DP) of independent Laplace noise with scales b_i = `scales`.
 *
 * @example
 * ```ts
 * import { laplacePrivacy } from 'dpnoise';
 *
 * const p = laplacePrivacy({ scales: [1, 2], sensitivity: [0.5, 0.5] });
 * console.log(p.kind, p.epsilonPure); // 'pure' 0.75 = 0.5 / 1 + 0.5 / 2, rounded up by an ulp or two
 * ```
 *
 * @group Accounting
 */
export function laplacePrivacy(options: AccountingOptions): PurePrivacy {
  return accounted('laplace', options) as PurePrivacy;
}
