// Number formatting shared by the benchmark groups (tables hold strings).

export const NA = 'n/a';
export const NONE = '—';

/** About three significant digits, without exponents in the usual ranges. */
export function fmt(x) {
  if (x === undefined || x === null || !Number.isFinite(x)) return NA;
  const a = Math.abs(x);
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  if (a >= 0.001) return x.toPrecision(3);
  return x.toExponential(2);
}

/** A ratio such as "12.3×" (n/a when either side is missing). */
export function times(numerator, denominator) {
  if (!Number.isFinite(numerator) || !Number.isFinite(denominator) || denominator === 0) return NA;
  return `${fmt(numerator / denominator)}×`;
}

/** K as 1e3, 1e6, ... when a power of ten, else the integer. */
export function fmtK(K) {
  const e = Math.log10(K);
  return Number.isInteger(e) && e >= 3 ? `1e${e}` : String(K);
}
