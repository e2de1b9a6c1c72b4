// The type of an aggregate's rows, from its options: with `count: true` a row has `count`, with
// `mean: { age: [0, 100] }` it has 'mean(age)', with `quantile: { income: { bounds, q: [0.5, 0.9] } }`
// it has 'quantile(income, 0.5)' and 'quantile(income, 0.9)', so that strict TypeScript reads
// `r.rows[0]['mean(age)'].value` without a cast. Types only: nothing here runs.
import type { Estimate } from './estimates.js';

/**
 * A histogram's bin in a row: its label and its estimate.
 *
 * @group Aggregates
 */
export interface HistogramBin extends Estimate {
  /** The bin's label: "[0, 18)", the last "[65, 100]". */
  readonly bin: string;
}

/**
 * Any aggregate's row: `group`, and each statistic by its name (the statistics `diagnostics`
 * adds among them).
 *
 * @group Aggregates
 */
export interface AggregateRow {
  /** The group's label. */
  readonly group: string;
  /** The number of rows, with `count: true`. */
  readonly count?: Estimate;
  /** The number of distinct privacy units, with `units: true`. */
  readonly units?: Estimate;
  /** With `diagnostics` and `invalid: 'drop'`: the number of rows dropped. */
  readonly dropped?: Estimate;
  readonly [sum: `sum(${string})`]: Estimate;
  readonly [mean: `mean(${string})`]: Estimate;
  readonly [variance: `variance(${string})`]: Estimate;
  readonly [stddev: `stddev(${string})`]: Estimate;
  readonly [quantile: `quantile(${string})`]: Estimate;
  readonly [histogram: `histogram(${string})`]: readonly HistogramBin[];
  readonly [clipped: `clipped(${string})`]: Estimate;
  /** Any statistic by a name computed at run time. */
  readonly [statistic: string]: unknown;
}

/**
 * The row of an aggregate with options `O`: any aggregate's (AggregateRow), with the statistics
 * `O` asks for sure to be there: `count`, `units`; 'sum(income)', 'mean(age)', 'variance(age)',
 * 'stddev(age)' and 'histogram(age)' for
 * each column named; 'quantile(income, 0.5)' for each column and level.
 *
 * @group Aggregates
 */
export type RowOf<O> = AggregateRow &
  Readonly<
    ('count' extends keyof O ? (O['count'] extends true ? Record<'count', Estimate> : unknown) : unknown) &
      ('units' extends keyof O ? (O['units'] extends true ? Record<'units', Estimate> : unknown) : unknown) &
      Record<`sum(${keyof O['sum' & keyof O] & string})`, Estimate> &
      Record<`mean(${keyof O['mean' & keyof O] & string})`, Estimate> &
      Record<`variance(${keyof O['variance' & keyof O] & string})` | `stddev(${keyof O['variance' & keyof O] & string})`, Estimate> &
      Record<
        {
          [K in keyof O['quantile' & keyof O] &
            string]: `quantile(${K}, ${O['quantile' & keyof O][K]['q' & keyof O['quantile' & keyof O][K]] extends readonly (infer N extends number)[] ? N : O['quantile' & keyof O][K]['q' & keyof O['quantile' & keyof O][K]] extends number ? O['quantile' & keyof O][K]['q' & keyof O['quantile' & keyof O][K]] : never})`;
        }[keyof O['quantile' & keyof O] & string],
        Estimate
      > &
      Record<`histogram(${keyof O['histogram' & keyof O] & string})`, readonly HistogramBin[]>
  >;
