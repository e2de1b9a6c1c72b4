// Private aggregates: counts, sums, means, quantiles and histograms over declared groups (or
// groups selected privately), with clipping, contribution bounding and a budget (docs/aggregates.md). The order is the privacy
// argument: the spec and the plan (all public) are checked first, then the source's columns, then
// the budget is charged, and only then is the data read, so a call refused by the budget reads
// nothing and any failure after the data is read has been paid for.
import { type PrivacyBudget, readBudgetArgument } from '../accounting/ledger.js';
import type { Privacy } from '../accounting/privacy.js';
import type { ApproximateTarget, PureTarget, ValidTarget } from '../core/target.js';
import { readOptions } from '../core/validate.js';
import { releaseBlock } from '../mechanisms/independent.js';
import { sourceOf } from '../noise/random.js';
import type { SampleOptions } from '../noise/samplers.js';
import { type AccuracyLine, accuracyOf, blockOfKind } from './accuracy.js';
import { type AggregateLine, type Estimate, estimatesOf } from './estimates.js';
import { type BoundsSearch, boundsSearchOf, foundBounds, resolved, searchedPlan } from './found-bounds.js';
import type { Layout } from './layout.js';
import { chosenQuantiles, noised, type Plan, planOf, readAggregateTarget, releaseVector } from './plan.js';
import { isColumnar, memoryReader } from './columnar.js';
import { rowTotals } from './rows.js';
import { checkColumnar, openEngine } from './source.js';
import { engineTotals } from './sql.js';
import type { AggregateRow, RowOf } from './row-types.js';
import { type AggregateSpec, readSpec, type Spec, SPEC_OPTIONS } from './spec.js';
import type { GroupTotals } from './totals.js';

/**
 * An aggregate's plan: what it releases and how accurately, from public inputs only.
 *
 * @group Aggregates
 */
export interface AggregatePlan {
  /** One line per statistic asked for: its noise and interval half-width. */
  readonly accuracy: readonly AccuracyLine[];
  /** The privacy of the release (what a budget is charged). */
  readonly privacy: Privacy;
  /** Who is protected: "each person_id (at most 1 row in each of at most 3 groups)" or "each row (no privacy unit given)". */
  readonly unit: string;
  /** The groups: declared; or, when they are selected privately, undefined in a plan and the ones released in a result. */
  readonly groups: readonly string[] | undefined;
  /** With groups selected privately: a group is released when its noisy number of units reaches this. */
  readonly threshold: number | undefined;
  /** The interval level. */
  readonly level: number;
  /** Warnings on the privacy asked for: epsilon or delta above the thresholds of `warnAbove` (a guarantee that means little). */
  readonly warnings: readonly string[];
  /** With bounds written 'private': what finding them spends, and the bounds; otherwise undefined. */
  readonly privateBounds: PrivateBounds | undefined;
}

/**
 * What finding bounds privately spends, and the bounds (docs/aggregates.md, "Bounds found
 * privately").
 *
 * @group Aggregates
 */
export interface PrivateBounds {
  /** The share of epsilon spent finding the bounds. */
  readonly share: number;
  /** The privacy of finding them (pure epsilon-DP); the aggregate's `privacy` is it composed with the release's. */
  readonly privacy: Privacy;
  /** The epsilon the release itself is calibrated for: what finding the bounds leaves. */
  readonly releaseEpsilon: number;
  /** The fraction of each column's values its bounds are to hold, by their noisy counts. */
  readonly coverage: number;
  /** Whether `bounds` are found (in a result) or the widest candidates the noise is planned for (in a plan). */
  readonly found: boolean;
  /** Each column's bounds: found (noisy outputs, released like the figures), or in a plan the widest candidates. */
  readonly bounds: Readonly<Record<string, readonly [number, number]>>;
}

/**
 * A released aggregate.
 *
 * @group Aggregates
 */
export interface AggregateResult<Row = AggregateRow> extends AggregatePlan {
  /** The groups released (declared, or selected privately). */
  readonly groups: readonly string[];
  /** Per group: `group`, and each statistic's Estimate by its name (histograms: a list of bins); typed from the options by `aggregate`. */
  readonly rows: readonly Row[];
  /** The same, one line per statistic (and bin, and quantile), for CSV. */
  readonly table: readonly AggregateLine[];
  /** The plan's warnings, then what to know of the released figures, from them alone: a quantile whose interval is the whole bounds, say. */
  readonly warnings: readonly string[];
}

/**
 * The target of an aggregate, as flat options: `epsilon`, and `delta` for Gaussian noise
 * ((epsilon, delta)-DP); `epsilon` alone is pure epsilon-DP (Laplace noise).
 *
 * @group Aggregates
 */
export type AggregateTarget = ApproximateTarget | PureTarget;

/**
 * The options of planAggregate: the target and the spec (`table` may be left out).
 *
 * @group Aggregates
 */
export type PlanAggregateOptions = AggregateTarget &
  Omit<AggregateSpec, 'table'> & {
    /** The table, which a plan does not read: it may be left out. */
    table?: AggregateSpec['table'];
  };

/**
 * The options of aggregate: the target, the spec, `budget` (a ledger charged before any data is
 * read) and `rng` for the noise (default the CSPRNG; a seeded one for tests only).
 *
 * @group Aggregates
 */
export type AggregateOptions = AggregateTarget &
  AggregateSpec &
  SampleOptions & {
    /** A ledger (createBudget) charged for the release's `privacy` before any row is read: a charge it refuses throws and reads nothing. */
    budget?: PrivacyBudget;
  };

const TARGET_OPTIONS = ['epsilon', 'delta'] as const;

/** The spec's options alone, without the target, the ledger and the noise source. */
function specOptions(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !(TARGET_OPTIONS as readonly string[]).includes(k) && k !== 'budget' && k !== 'rng'));
}

function unitOf(spec: Spec): string {
  if (spec.unit === undefined) return 'each row (no privacy unit given: a person with several rows is protected less)';
  return `each ${spec.unit} (at most ${spec.maxRows} row${spec.maxRows === 1 ? '' : 's'} in each of at most ${spec.maxGroups} group${spec.maxGroups === 1 ? '' : 's'})`;
}

/** The report of a bounds search: the spec's bounds (found, or the widest candidates). */
function privateBoundsOf(spec: Spec, search: BoundsSearch | undefined, found: boolean): PrivateBounds | undefined {
  if (search === undefined) return undefined;
  const bounds = Object.fromEntries([...spec.sum, ...spec.mean, ...spec.variance].filter((s) => s.found !== undefined).map((s) => [s.column, s.bounds]));
  const releaseEpsilon = (search.release as { epsilon: number }).epsilon;
  return Object.freeze({ share: search.share, privacy: search.plan.privacy, releaseEpsilon, coverage: search.coverage, found, bounds: Object.freeze(bounds) });
}

/** The plan of a spec at a target, with its bounds search when it has bounds written 'private'. */
function planFor(spec: Spec, target: ValidTarget): { plan: Plan; search: BoundsSearch | undefined } {
  const search = boundsSearchOf(spec, target);
  return { plan: search ? searchedPlan(spec, target, search) : planOf(spec, target), search };
}

function planned(spec: Spec, plan: Plan, privateBounds?: PrivateBounds): AggregatePlan {
  return {
    accuracy: Object.freeze(accuracyOf(spec, plan)),
    privacy: plan.privacy,
    unit: unitOf(spec),
    groups: spec.groups,
    threshold: plan.threshold,
    level: spec.level,
    warnings: plan.warnings,
    privateBounds,
  };
}

/**
 * The groups released: all of them when they are declared; when they are selected, those whose
 * noisy number of units reaches the plan's threshold. Every candidate's count is noised first and
 * only the groups kept get the rest of their vector: each coordinate's noise is drawn
 * independently, so the release has the law of one whole vector per candidate, at a cost of one
 * draw per candidate that is not released (docs/aggregates.md, "Partition selection").
 */
function keptGroups(found: GroupTotals, plan: Plan, rng: SampleOptions['rng']): { kept: number[]; units?: Float64Array } {
  const all = found.groups.map((_, g) => g);
  if (plan.threshold === undefined || all.length === 0) return { kept: all };
  const units = releaseBlock(plan.mechanism, blockOfKind(plan.layout, 'units'), found.units(), { rng });
  return { kept: all.filter((g) => units[g]! >= plan.threshold!), units };
}

/** The release of an engine's totals (budget already charged): the selected groups, the noise, the estimates. */
export function released(spec: Spec, plan: Plan, found: GroupTotals, rng: SampleOptions['rng'], privateBounds?: PrivateBounds): AggregateResult {
  const { kept, units } = keptGroups(found, plan, rng);
  const groups = Object.freeze(kept.map((g) => found.groups[g]!));
  const totals = found.totalsOf(kept);
  const noisy = noised(releaseVector(totals, kept.length, plan), plan, { rng });
  // A selected group's number of units is the draw that selected it: the vector's own draw of
  // that coordinate is discarded, so each coordinate is released once (docs/aggregates.md,
  // "Partition selection").
  if (units) {
    const at = plan.offsets[blockOfKind(plan.layout, 'units')]!;
    kept.forEach((g, i) => {
      noisy[i * plan.length + at] = units[g]!;
    });
  }
  const { rows, table, warnings } = estimatesOf(noisy, chosenQuantiles(totals, kept.length, plan, rng), groups, spec, plan);
  return Object.freeze({
    ...planned(spec, plan, privateBounds),
    groups,
    rows: Object.freeze(rows as unknown as AggregateRow[]),
    table: Object.freeze(table),
    warnings: Object.freeze([...plan.warnings, ...warnings]),
  });
}

/**
 * The plan of an aggregate (its accuracy table and privacy) at the target `epsilon` (and
 * `delta`), without reading any data: `table` may be left out.
 *
 * @group Aggregates
 */
export function planAggregate(options: PlanAggregateOptions): AggregatePlan {
  const o = readOptions('options', options, [...TARGET_OPTIONS, ...SPEC_OPTIONS]);
  const target = readAggregateTarget(o);
  const spec = readSpec({ ...specOptions(o), table: o.table ?? [] });
  const { plan, search } = planFor(spec, target);
  return Object.freeze(planned(spec, plan, privateBoundsOf(spec, search, false)));
}

/**
 * Releases private statistics of a table over declared groups (or, without `groups`, groups
 * selected privately) at the target `epsilon` (and `delta`), charging the optional `budget` for
 * the release's `privacy` first (it throws, reading nothing, if that would exceed it). Each value column is clipped to
 * its declared bounds; with `privacyUnit`, each unit counts in at most `maxGroups` groups with at
 * most `maxRows` rows in each (chosen uniformly at random), and without it each row is its own
 * unit. Each group's counts, sums, means' sums, histogram bins and quantile trees are one vector
 * noised by one mechanism in grid mode (exact discrete noise), its noise spread by `weights`: Gaussian
 * ((epsilon, delta)-DP) or Laplace (pure epsilon-DP, which is also (epsilon, delta)-DP), by
 * default whichever predicts the smaller error. Files and DuckDB tables need `@duckdb/node-api`,
 * PostgreSQL tables `pg`, ClickHouse tables (`{ clickhouse: url, table }`, a Distributed table
 * too) no package; the aggregation then runs in the engine and only the totals come back.
 *
 * @example
 * ```ts
 * import { createBudget } from 'dpnoise';
 * import { aggregate } from 'dpnoise/aggregate';
 *
 * const budget = createBudget({ epsilon: 2, delta: 1e-6 });
 * const rows = [
 *   { id: 1, region: 'north', age: 34, income: 41000 },
 *   { id: 2, region: 'south', age: 51, income: 58000 },
 * ];
 * const r = await aggregate({
 *   epsilon: 1, delta: 1e-6, budget, table: rows, privacyUnit: 'id', groupBy: 'region', groups: ['north', 'south'],
 *   count: true, mean: { age: [0, 100] }, sum: { income: [0, 500000] },
 * });
 * console.log(r.rows[0]); // { group: 'north', count: { value, sd, low, high }, ... }
 * console.log(budget.spent.epsilon); // <= 1
 * ```
 *
 * @group Aggregates
 */
export async function aggregate<const O extends AggregateOptions>(options: O): Promise<AggregateResult<RowOf<O>>> {
  const o = readOptions('options', options, [...TARGET_OPTIONS, ...SPEC_OPTIONS, 'budget', 'rng']);
  const budget = o.budget === undefined ? undefined : readBudgetArgument(o.budget);
  const target = readAggregateTarget(o);
  const rng = sourceOf(o.rng);
  const spec = readSpec(specOptions(o));
  const { plan, search } = planFor(spec, target);
  const inMemory = Array.isArray(spec.source) || isColumnar(spec.source);
  // An Arrow or Arquero table's columns are its schema, checked before anything is charged or read.
  if (isColumnar(spec.source)) checkColumnar(spec, spec.source);
  const source = inMemory ? undefined : await openEngine(spec);
  try {
    budget?.spend(plan.privacy);
    const read = async (s: Spec, layout: Layout) =>
      source
        ? await engineTotals(source.engine, source.columns, s, layout)
        : rowTotals(memoryReader(spec.source as Parameters<typeof memoryReader>[0]), s, layout);
    // Bounds found privately first (a read of their own), then the release with them.
    const release = search ? resolved(spec, plan, foundBounds(search, await read(search.spec, search.plan.layout), rng)) : { spec, plan };
    const found = await read(release.spec, release.plan.layout);
    // The rows have the statistics the options ask for, by construction (estimatesOf).
    return released(release.spec, release.plan, found, rng, privateBoundsOf(release.spec, search, true)) as AggregateResult<RowOf<O>>;
  } finally {
    await source?.engine.close();
  }
}

export type { AccuracyLine, AggregateLine, Estimate };
