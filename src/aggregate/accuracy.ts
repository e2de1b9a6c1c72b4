// How accurate each statistic of an aggregate is, from the noise alone (public inputs only): the
// standard deviation and interval width per statistic that the accuracy table reports, the
// estimates use, and the plan compares candidate noises by (docs/aggregates.md, "Intervals").
import { MAX_SEARCH_STEPS } from '../core/rounding.js';
import { exp, expm1, log } from '../math/elementary.js';
import { normalIsf } from '../math/special.js';
import { boundedMeasure, type Layout, type Measure } from './layout.js';
import { type ExponentialQuantile, quantileSensitivity, rankCritical, type TreeNoise } from './quantiles.js';
import type { BoundedColumn, Spec } from './spec.js';

/** A layout with its noise: each block's sensitivity and standard deviation per coordinate. */
export interface Noised {
  readonly layout: Layout;
  readonly family: 'gaussian' | 'laplace';
  readonly sensitivity: Float64Array;
  readonly sd: Float64Array;
  /** Each block's interval half-width per coordinate at the spec's level (blockHalfWidths). */
  readonly halfWidth: Float64Array;
  /** The grid the noise is drawn on (whole counts: the grid of 1, `whole`). */
  readonly grid: number;
  /** The blocks of whole counts drawn on the grid of 1 (the mechanism's wholeGroupsOf). */
  readonly whole: readonly boolean[];
  /** With quantiles by the exponential mechanism: each of them (in the spec's order), run in every group released. */
  readonly exponential: readonly ExponentialQuantile[];
}

/**
 * One line of an aggregate's accuracy table, known before any data is read.
 *
 * @group Aggregates
 */
export interface AccuracyLine {
  /** The statistic, as the rows name it: 'count', 'sum(income)', 'mean(age)', 'quantile(income)', 'histogram(age)'. */
  readonly statistic: string;
  /** 'gaussian' or 'laplace' (exact discrete noise on a grid); for a quantile chosen by the exponential mechanism, 'exponential'. */
  readonly mechanism: 'gaussian' | 'laplace' | 'exponential';
  /**
   * What sd and halfWidth measure: the statistic itself; for a mean, its centred sum (divide by
   * the group's count); for a variance, its centred squares (likewise); for a quantile, its rank
   * (in rows).
   */
  readonly of: 'value' | 'sum' | 'squares' | 'rank';
  /** The noise's standard deviation, of `of` (for a quantile by the exponential mechanism, where every rank has a candidate of its own). */
  readonly sd: number;
  /** The interval's half-width at the spec's level, in the same units as sd. */
  readonly halfWidth: number;
  /**
   * With `expectedCount` n, for a mean or a quantile: its sd in the column's own units for a group
   * of n rows; a mean's by the delta method at its largest (the mean at a bound), a quantile's
   * rank sd times (U - L) / n, as if its values were spread evenly over the bounds (denser values
   * err less, sparser more). Without it, these depend on the group's size, which the data decides.
   */
  readonly valueSd?: number;
}

/** The block of a measure (and quantile tree level). */
export function blockOf(layout: Layout, measure: number, level = 0): number {
  return layout.blocks.findIndex((b) => b.measure === measure && b.level === level);
}

/** The block of the layout's measure of a kind that has one per layout ('count', 'units'); -1 when absent. */
export function blockOfKind(layout: Layout, kind: 'count' | 'units'): number {
  return blockOf(
    layout,
    layout.measures.findIndex((m) => m.kind === kind),
  );
}

/** The index of a measure equal to `m`. */
export function measureOf(layout: Layout, m: Measure): number {
  const key = JSON.stringify(m);
  return layout.measures.findIndex((x) => JSON.stringify(x) === key);
}

/** The sum measure of a column's `sum` or `mean`: a mean's is centred; a sum's is centred when the layout centres sums. */
export function sumMeasureOf(layout: Layout, s: BoundedColumn, mean: boolean): number {
  const centred = measureOf(layout, boundedMeasure('sum', s, true));
  return mean ? centred : Math.max(centred, measureOf(layout, boundedMeasure('sum', s, false)));
}

/** The centred squares measure of a column's `variance`. */
export function squaresMeasureOf(layout: Layout, s: BoundedColumn): number {
  return measureOf(layout, boundedMeasure('squares', s, true));
}

/** Interval half-width per sd of one block's noise: the normal quantile, or for Laplace b ln(1 / (1 - level)) with b = sd / sqrt 2. */
export function widthPerSd(family: 'gaussian' | 'laplace', level: number): number {
  return family === 'gaussian' ? normalIsf((1 - level) / 2) : -log(1 - level) / Math.SQRT2;
}

/**
 * Discrete Laplace noise of scale b on the grid of 1 (P(k) proportional to p^|k|, p = e^(-1/b);
 * docs/aggregates.md, "Counts on the grid of 1"): its standard deviation, sqrt(2 p) / (1 - p), below the
 * continuous sqrt(2) b.
 */
export function wholeLaplaceSd(b: number): number {
  return Math.sqrt(2 * exp(-1 / b)) / -expm1(-1 / b);
}

/**
 * The smallest whole h with P(|X| > h) = 2 p^(h+1) / (1 + p) <= 1 - level for that noise: the
 * interval value +- h holds the truth with probability at least `level`. (The continuous width
 * b ln(1 / (1 - level)) can miss: at b = 1 and level 0.95, P(|X| >= 3) = 0.073.)
 */
export function wholeLaplaceHalfWidth(b: number, level: number): number {
  const p = exp(-1 / b);
  const tail = (h: number) => (2 * exp(-(h + 1) / b)) / (1 + p);
  let h = Math.max(0, Math.ceil(-b * log(((1 - level) * (1 + p)) / 2)) - 1);
  while (h > 0 && tail(h - 1) <= 1 - level) h--;
  while (tail(h) > 1 - level) h++;
  return h;
}

/** Each block's interval half-width per coordinate: width per sd times the sd, or a whole count's (wholeLaplaceHalfWidth of its scale). */
export function blockHalfWidths(
  family: 'gaussian' | 'laplace',
  sd: Float64Array,
  scales: Float64Array,
  whole: readonly boolean[],
  level: number,
): Float64Array {
  const width = widthPerSd(family, level);
  return sd.map((s, k) => (whole[k] ? wholeLaplaceHalfWidth(scales[k]!, level) : width * s));
}

/**
 * The t with P(|X + Y| > t) = 1 - level for independent Laplace X, Y of scales b1 >= b2 > 0:
 * P(|X + Y| > t) = (b1^2 e^(-t/b1) - b2^2 e^(-t/b2)) / (b1^2 - b2^2), and e^(-t/b) (1 + t/(2b))
 * when b1 = b2 = b; by bisection (the tail falls with t), to 2^-40 relative.
 */
function laplaceSumWidth(b1: number, b2: number, level: number): number {
  const [a, b] = b1 >= b2 ? [b1, b2] : [b2, b1];
  const r = b / a;
  const tail = (t: number) => (1 - r * r < 2 ** -20 ? exp(-t / a) * (1 + t / (2 * a)) : (exp(-t / a) - r * r * exp(-t / b)) / (1 - r * r));
  let low = 0;
  let high = (a + b) * -log((1 - level) / 2); // the union bound's width: the tail there is below 1 - level
  for (let i = 0; i < MAX_SEARCH_STEPS && high - low > high * 2 ** -40; i++) {
    const middle = (low + high) / 2;
    if (tail(middle) > 1 - level) low = middle;
    else high = middle;
  }
  return high;
}

/**
 * A column's sum: the block's, or from a centred sum S and the count N as S + shift N. Its sd, and
 * its interval's half-width, exact for the continuous noises (the sum of two Gaussians, or of two
 * Laplaces).
 */
export function sumNoise(noised: Noised, measure: number, level: number): { sd: number; halfWidth: number } {
  const m = noised.layout.measures[measure] as Measure & { kind: 'sum' };
  const b = blockOf(noised.layout, measure);
  const sdS = noised.sd[b]!;
  if (m.shift === 0) return { sd: sdS, halfWidth: widthPerSd(noised.family, level) * sdS };
  const sdN = noised.sd[blockOfKind(noised.layout, 'count')]!;
  const sd = Math.sqrt(sdS * sdS + m.shift * m.shift * sdN * sdN);
  const halfWidth =
    noised.family === 'gaussian' ? widthPerSd('gaussian', level) * sd : laplaceSumWidth(sdS / Math.SQRT2, (Math.abs(m.shift) * sdN) / Math.SQRT2, level);
  return { sd, halfWidth };
}

/** The noise of a quantile measure's tree (the levels the layout noises): their sds and the grid (quantiles.ts). */
export function treeNoise(noised: Noised, measure: number): TreeNoise {
  const levels = noised.layout.blocks.filter((b) => b.measure === measure).length;
  return { family: noised.family, sd: Array.from({ length: levels }, (_, l) => noised.sd[blockOf(noised.layout, measure, l + 1)]!), grid: noised.grid };
}

/**
 * The rank error's sd of a quantile by the exponential mechanism, where every rank has a
 * candidate of its own: the mechanism then picks the rank error with probability proportional to
 * exp(-epsilon |e| / (2 Delta)), a two-sided geometric law of sd about sqrt 2 (2 Delta / epsilon).
 * Where the values are sparse among the candidates, it is larger (docs/aggregates.md, "Quantiles").
 */
function exponentialRankSd(e: ExponentialQuantile): number {
  return (Math.SQRT2 * 2 * quantileSensitivity(e.q, e.maxRows)) / e.epsilon;
}

/**
 * The rank error of the tree's estimate (consistent, monotone counts) against the raw count at
 * the worst boundary (rankCritical's rankSd): least squares pools every level, so it is smaller,
 * 0.38 to 0.43 of it as measured on dense data at epsilon 0.2 and 1 (scripts/quantile-methods.mjs);
 * the larger is used.
 */
const TREE_ESTIMATE = 0.43;

/**
 * Each quantile asked for, with its tree's measure, noise and critical value (the plan's, the same
 * for every group), its exponential mechanism when the plan uses one, and the sd of its rank error.
 */
export function quantileTrees(spec: Spec, noised: Noised) {
  let next = 0;
  return spec.quantile.flatMap(({ column, bounds, q }) => {
    const measure = measureOf(noised.layout, { kind: 'leaves', column, lower: bounds[0], upper: bounds[1] });
    const noise = treeNoise(noised, measure);
    return q.map((level) => {
      const critical = rankCritical(noise, level, spec.level);
      const exponential = noised.exponential.length > 0 ? noised.exponential[next++] : undefined;
      const rankSd = exponential ? exponentialRankSd(exponential) : TREE_ESTIMATE * critical.rankSd;
      return { column, bounds, level, measure, noise, critical, exponential, rankSd };
    });
  });
}

/** The accuracy table's lines, each with what one row can move its statistic by (for scoreOf). */
function linesOf(spec: Spec, noised: Noised): Array<{ line: AccuracyLine; perRow: number; intervalSd?: number }> {
  const { layout, family, sd } = noised;
  const width = widthPerSd(family, spec.level);
  const lines: Array<{ line: AccuracyLine; perRow: number; intervalSd?: number }> = [];
  type Extra = { halfWidth?: number; mechanism?: AccuracyLine['mechanism']; intervalSd?: number; valueSd?: number };
  const add = (statistic: string, of: AccuracyLine['of'], s: number, perRow: number, extra: Extra = {}) => {
    const { halfWidth = width * s, mechanism = family, intervalSd, valueSd } = extra;
    const line = { statistic, mechanism, of, sd: s, halfWidth, ...(valueSd === undefined ? {} : { valueSd }) };
    lines.push({ line: Object.freeze(line), perRow, intervalSd });
  };
  const n = spec.expectedCount;
  /** A block of one count per coordinate, with its own half-width. */
  const counts = (statistic: string, block: number) => add(statistic, 'value', sd[block]!, 1, { halfWidth: noised.halfWidth[block]! });
  if (spec.count) counts('count', blockOfKind(layout, 'count'));
  if (spec.units) counts('units', blockOfKind(layout, 'units'));
  for (const entry of spec.sum) {
    const { column, bounds } = entry;
    const { sd: s, halfWidth } = sumNoise(noised, sumMeasureOf(layout, entry, false), spec.level);
    add(`sum(${column})`, 'value', s, Math.max(Math.abs(bounds[0]), Math.abs(bounds[1])), { halfWidth });
  }
  for (const entry of spec.mean) {
    const { column, bounds } = entry;
    const half = (bounds[1] - bounds[0]) / 2;
    const s = sd[blockOf(layout, sumMeasureOf(layout, entry, true))]!;
    // The delta method's sd (estimates.ts) at its largest, the mean at a bound.
    const valueSd = n === undefined ? undefined : Math.sqrt(s * s + half * half * sd[blockOfKind(layout, 'count')]! ** 2) / n;
    add(`mean(${column})`, 'sum', s, half, { valueSd });
  }
  for (const entry of spec.variance) {
    const { column, bounds } = entry;
    const r = (bounds[1] - bounds[0]) / 2;
    const [s2, s1] = [sd[blockOf(layout, squaresMeasureOf(layout, entry))]!, sd[blockOf(layout, sumMeasureOf(layout, entry, true))]!];
    // The delta method's sd (estimates.ts) at its largest: the centred mean at r, the mean square at its most.
    const valueSd = n === undefined ? undefined : Math.sqrt(s2 * s2 + (2 * r * s1) ** 2 + (2.5 * r * r * sd[blockOfKind(layout, 'count')]!) ** 2) / n;
    add(`variance(${column})`, 'squares', s2, (r * r) / 2, { valueSd });
  }
  for (const { column, bounds, level, critical, rankSd, exponential } of quantileTrees(spec, noised)) {
    const valueSd = n === undefined ? undefined : (rankSd * (bounds[1] - bounds[0])) / n;
    add(`quantile(${column}, ${level})`, 'rank', rankSd, 1, {
      halfWidth: critical.critical,
      mechanism: exponential ? 'exponential' : family,
      intervalSd: critical.rankSd,
      valueSd,
    });
  }
  for (const { column, edges } of spec.histogram) counts(`histogram(${column})`, blockOf(layout, measureOf(layout, { kind: 'bins', column, edges })));
  layout.measures.forEach((m, k) => {
    if (m.kind === 'clipped') counts(`clipped(${m.column})`, blockOf(layout, k));
    if (m.kind === 'dropped') counts('dropped', blockOf(layout, k));
  });
  return lines;
}

/** The accuracy table: one line per statistic asked for. */
export function accuracyOf(spec: Spec, noised: Noised): AccuracyLine[] {
  return linesOf(spec, noised).map(({ line }) => line);
}

/**
 * What a quantile's interval counts for in a plan's score, against its value: a little, so that
 * of two plans equally good for the values (the exponential mechanism's, whatever the vector's
 * noise) the one with the narrower intervals wins.
 */
const INTERVAL_WEIGHT = 1 / 100;

/**
 * How a candidate noise serves the spec, lower is better: the sum over the statistics asked for
 * of their squared sd (and a quantile's interval's, at INTERVAL_WEIGHT), each relative to what one
 * row can move it by with 'range' weights, or in its own units with 'equal'.
 */
export function scoreOf(spec: Spec, noised: Noised): number {
  return linesOf(spec, noised).reduce((total, { line, perRow, intervalSd = 0 }) => {
    const squares = line.sd ** 2 + INTERVAL_WEIGHT * intervalSd ** 2;
    return total + (spec.weights === 'range' ? squares / perRow ** 2 : squares);
  }, 0);
}
