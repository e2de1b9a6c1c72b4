// Grid mode (docs/mechanisms.md, "Floating-point safety"): continuous noise added in floating point leaks
// through the low bits of the result (Mironov 2012). In grid mode every value is rounded to a
// power-of-two grid g and exact integer noise is added in grid units, so every released value
// is an exact multiple of g, and the output is a function of an exact integer release.
//
// Rounding is r(x) = floor(x + 1/2) (exactly, in the kernels). For reals a and b,
// |r(a) - r(b)| <= ceil(|a - b|): with d = a - b >= 0, r(a) - r(b) = floor(b + 1/2 + d) -
// floor(b + 1/2) <= floor(frac(b + 1/2) + d) <= ceil(d), as frac < 1. So a coordinate whose value
// moves by at most lambda moves by at most ceil(lambda / g) grid steps; a group moving by lambda
// in l2 (l1) norm moves by less than lambda / g + sqrt(n) (lambda / g + n) steps, each rounding
// being off by less than one step between neighbours.
import { GRID, MAX_GRID_SCALE, PROFILE_ENTRIES } from '../core/domains.js';
import { powerOfTwoBelow, roundUp } from '../core/rounding.js';
import { type Entries, numberIn, oneOf } from '../core/validate.js';

/**
 * The mechanisms' modes: exact integer noise on a grid (the default), or continuous noise.
 *
 * @group Mechanisms
 */
export const MODES = ['grid', 'continuous'] as const;
/**
 * A mechanism's mode.
 *
 * @group Mechanisms
 */
export type Mode = (typeof MODES)[number];

/** A power of two, 2^-1000 to 2^800. */
export function readGrid(value: unknown): number {
  const g = numberIn('grid', value, GRID);
  if (g !== powerOfTwoBelow(g)) throw new RangeError(`dpnoise: \`grid\` must be a power of two; got ${g}.`);
  return g;
}

/** The queries a release accepts: finite numbers within 2^1000 steps of `grid`, so every grid unit stays finite. */
export function queryEntries(grid: number): Entries {
  const max = Math.min(Number.MAX_VALUE, grid * 2 ** 1000);
  return { min: -max, max, basic: 'a finite number', range: `a finite number of magnitude at most ${max} (2^1000 grid steps)` };
}

/** The options of a mechanism's mode. */
export const MODE_OPTIONS = ['mode', 'grid'] as const;

/** A mechanism's mode options, read once. */
export interface ModeOptions {
  mode: Mode;
  grid: number | undefined;
}

/** The mode options of a mechanism: grid by default; `grid` only in grid mode. */
export function readMode(o: Record<string, unknown>): ModeOptions {
  const mode = o.mode === undefined ? 'grid' : oneOf('mode', o.mode, MODES);
  if (mode !== 'grid' && o.grid !== undefined) throw new TypeError("dpnoise: `grid` applies to `mode: 'grid'` only.");
  // Every field is an own property even when absent, so an inherited one is never read.
  return { mode, grid: o.grid === undefined ? undefined : readGrid(o.grid) };
}

/**
 * The default grid: fine enough that rounding adds at most 2^-10 of the smallest sensitivity in
 * steps (`fine`: the smallest sensitivity per step of rounding, see gridSensitivity), and coarse
 * enough that the largest noise scale is at most 2^36 steps (room below MAX_GRID_SCALE for the
 * recalibration to the rounded sensitivities).
 */
export function defaultGrid(fine: number, largestScale: number): number {
  const byRounding = fine === Infinity ? 1 : powerOfTwoBelow(fine / 1024);
  const byNoise = largestScale > 0 ? 2 * powerOfTwoBelow(largestScale / 2 ** 36) : 0;
  return Math.min(GRID.max, Math.max(GRID.min, byRounding, byNoise));
}

/**
 * The sensitivities after rounding to grid g, in value units: per coordinate g ceil(lambda / g);
 * per group of n coordinates (lambda in l2 norm with q = 2, l1 with q = 1) g (lambda / g + n^(1/q)),
 * rounded up. Also returns the smallest lambda per unit of rounding, for defaultGrid.
 */
export function gridSensitivity(lambda: Float64Array, g: number, sizes?: Float64Array, q: 1 | 2 = 2): Float64Array {
  const rounded = sizes
    ? lambda.map((l, k) => (l === 0 ? 0 : roundUp(g * (l / g + (q === 2 ? Math.sqrt(sizes[k]!) : sizes[k]!)))))
    : lambda.map((l) => g * Math.ceil(l / g));
  // A grid coarser than the sensitivities (noise beyond 2^36 sensitivities) can push them out of their domain.
  const largest = rounded.reduce((m, l) => Math.max(m, l), 0);
  if (!(largest <= PROFILE_ENTRIES.max)) {
    throw new RangeError(
      `dpnoise: on the grid ${g} the sensitivities round up to ${largest}, beyond 2^400: the noise is too large for grid mode; use a larger epsilon or delta, or a finer \`grid\`.`,
    );
  }
  return rounded;
}

/** The smallest sensitivity per step of rounding it may gain (per group: lambda / sqrt(n) or lambda / n). */
export function roundingScale(lambda: Float64Array, sizes?: Float64Array, q: 1 | 2 = 2): number {
  let smallest = Infinity;
  lambda.forEach((l, k) => {
    if (l === 0) return;
    const n = sizes ? (q === 2 ? Math.sqrt(sizes[k]!) : sizes[k]!) : 1;
    smallest = Math.min(smallest, l / n);
  });
  return smallest;
}

/** Noise scales in grid units (exact: g is a power of two), checked against the samplers' limit. */
export function gridUnits(scales: Float64Array, g: number, what: string): Float64Array {
  const units = scales.map((s) => s / g);
  const largest = units.reduce((m, x) => Math.max(m, x), 0);
  if (largest > MAX_GRID_SCALE) {
    throw new RangeError(`dpnoise: with \`grid\` ${g} the noise ${what} is ${largest} grid steps, above 2^40; use a larger grid.`);
  }
  return units;
}
