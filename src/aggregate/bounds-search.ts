// The geometric bin search behind bounds found privately (docs/aggregates.md, "Bounds found
// privately"): the public candidates of a column's bounds, widths 2^MIN_EXPONENT to a public
// widest from an anchor, the histogram edges that count the values between consecutive
// candidates, and the choice of a bound from that histogram once noised. Public inputs and
// noisy counts only.

/** Declared bounds and histogram edges stay within this: sums of a few million rows stay exact in doubles. */
export const VALUE_LIMIT = 1e12;
/** The narrowest candidate width, 2^-10 (about 0.001). */
export const MIN_EXPONENT = -10;
/**
 * The widest candidate's width by default, 2^20 (about 1e6); 2^10 for a column with a variance,
 * whose squares reach its square. The release is planned for the widest candidate, and one grid
 * serves all of a group's vector: a far wider one coarsens the grid of the count (at epsilon 1,
 * its sd is 8693 beside variance bounds [0, 2^24], 38 beside [0, 2^20]) and, with groups
 * selected, of the units, which then cannot be thresholded (docs/aggregates.md, "Bounds found
 * privately"). `boundsLimit` sets it.
 */
export const DEFAULT_MAX_EXPONENT = 20;
export const VARIANCE_MAX_EXPONENT = 10;

/** Which end of a column's bounds is found: both (around 0), the upper one above a declared lower, or the lower one below a declared upper. */
export type Side = 'both' | 'upper' | 'lower';

/** What a search is of: the side, the declared end it starts from (0 for 'both') and its widest candidate's exponent. */
export interface SearchSpec {
  readonly side: Side;
  readonly anchor: number;
  readonly maxExponent: number;
}

/** A search's public plan: the histogram's edges, and for each of its bins the candidate whose bound it lies within. */
export interface Search {
  /** The candidate bounds, narrowest first. */
  readonly candidates: ReadonlyArray<readonly [number, number]>;
  /** The histogram's edges, increasing. */
  readonly edges: readonly number[];
  /** For each bin of the histogram, the narrowest candidate that holds it. */
  readonly candidateOfBin: readonly number[];
}

/** The widths 2^k of a side's candidates whose ends stay within VALUE_LIMIT and differ from the anchor and from each other. */
function widthsOf(side: Side, anchor: number, maxExponent: number): number[] {
  const widths: number[] = [];
  let previous = anchor;
  for (let k = MIN_EXPONENT; k <= maxExponent; k++) {
    const end = side === 'lower' ? anchor - 2 ** k : anchor + 2 ** k;
    if (Math.abs(end) > VALUE_LIMIT) break;
    if (end !== previous) widths.push(2 ** k);
    previous = end;
  }
  // A one-sided widest candidate centred on 0 would make its centred and plain sums one measure, apart once found: left out.
  if (side !== 'both' && widths.length > 1 && anchor + (side === 'lower' ? -1 : 1) * (widths.at(-1)! / 2) === 0) widths.pop();
  return widths;
}

/**
 * The search of a side at an anchor (0 for 'both'). 'both': candidates [-2^k, 2^k], bins of x
 * between -2^k and -2^(k-1) or 2^(k-1) and 2^k (the narrowest candidate's bins reaching 0).
 * 'upper': [a, a + 2^k], bins [a + 2^(k-1), a + 2^k). 'lower': the mirror image. Values beyond the
 * widest candidate fall in its outermost bins (a histogram clips to its edges).
 */
export function searchOf({ side, anchor, maxExponent }: SearchSpec, name: string): Search {
  const widths = widthsOf(side, anchor, maxExponent);
  if (widths.length === 0)
    throw new RangeError(
      `dpnoise: \`${name}\` must leave room to find a bound: its declared end must be within ${VALUE_LIMIT} less 2^${MIN_EXPONENT}; got ${anchor}.`,
    );
  const n = widths.length;
  if (side === 'both') {
    const positive = widths;
    return Object.freeze({
      candidates: Object.freeze(widths.map((w) => Object.freeze([-w, w] as const))),
      edges: Object.freeze([...positive.map((w) => -w).reverse(), 0, ...positive]),
      candidateOfBin: Object.freeze([...Array.from({ length: n }, (_, i) => n - 1 - i), ...Array.from({ length: n }, (_, i) => i)]),
    });
  }
  if (side === 'upper') {
    return Object.freeze({
      candidates: Object.freeze(widths.map((w) => Object.freeze([anchor, anchor + w] as const))),
      edges: Object.freeze([anchor, ...widths.map((w) => anchor + w)]),
      candidateOfBin: Object.freeze(Array.from({ length: n }, (_, i) => i)),
    });
  }
  return Object.freeze({
    candidates: Object.freeze(widths.map((w) => Object.freeze([anchor - w, anchor] as const))),
    edges: Object.freeze([...widths.map((w) => anchor - w).reverse(), anchor]),
    candidateOfBin: Object.freeze(Array.from({ length: n }, (_, i) => n - 1 - i)),
  });
}

/** The widest candidate of a side at an anchor: the bounds a plan is calibrated for before the search. */
export function widestCandidate(search: SearchSpec, name: string): readonly [number, number] {
  return searchOf(search, name).candidates.at(-1)!;
}

/** The chance that noise alone lifts some empty bin of a search to its threshold: at most this. */
export const FALSE_BIN = 0.001;

/**
 * The count below which a noisy bin is taken as empty: with discrete Laplace noise of scale b on
 * each of m bins, P(Y >= x) <= e^(-x / b) for each, so that an empty bin reaches b ln(m / FALSE_BIN)
 * with probability at most FALSE_BIN / m, and some empty bin with at most FALSE_BIN.
 */
export function emptyBelow(scale: number, bins: number): number {
  return scale * Math.log(bins / FALSE_BIN);
}

/** The narrowest candidate whose count within it reaches `coverage` of the total, or undefined when the total is not positive. */
function narrowestCovering(search: Search, bins: ArrayLike<number>, coverage: number): readonly [number, number] | undefined {
  const within = new Float64Array(search.candidates.length);
  let total = 0;
  for (let b = 0; b < search.candidateOfBin.length; b++) {
    within[search.candidateOfBin[b]!]! += bins[b]!;
    total += bins[b]!;
  }
  let cumulative = 0;
  for (let j = 0; j < within.length && total > 0; j++) {
    cumulative += within[j]!;
    if (cumulative >= coverage * total) return search.candidates[j]!;
  }
  return undefined;
}

/**
 * The bounds a search's noisy histogram gives: the bins below `empty` taken as empty (as Google's
 * ApproxBounds does: the noise of many empty bins, summed, would otherwise push the choice wide),
 * the narrowest candidate whose count within it reaches `coverage` times the total; when no bin
 * reaches `empty`, the same on the noisy counts as they are; when their total is not positive,
 * the widest. A choice among public candidates, always made, never an error.
 */
export function chosenBounds(search: Search, noisyBins: ArrayLike<number>, coverage: number, empty: number): readonly [number, number] {
  const kept = Array.from(noisyBins, (c) => (c >= empty ? c : 0));
  return narrowestCovering(search, kept, coverage) ?? narrowestCovering(search, noisyBins, coverage) ?? search.candidates.at(-1)!;
}
