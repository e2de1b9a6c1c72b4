// The domains of the privacy parameters and the numeric limits that several modules share.
// docs/core.md, "Numbers at the edges", gives the reason for every bound.
import type { Entries, Range } from './validate.js';

/** Epsilon for Gaussian noise: beyond 1e6 no meaningful privacy is left and accuracy degrades. */
export const GAUSSIAN_EPSILON: Range = { min: 0, max: 1e6 };
/** Delta: below 1e-300 the calibrated distance would be a subnormal number. */
export const DELTA: Range = { min: 1e-300, max: 1, maxOpen: true };
/** A Mahalanobis distance to calibrate to: positive, and at most 2000 (covers mu0 of every epsilon up to 1e6). */
export const MU: Range = { min: 0, max: 2000, minOpen: true };
/** The distances for which epsilon(mu, delta) stays within GAUSSIAN_EPSILON. */
export const MU_FOR_EPSILON: Range = { min: 0, max: 1000 };
/** rho-zCDP asked of correlated sums: mu = sqrt(2 rho) <= 1000. */
export const RHO: Range = { min: 0, max: 5e5, minOpen: true };

/** Profile and weight entries are 0 or within [2^-400, 2^400], so no sum over them can
 * overflow or underflow in double precision (about 3.9e-121 to 2.6e120). */
const ENTRY_RANGE = 'between 2^-400 and 2^400 (about 3.9e-121 to 2.6e+120)';
export const PROFILE_ENTRIES: Entries = { min: 2 ** -400, max: 2 ** 400, zero: true, basic: 'a finite number >= 0', range: `0 or ${ENTRY_RANGE}` };
export const WEIGHT_ENTRIES: Entries = { min: 2 ** -400, max: 2 ** 400, basic: 'a finite number > 0', range: ENTRY_RANGE };

/**
 * Calibrated scales are multiplied by 1 + 2^-36 so that the privacy constraint holds despite
 * rounding: the chunked sums are off by at most 16384 ulp (3.6e-12) relative and each scale by a few ulp.
 */
export const SAFETY = 1 + 2 ** -36;

/** The largest noise scale the continuous samplers take: overflow lies beyond 1e158 scales. */
export const MAX_SCALE = 1e150;

/** Noise scales of at most 2^40 grid steps: the discrete samplers' block sizes stay within their words. */
export const MAX_GRID_SCALE = 2 ** 40;

/** Grids from 2^-1000 to 2^800: grid units stay normal doubles, and outputs cannot overflow. */
export const GRID: Range = { min: 2 ** -1000, max: 2 ** 800 };
