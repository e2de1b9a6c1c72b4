// Bounds found privately (docs/aggregates.md, "Bounds found privately"): a share of epsilon buys
// one noisy histogram per column over its candidates' bins (bounds-search.ts), read before the
// release; the release's mechanism is fixed before any row is read, for the widest candidates, so
// the privacy charged is known in advance: the histograms' and the release's, composed by the
// accountant. Once the bounds are found, each block's data and noise shrink by the same power of
// two, which leaves that mechanism's privacy as it was.
import { compose } from '../accounting/combinators.js';
import { certifies } from '../accounting/privacy.js';
import type { ValidTarget } from '../core/target.js';
import type { SampleOptions } from '../noise/samplers.js';
import { blockOf } from './accuracy.js';
import { guaranteeWarnings } from './guarantee.js';
import { chosenBounds, emptyBelow, type Search, searchOf } from './bounds-search.js';
import { type Layout, type Measure, perRowOf } from './layout.js';
import { noised, type Plan, planOf, releaseVector, sensitivityOf } from './plan.js';
import { type BoundedColumn, type Interval, readSpec, type Spec } from './spec.js';
import type { GroupTotals } from './totals.js';

/** The search for a spec's bounds: its own spec (one histogram per column, one group), its plan, and each column's search. */
export interface BoundsSearch {
  /** The share of epsilon it spends. */
  readonly share: number;
  readonly coverage: number;
  readonly spec: Spec;
  readonly plan: Plan;
  readonly searches: ReadonlyMap<string, Search>;
  /** The target the release itself is calibrated for: epsilon less the search's share, the same delta. */
  readonly release: ValidTarget;
}

/** Epsilon split: the search's share, and the rest, rounded down so that the two add up to at most epsilon. */
function split(epsilon: number, share: number): [number, number] {
  const search = epsilon * share;
  let rest = epsilon - search;
  while (search + rest > epsilon) rest *= 1 - 2 ** -52;
  return [search, rest];
}

/** The entries of a spec whose bounds are found privately. */
const foundEntries = (spec: Spec): BoundedColumn[] => [...spec.sum, ...spec.mean, ...spec.variance].filter((s) => s.found !== undefined);

/**
 * The search a spec's bounds written 'private' need, or undefined when it has none. Each column
 * is counted once over the whole table, without groups: each unit's rows kept at most maxRows (a
 * unit moves the histogram by at most maxRows), each value in one bin, noised with discrete
 * Laplace noise for pure epsilon-DP at the share.
 */
export function boundsSearchOf(spec: Spec, target: ValidTarget): BoundsSearch | undefined {
  if (spec.findBounds === undefined) return undefined;
  const epsilon = (target as { epsilon: number }).epsilon;
  const [searchEpsilon, rest] = split(epsilon, spec.findBounds.share);
  const searches = new Map<string, Search>();
  for (const { column, found } of foundEntries(spec)) searches.set(column, searchOf(found!, column));
  const searchSpec = readSpec({
    table: spec.source,
    ...(spec.unit === undefined ? {} : { privacyUnit: spec.unit, maxRows: spec.maxRows }),
    histogram: Object.fromEntries([...searches].map(([column, search]) => [column, { bins: search.edges }])),
    invalid: spec.invalid,
    noise: 'laplace',
  });
  const release: ValidTarget =
    target.notion === 'approximate' ? { notion: 'approximate', epsilon: rest, delta: target.delta } : { notion: 'pure', epsilon: rest };
  return Object.freeze({
    share: spec.findBounds.share,
    coverage: spec.findBounds.coverage,
    spec: searchSpec,
    plan: planOf(searchSpec, { notion: 'pure', epsilon: searchEpsilon }),
    searches,
    release,
  });
}

/**
 * The plan of a spec whose bounds are found privately, before any row is read: the release's,
 * calibrated for the widest candidates at what the search leaves, with the privacy of the search
 * and the release composed by the accountant (what a budget is charged).
 */
export function searchedPlan(spec: Spec, target: ValidTarget, search: BoundsSearch): Plan {
  const plan = planOf(spec, search.release);
  const privacy = compose([search.plan.privacy, plan.privacy]);
  const epsilon = (target as { epsilon: number }).epsilon;
  if (!certifies(privacy, epsilon, target.notion === 'approximate' ? target.delta : 0))
    throw new Error('dpnoise: internal error: the bounds search and the release composed pass the target.');
  // The warnings on the privacy asked for are on the whole target, not the release's part of it.
  return Object.freeze({ ...plan, privacy, warnings: Object.freeze(guaranteeWarnings(target, spec.warnAbove)) });
}

/** Each column's bounds from the search's exact totals: its histogram noised, then its candidate chosen, bins within the noise taken as empty (bounds-search.ts). */
export function foundBounds(search: BoundsSearch, totals: GroupTotals, rng: SampleOptions['rng']): ReadonlyMap<string, Interval> {
  const { plan } = search;
  const noisy = noised(releaseVector(totals.totalsOf([0]), 1, plan), plan, { rng });
  const found = new Map<string, Interval>();
  plan.layout.measures.forEach((m, i) => {
    if (m.kind !== 'bins') return;
    const k = blockOf(plan.layout, i);
    const bins = noisy.subarray(plan.offsets[k]!, plan.offsets[k]! + plan.layout.blocks[k]!.size);
    // The bins' Laplace noise, of scale b (on the grid of 1: docs/aggregates.md, "Counts on the grid of 1").
    const empty = emptyBelow(plan.mechanism.scales[k]!, bins.length);
    found.set(m.column, chosenBounds(search.searches.get(m.column)!, bins, search.coverage, empty));
  });
  return found;
}

/** A measure with the bounds found for its column (a centred one centred on their midpoint; a count of clipped values, of those outside them). */
function resolvedMeasure(m: Measure, found: ReadonlyMap<string, Interval>): Measure {
  if ((m.kind !== 'sum' && m.kind !== 'squares' && m.kind !== 'clipped') || m.found === undefined) return m;
  const [lower, upper] = found.get(m.column)!;
  if (m.kind === 'clipped') return Object.freeze({ ...m, lower, upper });
  // Plain sums have shift 0; a centred one's widest candidate is never centred on 0 unless both ends are found (bounds-search.ts), and then neither is.
  const centred = m.shift !== 0 || m.lower + m.upper === 0;
  return Object.freeze({ ...m, lower, upper, shift: centred ? (lower + upper) / 2 : 0 });
}

/**
 * The spec and plan of the release with the bounds found: the spec's bounds replaced; the plan's
 * layout the same measures with those bounds, and each block's `shrink` the largest power of two t
 * with t times its new sensitivity within the old: the mechanism then sees data that one unit
 * moves no more than it was calibrated for, so its privacy (already charged) holds.
 */
export function resolved(spec: Spec, plan: Plan, found: ReadonlyMap<string, Interval>): { spec: Spec; plan: Plan } {
  const entries = (list: readonly BoundedColumn[]) => list.map((s) => (s.found === undefined ? s : Object.freeze({ ...s, bounds: found.get(s.column)! })));
  const newSpec: Spec = Object.freeze({ ...spec, sum: entries(spec.sum), mean: entries(spec.mean), variance: entries(spec.variance) });
  const measures = plan.layout.measures.map((m) => resolvedMeasure(m, found));
  const blocks = plan.layout.blocks.map((b) => {
    const m = measures[b.measure]!;
    return Object.freeze({ ...b, perRow: m.kind === 'sum' || m.kind === 'squares' ? perRowOf(m) : b.perRow });
  });
  const layout: Layout = Object.freeze({ ...plan.layout, measures: Object.freeze(measures), blocks: Object.freeze(blocks) });
  const sensitivity = sensitivityOf(newSpec, layout);
  const shrink = Float64Array.from(sensitivity, (s, k) => {
    const old = plan.sensitivity[k]!;
    let t = 2 ** Math.floor(Math.log2(old / s));
    while (t * s > old) t /= 2;
    while (2 * t * s <= old) t *= 2;
    if (!(t >= 1)) throw new Error('dpnoise: internal error: bounds found beyond the widest candidate.');
    return t;
  });
  const sd = Float64Array.from(plan.sd, (x, k) => x / shrink[k]!);
  const halfWidth = Float64Array.from(plan.halfWidth, (x, k) => x / shrink[k]!);
  return { spec: newSpec, plan: Object.freeze({ ...plan, layout, sensitivity, sd, halfWidth, shrink }) };
}
