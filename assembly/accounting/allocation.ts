// Random allocation (docs/accounting.md, "Random allocation"): the masses of a lognormal variable
// e^D, D ~ N(mean, sd^2), on a linear grid of step g, for the sums of src/engine/allocation.ts.
import { normalMass } from "./pld";

/** P(a < e^D <= b) for D ~ N(mean, sd^2) (a <= 0: P(e^D <= b)). */
export function lognormalMass(mean: f64, sd: f64, a: f64, b: f64): f64 {
  const z0 = a > 0.0 ? (Math.log(a) - mean) / sd : -Infinity;
  const z1 = b == Infinity ? Infinity : b > 0.0 ? (Math.log(b) - mean) / sd : -Infinity;
  return normalMass(z0, z1);
}

/**
 * The masses of e^D rounded to the grid of step g: into[j] for j < n the mass of ((j - 1) g, j g]
 * with `up` (rounded up), of [j g, (j + 1) g) without; returned the mass above the last bin (of
 * e^D > (n - 1) g, or >= n g). Every bin is stretched by the relative `widen` at each end (its
 * ends move out by that fraction of themselves; a negative `widen` shrinks it), which covers the
 * roundings of its ends when they are far smaller: the masses are then those of bins that contain
 * the true ones (widen > 0) or lie inside them (widen < 0).
 */
export function lognormalGrid(mean: f64, sd: f64, g: f64, n: i32, up: bool, widen: f64, into: usize): f64 {
  const shift: f64 = up ? -1.0 : 0.0;
  for (let j = 0; j < n; j++) {
    const a = (<f64>j + shift) * g;
    const b = a + g;
    store<f64>(into + (<usize>j << 3), lognormalMass(mean, sd, a * (1.0 - widen), b * (1.0 + widen)));
  }
  return lognormalMass(mean, sd, (<f64>n + shift) * g * (1.0 - widen), Infinity);
}
