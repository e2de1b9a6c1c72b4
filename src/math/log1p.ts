// ln(1 + x) with the module's logarithm, so that every engine computes the same figure.
import { wasm } from '../wasm/loader.js';

/**
 * log(1 + x) for x >= -1, by Goldberg's method (1991, Theorem 4): with w = 1 + x rounded,
 * log(1 + x) = x log(w) / (w - 1), where w - 1 is exact; a few ulp, where log(1 + x) alone is not.
 */
export function log1p(x: number): number {
  const w = 1 + x;
  if (w === 1) return x;
  if (w === Infinity) return wasm().log(x);
  return (wasm().log(w) * x) / (w - 1);
}
