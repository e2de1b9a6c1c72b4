// Special functions of the standard normal distribution, computed in WebAssembly.
import { FINITE, numberIn, OPEN_UNIT } from '../core/validate.js';
import { wasm } from '../wasm/loader.js';

/**
 * The complementary error function erfc(x) = 1 - erf(x); relative error below 1e-15.
 *
 * @example
 * ```ts
 * import { erfc } from 'dpnoise';
 *
 * console.log(erfc(1)); // 0.15729920705028513
 * ```
 *
 * @group Special functions
 */
export function erfc(x: number): number {
  return wasm().erfc(numberIn('x', x, FINITE));
}

/**
 * Q(x) = P(Z > x) for a standard normal Z (the survival function).
 *
 * @example
 * ```ts
 * import { normalSf } from 'dpnoise';
 *
 * console.log(normalSf(1.96)); // 0.02499789514822043
 * ```
 *
 * @group Special functions
 */
export function normalSf(x: number): number {
  return wasm().normalSf(numberIn('x', x, FINITE));
}

/**
 * log Q(x), without underflow: finite for every finite x (about -x^2/2 for large x).
 *
 * @example
 * ```ts
 * import { normalLogSf } from 'dpnoise';
 *
 * // Q(40) itself underflows to 0.
 * console.log(normalLogSf(40)); // -804.6084420137538
 * ```
 *
 * @group Special functions
 */
export function normalLogSf(x: number): number {
  return wasm().normalLogSf(numberIn('x', x, FINITE));
}

/**
 * The inverse survival function: the x with Q(x) = p, for 0 < p < 1 (down to 1e-300 and below).
 *
 * @example
 * ```ts
 * import { normalIsf } from 'dpnoise';
 *
 * console.log(normalIsf(0.025)); // 1.959963984540054
 * console.log(normalIsf(1e-300)); // 37.0470962993612
 * ```
 *
 * @group Special functions
 */
export function normalIsf(p: number): number {
  return wasm().normalIsf(numberIn('p', p, OPEN_UNIT));
}
