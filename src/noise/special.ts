// Special functions of the standard normal distribution, computed in WebAssembly.
import { FINITE, numberIn, OPEN_UNIT } from '../core/validate.js';
import { wasm } from '../wasm/loader.js';

/** The complementary error function erfc(x) = 1 - erf(x); relative error below 1e-15. */
export function erfc(x: number): number {
  return wasm().erfc(numberIn('x', x, FINITE));
}

/** Q(x) = P(Z > x) for a standard normal Z (the survival function). */
export function normalSf(x: number): number {
  return wasm().normalSf(numberIn('x', x, FINITE));
}

/** log Q(x), without underflow: finite for every finite x (about -x^2/2 for large x). */
export function normalLogSf(x: number): number {
  return wasm().normalLogSf(numberIn('x', x, FINITE));
}

/** The inverse survival function: the x with Q(x) = p, for 0 < p < 1 (down to 1e-300 and below). */
export function normalIsf(p: number): number {
  return wasm().normalIsf(numberIn('p', p, OPEN_UNIT));
}
