// From the noisy release vector to the statistics a user reads, each with its noise standard
// deviation and an interval (docs/aggregates.md, "Intervals"). Everything here post-processes the
// noisy vector and public parameters: nothing reads the exact totals.
import { blockOf, blockOfKind, measureOf, quantileTrees, squaresMeasureOf, sumMeasureOf, sumNoise, widthPerSd } from './accuracy.js';
import { consistent } from './consistent.js';
import { clip, type Measure } from './layout.js';
import { quantileInterval, type TreeCounts, treeCounts, treeQuantile } from './quantiles.js';
import type { Plan } from './plan.js';
import type { Spec } from './spec.js';

/**
 * A released statistic: its value, the standard deviation of its noise, and an interval at the
 * spec's level.
 *
 * @group Aggregates
 */
export interface Estimate {
  /** The released value. */
  readonly value: number;
  /** The noise's standard deviation (for a mean, by the delta method); a quantile has none in its value's units (see rankSd). */
  readonly sd: number | undefined;
  /** For a quantile: the standard deviation of its rank's error, in rows, as the plan predicts it (the accuracy table's sd). */
  readonly rankSd?: number;
  /** The interval's lower end. */
  readonly low: number;
  /** The interval's upper end. */
  readonly high: number;
}

/**
 * One line of the long table: a statistic of a group (and a bin or quantile).
 *
 * @group Aggregates
 */
export interface AggregateLine extends Estimate {
  /** The group. */
  readonly group: string;
  /** 'count', 'units', 'sum', 'mean', 'variance', 'stddev', 'quantile', 'histogram', 'clipped' or 'dropped'. */
  readonly statistic: string;
  /** The column (undefined for a count). */
  readonly column: string | undefined;
  /** The quantile's level, or the histogram bin's label ("[0, 18)"). */
  readonly at: string | undefined;
}

const within = (value: number, sd: number, halfWidth: number): Estimate => Object.freeze({ value, sd, low: value - halfWidth, high: value + halfWidth });
const estimate = (value: number, sd: number, width: number): Estimate => within(value, sd, width * sd);

/**
 * A count as a whole number at least 0 (`integerCounts`), by post-processing: the interval keeps
 * the whole numbers >= 0 within it, which hold every count it held, and the value is rounded into
 * it. An interval that holds no whole number held no count: it becomes the value alone.
 */
function wholeCount(e: Estimate): Estimate {
  const low = Math.max(0, Math.ceil(e.low));
  const high = Math.max(0, Math.floor(e.high));
  const value = Math.max(0, Math.round(e.value));
  if (low > high) return Object.freeze({ ...e, value, low: value, high: value });
  return Object.freeze({ ...e, value: Math.min(high, Math.max(low, value)), low, high });
}

/** The statistics of a noisy release vector and the quantiles chosen by the exponential mechanism (plan.ts, chosenQuantiles): per group, and as a long table. */
export function estimatesOf(
  noisy: Float64Array,
  chosen: Float64Array,
  groups: readonly string[],
  spec: Spec,
  plan: Plan,
): { rows: Record<string, unknown>[]; table: AggregateLine[]; warnings: string[] } {
  const { layout, offsets, sd, halfWidth } = plan;
  const width = widthPerSd(plan.family, spec.level);
  /** A block's coordinates for group g. */
  const cellsAt = (block: number, g: number) => {
    const at = g * plan.length + offsets[block]!;
    return noisy.subarray(at, at + layout.blocks[block]!.size);
  };
  const countBlock = blockOfKind(layout, 'count');
  /** A count's estimate (as the noise gives it, or `e`), whole with `integerCounts`. */
  const counted = (value: number, block: number, e = within(value, sd[block]!, halfWidth[block]!)) => (spec.integerCounts ? wholeCount(e) : e);
  const unitsBlock = blockOfKind(layout, 'units');
  const histogramBlocks = spec.histogram.map(({ column, edges }) => blockOf(layout, measureOf(layout, { kind: 'bins', column, edges })));
  // With `consistent`, each group's count and bins are fitted so that every histogram adds up to the count.
  const fitting = spec.consistent && histogramBlocks.length > 0 && [countBlock, ...histogramBlocks].every((b) => sd[b]! > 0);
  const rows: Record<string, unknown>[] = [];
  const table: AggregateLine[] = [];
  const warnings: string[] = [];
  const trees = quantileTrees(spec, plan);
  groups.forEach((group, g) => {
    const row: Record<string, unknown> = { group };
    const add = (key: string, statistic: string, column: string | undefined, at: string | undefined, e: Estimate) => {
      row[key] = e;
      table.push(Object.freeze({ group, statistic, column, at, ...e }));
    };
    const count = () => cellsAt(countBlock, g)[0]!;
    const fitted = fitting
      ? consistent(
          { value: count(), sd: sd[countBlock]! },
          histogramBlocks.map((b) => ({ values: Array.from(cellsAt(b, g)), sd: sd[b]! })),
        )
      : undefined;
    /** A fitted value's estimate: exact for Gaussian noise; for Laplace noise, whose sums are not Laplace, the interval of the value it came from, widened to hold the fitted value. */
    const fittedEstimate = (raw: number, block: number, value: number, fittedSd: number): Estimate => {
      if (plan.family === 'gaussian') return counted(value, block, estimate(value, fittedSd, width));
      const before = within(raw, sd[block]!, halfWidth[block]!);
      return counted(value, block, Object.freeze({ value, sd: fittedSd, low: Math.min(before.low, value), high: Math.max(before.high, value) }));
    };
    if (spec.count)
      add(
        'count',
        'count',
        undefined,
        undefined,
        fitted ? fittedEstimate(count(), countBlock, fitted.count.value, fitted.count.sd) : counted(count(), countBlock),
      );
    if (spec.units) add('units', 'units', undefined, undefined, counted(cellsAt(unitsBlock, g)[0]!, unitsBlock));
    for (const entry of spec.sum) {
      const { column } = entry;
      const measure = sumMeasureOf(layout, entry, false);
      const { shift } = layout.measures[measure] as Measure & { kind: 'sum' };
      // A centred sum S gives the sum S + shift N (docs/aggregates.md, "One vector per group").
      const value = cellsAt(blockOf(layout, measure), g)[0]! + (shift === 0 ? 0 : shift * count());
      const noise = sumNoise(plan, measure, spec.level);
      add(`sum(${column})`, 'sum', column, undefined, Object.freeze({ value, sd: noise.sd, low: value - noise.halfWidth, high: value + noise.halfWidth }));
    }
    for (const entry of spec.mean) {
      const { column, bounds } = entry;
      const [lower, upper] = bounds;
      const middle = (lower + upper) / 2;
      const b = blockOf(layout, sumMeasureOf(layout, entry, true));
      const n = Math.max(1, count());
      const value = clip(middle + cellsAt(b, g)[0]! / n, lower, upper);
      // The delta method for (S / N) at the noisy values: var ~ (sd_S^2 + (mean - middle)^2 sd_N^2) / N^2.
      const meanSd = Math.sqrt(sd[b]! ** 2 + (value - middle) ** 2 * sd[countBlock]! ** 2) / n;
      add(
        `mean(${column})`,
        'mean',
        column,
        undefined,
        Object.freeze({ value, sd: meanSd, low: Math.max(lower, value - width * meanSd), high: Math.min(upper, value + width * meanSd) }),
      );
    }
    for (const entry of spec.variance) {
      const { column, bounds } = entry;
      // docs/aggregates.md, "Variances": V = S2 / N + r^2/2 - (S1 / N)^2 from the centred sum S1 and
      // the centred squares S2 (each term less r^2/2), within [0, r^2].
      const r = (bounds[1] - bounds[0]) / 2;
      const [b1, b2] = [blockOf(layout, sumMeasureOf(layout, entry, true)), blockOf(layout, squaresMeasureOf(layout, entry))];
      const n = Math.max(1, count());
      const centred = cellsAt(b1, g)[0]! / n;
      const squares = cellsAt(b2, g)[0]! / n;
      const value = Math.min(r * r, Math.max(0, squares + (r * r) / 2 - centred * centred));
      // The delta method at the noisy values: dV/dS2 = 1/N, dV/dS1 = -2 S1/N^2, dV/dN = (2 (S1/N)^2 - S2/N)/N.
      const varianceSd = Math.sqrt(sd[b2]! ** 2 + (2 * centred * sd[b1]!) ** 2 + ((2 * centred * centred - squares) * sd[countBlock]!) ** 2) / n;
      const low = Math.max(0, value - width * varianceSd);
      const high = Math.min(r * r, value + width * varianceSd);
      add(`variance(${column})`, 'variance', column, undefined, Object.freeze({ value, sd: varianceSd, low, high }));
      // The standard deviation: the root of each, its interval the roots of the variance's ends (a monotone map keeps what it covers).
      const [root, rootLow, rootHigh] = [Math.sqrt(value), Math.sqrt(low), Math.sqrt(high)];
      add(
        `stddev(${column})`,
        'stddev',
        column,
        undefined,
        Object.freeze({ value: root, sd: (rootHigh - rootLow) / (2 * width), low: rootLow, high: rootHigh }),
      );
    }
    // Each tree read once for all its quantiles (deciles are nine quantiles of one tree).
    const read = new Map<number, TreeCounts>();
    let e = 0;
    for (const { column, bounds, level, measure, noise, critical, exponential, rankSd } of trees) {
      if (!read.has(measure))
        read.set(
          measure,
          treeCounts(
            noise.sd.map((_, l) => cellsAt(blockOf(layout, measure, l + 1), g)),
            noise,
          ),
        );
      const counts = read.get(measure)!;
      const interval = quantileInterval(counts.raw, level, bounds[0], bounds[1], critical);
      const point = exponential ? chosen[g * plan.exponential.length + e++]! : treeQuantile(counts.cumulative!, level, bounds[0], bounds[1]);
      const name = `quantile(${column}, ${level})`;
      if (interval.wholeBounds)
        warnings.push(
          `${name} of group ${JSON.stringify(group)}: no interval narrower than the bounds holds at level ${spec.level} (too few rows for the noise).`,
        );
      // The value is kept within its interval (post-processing).
      const value = Math.min(interval.high, Math.max(interval.low, point));
      add(name, 'quantile', column, String(level), Object.freeze({ value, sd: undefined, rankSd, low: interval.low, high: interval.high }));
    }
    spec.histogram.forEach(({ column, edges }, h) => {
      const b = histogramBlocks[h]!;
      const bins = Array.from(cellsAt(b, g), (value, k) => {
        const label = `[${edges[k]}, ${edges[k + 1]}${k === edges.length - 2 ? ']' : ')'}`;
        const e = fitted ? fittedEstimate(value, b, fitted.histograms[h]!.values[k]!, fitted.histograms[h]!.sd[k]!) : counted(value, b);
        table.push(Object.freeze({ group, statistic: 'histogram', column, at: label, ...e }));
        return Object.freeze({ bin: label, ...e });
      });
      row[`histogram(${column})`] = Object.freeze(bins);
    });
    layout.measures.forEach((m, k) => {
      const b = blockOf(layout, k);
      if (m.kind === 'clipped')
        add(`clipped(${m.column}, [${m.lower}, ${m.upper}])`, 'clipped', m.column, `[${m.lower}, ${m.upper}]`, counted(cellsAt(b, g)[0]!, b));
      else if (m.kind === 'dropped') add('dropped', 'dropped', undefined, undefined, counted(cellsAt(b, g)[0]!, b));
    });
    rows.push(Object.freeze(row));
  });
  return { rows, table, warnings };
}
