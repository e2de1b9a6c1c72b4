// Compensated summation (as src/core/summation.ts on the JavaScript side).

/** The rounding error of s = a + b, so that a + b = s + twoSumError(a, b, s) exactly (Neumaier's two-sum). */
// @ts-ignore: decorator
@inline export function twoSumError(a: f64, b: f64, s: f64): f64 {
  return Math.abs(a) >= Math.abs(b) ? a - s + b : b - s + a;
}
