// From the noisy release vector to the statistics a user reads, each with its noise standard
// deviation and an interval (docs/aggregates.md, "Intervals"). Everything here post-processes the
// noisy vector and public parameters: nothing reads the exact totals.
import { blockOf, blockOfKind, measureOf, sumMeasureOf, sumNoise, widthPerSd } from './accuracy.js';
import { BRANCHING, clip, DEPTH, LEAVES, type Measure } from './layout.js';
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
  /** The noise's standard deviation (for a mean, by the delta method; for a quantile, in rows of rank). */
  readonly sd: number;
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
  /** 'count', 'sum', 'mean', 'quantile', 'histogram', 'clipped' or 'dropped'. */
  readonly statistic: string;
  /** The column (undefined for a count). */
  readonly column: string | undefined;
  /** The quantile's level, or the histogram bin's label ("[0, 18)"). */
  readonly at: string | undefined;
}

const estimate = (value: number, sd: number, width: number): Estimate => Object.freeze({ value, sd, low: value - width * sd, high: value + width * sd });

/**
 * The value at rank r of a noisy quantile tree (levels 1 to DEPTH), by descent from the root, and
 * how many nodes of each level its path passes (the noisy prefix that stands for its rank).
 */
function descend(levels: readonly Float64Array[], rank: number, lower: number, upper: number): { value: number; before: number[] } {
  let node = 0;
  let remaining = rank;
  let last = 0;
  const before: number[] = [];
  for (const level of levels) {
    let child = 0;
    for (; child < BRANCHING - 1; child++) {
      // Unclamped: a prefix of noisy counts errs by its noise alone (clamping at 0 would bias it up).
      const c = level[node * BRANCHING + child]!;
      if (remaining <= c) break;
      remaining -= c;
    }
    before.push(child);
    node = node * BRANCHING + child;
    last = level[node]!;
  }
  const fraction = last > 0 ? clip(remaining / last, 0, 1) : 0.5;
  return { value: lower + ((node + fraction) / LEAVES) * (upper - lower), before };
}

/**
 * A quantile q's estimate, with the sd of its rank error. The value found has noisy rank P (the
 * b_l nodes its path passes at each level l) set equal to q T, T the sum of the first level's
 * BRANCHING nodes; the error q T - P is a sum of node noises, of variance
 * sd^2 ((1 - q)^2 b_1 + q^2 (BRANCHING - b_1) + b_2 + ... + b_DEPTH). The interval is the values
 * found at q T plus or minus `width` of those sds.
 */
function quantileEstimate(levels: readonly Float64Array[], q: number, lower: number, upper: number, nodeSd: number, width: number): Estimate {
  const total = Math.max(
    0,
    levels[0]!.reduce((a, x) => a + x, 0),
  );
  const at = (r: number) => descend(levels, clip(r, 0, total), lower, upper);
  const found = at(q * total);
  const [first, ...deeper] = found.before as [number, ...number[]];
  const variance = (1 - q) ** 2 * first + q * q * (BRANCHING - first) + deeper.reduce((a, b) => a + b, 0);
  const sd = nodeSd * Math.sqrt(variance);
  return Object.freeze({ value: found.value, sd, low: at(q * total - width * sd).value, high: at(q * total + width * sd).value });
}

/** The statistics of a noisy release vector: per group, and as a long table. */
export function estimatesOf(
  noisy: Float64Array,
  groups: readonly string[],
  spec: Spec,
  plan: Plan,
): { rows: Record<string, unknown>[]; table: AggregateLine[] } {
  const { layout, offsets, sd } = plan;
  const width = widthPerSd(plan.family, spec.level);
  /** A block's coordinates for group g. */
  const cellsAt = (block: number, g: number) => {
    const at = g * plan.length + offsets[block]!;
    return noisy.subarray(at, at + layout.blocks[block]!.size);
  };
  const countBlock = blockOfKind(layout, 'count');
  const rows: Record<string, unknown>[] = [];
  const table: AggregateLine[] = [];
  groups.forEach((group, g) => {
    const row: Record<string, unknown> = { group };
    const add = (key: string, statistic: string, column: string | undefined, at: string | undefined, e: Estimate) => {
      row[key] = e;
      table.push(Object.freeze({ group, statistic, column, at, ...e }));
    };
    const count = () => cellsAt(countBlock, g)[0]!;
    if (spec.count) add('count', 'count', undefined, undefined, estimate(count(), sd[countBlock]!, width));
    for (const { column, bounds } of spec.sum) {
      const measure = sumMeasureOf(layout, column, bounds, false);
      const { shift } = layout.measures[measure] as Measure & { kind: 'sum' };
      // A centred sum S gives the sum S + shift N (docs/aggregates.md, "One vector per group").
      const value = cellsAt(blockOf(layout, measure), g)[0]! + (shift === 0 ? 0 : shift * count());
      const noise = sumNoise(plan, measure, spec.level);
      add(`sum(${column})`, 'sum', column, undefined, Object.freeze({ value, sd: noise.sd, low: value - noise.halfWidth, high: value + noise.halfWidth }));
    }
    for (const { column, bounds } of spec.mean) {
      const [lower, upper] = bounds;
      const middle = (lower + upper) / 2;
      const b = blockOf(layout, sumMeasureOf(layout, column, bounds, true));
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
    for (const { column, bounds, q } of spec.quantile) {
      const [lower, upper] = bounds;
      const m = measureOf(layout, { kind: 'leaves', column, lower, upper });
      const levels = Array.from({ length: DEPTH }, (_, l) => cellsAt(blockOf(layout, m, l + 1), g));
      for (const level of q)
        add(
          `quantile(${column}, ${level})`,
          'quantile',
          column,
          String(level),
          quantileEstimate(levels, level, lower, upper, sd[blockOf(layout, m, 1)]!, width),
        );
    }
    for (const { column, edges } of spec.histogram) {
      const b = blockOf(layout, measureOf(layout, { kind: 'bins', column, edges }));
      const bins = Array.from(cellsAt(b, g), (value, k) => {
        const label = `[${edges[k]}, ${edges[k + 1]}${k === edges.length - 2 ? ']' : ')'}`;
        const e = estimate(value, sd[b]!, width);
        table.push(Object.freeze({ group, statistic: 'histogram', column, at: label, ...e }));
        return Object.freeze({ bin: label, ...e });
      });
      row[`histogram(${column})`] = Object.freeze(bins);
    }
    layout.measures.forEach((m, k) => {
      const b = blockOf(layout, k);
      if (m.kind === 'clipped')
        add(`clipped(${m.column}, [${m.lower}, ${m.upper}])`, 'clipped', m.column, `[${m.lower}, ${m.upper}]`, estimate(cellsAt(b, g)[0]!, sd[b]!, width));
      else if (m.kind === 'dropped') add('dropped', 'dropped', undefined, undefined, estimate(cellsAt(b, g)[0]!, sd[b]!, width));
    });
    rows.push(Object.freeze(row));
  });
  return { rows, table };
}
