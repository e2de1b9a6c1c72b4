// Grid mode (MATH.md section 8): continuous noise added in floating point can leak through the
// low bits of the result (Mironov 2012). In grid mode every value is rounded to a power-of-two
// grid and integer-valued noise, sampled exactly with integer arithmetic, is added in grid units,
// so every released value is an exact multiple of the grid.
//
// Rounding moves each value by up to half a step, so two neighbouring values can differ by up to
// a whole step more: in grid units the integer change of coordinate i is at most
// floor(lambda_i / grid) + 1 (0 when lambda_i = 0), and that is the sensitivity calibrated to.
import { numberIn } from './validate.js';

/** The mechanisms' modes: continuous noise, or exact integer noise on a grid. */
export const MODES = ['continuous', 'grid'] as const;
/** A mechanism's mode. */
export type Mode = (typeof MODES)[number];

/** Integer noise scales stay below 2^40, so no draw or sum leaves the exact integers of a double. */
export const MAX_GRID_SCALE = 2 ** 40;

/** A power of two, 2^-1000 to 2^1000. */
export function readGrid(value: unknown): number {
  const g = numberIn('grid', value, { min: 2 ** -1000, max: 2 ** 1000 });
  if (!Number.isInteger(Math.log2(g))) throw new RangeError(`dpnoise: \`grid\` must be a power of two; got ${g}.`);
  return g;
}

/** The default grid: the power of two at most 1/16 of the smallest non-zero sensitivity. */
export function defaultGrid(lambda: Float64Array): number {
  let smallest = Infinity;
  for (const l of lambda) if (l > 0 && l < smallest) smallest = l;
  return smallest === Infinity ? 1 : 2 ** Math.floor(Math.log2(smallest / 16));
}

/** Sensitivities (in value units) after rounding to the grid: grid (floor(lambda / grid) + 1). */
export function gridSensitivity(lambda: Float64Array, grid: number): Float64Array {
  return lambda.map((l) => (l === 0 ? 0 : grid * (Math.floor(l / grid) + 1)));
}

/** Integer scales in grid units, rounded up (more noise, never less), checked against the limit. */
export function gridScales(scales: Float64Array, grid: number): Float64Array {
  const t = scales.map((b) => Math.ceil(b / grid));
  const largest = t.reduce((m, x) => Math.max(m, x), 0);
  if (largest > MAX_GRID_SCALE) {
    throw new RangeError(`dpnoise: with \`grid\` ${grid} the noise scale is ${largest} grid steps, above 2^40; use a larger grid.`);
  }
  return t;
}

/** Values in grid units, rounded to the nearest integer (each within 2^52 so it stays exact). */
export function toGrid(values: Float64Array, grid: number): Float64Array {
  const out = values.map((v) => Math.round(v / grid));
  const bad = out.findIndex((k) => !(Math.abs(k) <= 2 ** 52));
  if (bad >= 0) throw new RangeError(`dpnoise: \`query[${bad}]\` is more than 2^52 grid steps (${grid}) from 0; use a larger grid.`);
  return out;
}

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
  let hi = 30;
  const phi = (Math.sqrt(5) - 1) / 2;
  for (let i = 0; i < 120; i++) {
    const x1 = hi - phi * (hi - lo);
    const x2 = lo + phi * (hi - lo);
    if (logBound(x1) < logBound(x2)) hi = x2; else lo = x1;
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
    if (zcdpDelta(rho, mid) > delta) lo = mid; else hi = mid;
  }
  return hi;
}

/** The largest distance mu (rho = mu^2 / 2, bisection, rounded down) with zcdpDelta <= delta. */
export function zcdpMu(epsilon: number, delta: number, upper: number): number {
  let lo = 0;
  let hi = upper; // the continuous mu0: the zCDP conversion is never tighter than the exact curve
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (zcdpDelta((mid * mid) / 2, epsilon) <= delta) lo = mid; else hi = mid;
  }
  return lo;
}
