// Rounding to the safe side, written once (docs/accounting.md, "Accounting": the round-up).
//
// A privacy figure computed in double precision (a compensated sum of a few thousand terms, a
// square root, a division) is off from the exact value by a few ulp; multiplying it by
// 1 + 2^-50 (4 ulp) makes it an upper bound. Where a figure is tiny, `scaleUp` keeps a positive
// loss from rounding to zero.

/** The relative margin of every accounting round-up: 2^-50 = 4 ulp. */
/**
 * The most halvings or doublings a search on doubles can take: a double's exponent spans 2098
 * binary orders (2^-1074 to 2^1024), so a search past this many steps cannot end, and stops on its
 * safe side instead of looping (issue 47 of the tracker: a search that never returned).
 */
export const MAX_SEARCH_STEPS = 2100;

export const ROUND_UP = 2 ** -50;

/** x rounded up past the few ulp of error of the computation that produced it (x >= 0). */
export function roundUp(x: number): number {
  return x * (1 + ROUND_UP);
}

/** The smallest normal double, 2^-1022: below it a product is rounded to a multiple of 2^-1074. */
const SMALLEST_NORMAL = 2 ** -1022;

/**
 * upper * power (power a power of two) as an upper bound: exact while the product is a normal
 * double; below 2^-1022 it is rounded to a multiple of 2^-1074, so the smallest double is added,
 * and a positive figure never becomes 0.
 */
export function scaleUp(upper: number, power: number): number {
  const x = upper * power;
  return x >= SMALLEST_NORMAL || upper === 0 ? x : x + Number.MIN_VALUE;
}

/**
 * The largest power of two at or below x, exactly (x a positive normal double), on every engine:
 * Math.log2 may round to the integer above or below near a power of two, and the result is
 * corrected by a comparison, which is exact.
 */
export function powerOfTwoBelow(x: number): number {
  const p = 2 ** Math.floor(Math.log2(x));
  if (p > x) return p / 2;
  return 2 * p <= x ? 2 * p : p;
}

/** The smallest power of two at or above x, exactly (x a positive normal double). */
export function powerOfTwoAbove(x: number): number {
  const p = powerOfTwoBelow(x);
  return p === x ? p : 2 * p;
}

/**
 * floor(x + 1/2) exactly, as the kernels round: the test x - floor(x) >= 1/2 is decided exactly
 * for every double (docs/mechanisms.md, "Floating-point safety"), although the difference itself can
 * round for -1/2 < x < 0.
 */
export function roundHalfUp(x: number): number {
  const f = Math.floor(x);
  return x - f >= 0.5 ? f + 1 : f;
}
