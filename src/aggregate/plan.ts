// The noise of an aggregate, fixed before any data is read: one mechanism over one group's vector
// (its blocks as groups of coordinates, each moved by at most maxRows times its per-row bound by
// one privacy unit), drawn for every group; a unit reaches at most maxGroups groups, so the
// release's privacy is that mechanism's composed maxGroups times (docs/aggregates.md,
// "Sensitivity"). Nothing depends on how many groups there are.
import { gaussianDistance } from '../accounting/distance.js';
import { certifies, type Privacy, purePrivacy, thresholdedPrivacy } from '../accounting/privacy.js';
import { compose, type Composable } from '../accounting/combinators.js';
import { independentMechanism, type GaussianMechanism, type LaplaceMechanism, wholeGroupsOf } from '../mechanisms/independent.js';
import { readTarget, type ValidTarget } from '../core/target.js';
import { memo } from '../core/memo.js';
import { log } from '../math/elementary.js';
import { largestMeeting } from '../math/search.js';
import { normalIsf } from '../math/special.js';
import { readProfile } from '../calibrate/allocations.js';
import { readMode } from '../mechanisms/grid.js';
import { GAUSSIAN, LAPLACE } from '../noise/families.js';
import { blockHalfWidths, blockOfKind, type Noised, scoreOf, sumMeasureOf, wholeLaplaceSd } from './accuracy.js';
import { type ExponentialQuantile, exponentialQuantile } from './quantiles.js';
import { type Block, LEAVES, layoutOf, type Layout, type QuantileMethod } from './layout.js';
import type { Spec } from './spec.js';
import { quantumOf, type Totals } from './totals.js';
import { sourceOf } from '../noise/random.js';
import type { SampleOptions } from '../noise/samplers.js';
import { wordsOf } from '../noise/words.js';
import { guaranteeWarnings } from './guarantee.js';

/** Sums are exact up to this many rows per group (the one rounding of an exact total to a double, docs/aggregates.md). */
const ROUNDING_MARGIN = 2 ** -20;

/** The share of delta that partition selection spends on keys only one neighbour has (beta). */
const SELECTION_SHARE = 1 / 4;

/**
 * The share of the budget the exponential mechanism's quantiles take between them, each counted
 * as a statistic: POINT_SHARE of a statistic's share each, the rest going to its interval's
 * levels in the vector (docs/aggregates.md, "Quantiles").
 */
const POINT_SHARE = 9 / 10;

export interface Plan extends Noised {
  /** With groups selected privately: a group is released when its noisy number of units is at least this (public). */
  readonly threshold: number | undefined;
  /** The mechanism of one group's vector. */
  readonly mechanism: GaussianMechanism | LaplaceMechanism;
  /** The release's privacy: the mechanism's, composed over the groups one unit reaches. */
  readonly privacy: Privacy;
  /** Each block's first coordinate in a group's vector. */
  readonly offsets: readonly number[];
  /** The length of a group's vector. */
  readonly length: number;
  /** Warnings on the privacy asked for (guarantee.ts): from it and the thresholds alone. */
  readonly warnings: readonly string[];
  /**
   * With bounds found privately: per block, the power of two its data is multiplied by before
   * the mechanism (calibrated for the widest bounds) noises it, and its noise divided by after
   * (found-bounds.ts).
   */
  readonly shrink?: Float64Array;
}

/** A block's per-row bound with the exact-sum rounding (one quantum, and the final double's). */
function perRowBound(block: Block, layout: Layout): number {
  const m = layout.measures[block.measure]!;
  return m.kind === 'sum' || m.kind === 'squares' ? block.perRow * (1 + ROUNDING_MARGIN) + quantumOf(block.perRow) : block.perRow;
}

/** What one unit can move each block of a group's vector by: 1 for its number of units, maxRows rows' worth for the rest. */
export function sensitivityOf(spec: Spec, layout: Layout): Float64Array {
  return Float64Array.from(layout.blocks, (b) => (layout.measures[b.measure]!.kind === 'units' ? 1 : spec.maxRows * perRowBound(b, layout)));
}

/** The target of one aggregate, from its options' `epsilon` and `delta` (the other options already read). */
export function readAggregateTarget(options: Readonly<Record<string, unknown>>): ValidTarget {
  return readTarget({ epsilon: options.epsilon, delta: options.delta }, ['pure', 'approximate']);
}

/**
 * The threshold on a group's noisy number of units that a group with one unit passes with
 * probability at most `beta` (docs/aggregates.md, "Partition selection"): 1 + m g, with g the
 * grid and m the steps the noise Y must reach. Discrete Gaussian noise of parameter s steps has
 * P(Y >= m) <= Q((m - 1) / s); discrete Laplace noise of scale b steps, P(Y >= m) <= e^(-m / b).
 */
function thresholdOf(mechanism: GaussianMechanism | LaplaceMechanism, layout: Layout, family: 'gaussian' | 'laplace', beta: number): number | undefined {
  const k = blockOfKind(layout, 'units');
  const g = mechanism.grid!;
  const steps = mechanism.scales[k]! / g;
  const m = family === 'gaussian' ? 1 + Math.ceil(steps * normalIsf(beta) * (1 + 2 ** -40)) : Math.ceil(steps * -log(beta) * (1 + 2 ** -40));
  // 1 + m g is exact when g is a power of two at most 2^-10 (the units' sensitivity is 1); a grid
  // made coarse by far wider blocks beside the units gives no such threshold.
  return g <= 2 ** -10 && m < 2 ** 52 ? 1 + m * g : undefined;
}

/** The gap at which the search for a per-group budget factor stops, below 1 when its composition, with its rounding, passes the target by a hair. */
const FACTOR_GAP = 1e-3;

/** The statistics a spec asks for, each quantile level one. */
function statisticsOf(spec: Spec): number {
  const quantiles = spec.quantile.reduce((n, { q }) => n + q.length, 0);
  return (spec.count ? 1 : 0) + spec.sum.length + spec.mean.length + spec.variance.length + spec.histogram.length + quantiles;
}

/** The spec's quantiles, each by the exponential mechanism at `epsilon` per group, when the layout says so. */
function exponentialQuantiles(spec: Spec, layout: Layout, epsilon: number): readonly ExponentialQuantile[] {
  if (layout.quantiles !== 'exponential') return [];
  return Object.freeze(
    spec.quantile.flatMap(({ column, bounds, q }) => {
      const measure = layout.measures.findIndex((m) => m.kind === 'leaves' && m.column === column && m.lower === bounds[0] && m.upper === bounds[1]);
      return q.map((level) => Object.freeze({ column, bounds, q: level, measure, epsilon, maxRows: spec.maxRows }));
    }),
  );
}

/**
 * The blocks of whole counts a Laplace mechanism may draw on the grid of 1 (docs/aggregates.md,
 * "Counts on the grid of 1"): the count, the histograms' bins, the clipped and dropped counts. Not
 * the count when a sum is released as S + shift N, whose interval takes N's noise as continuous
 * (sumNoise); nor the units, whose threshold is set on the fine grid.
 */
function wholeBlocks(spec: Spec, layout: Layout): boolean[] {
  const shifted = spec.sum.some((entry) => (layout.measures[sumMeasureOf(layout, entry, false)] as { shift: number }).shift !== 0);
  return layout.blocks.map((b) => {
    const kind = layout.measures[b.measure]!.kind;
    return kind === 'bins' || kind === 'clipped' || kind === 'dropped' || (kind === 'count' && !shifted);
  });
}

/** The plan of a spec for one noise family and layout; undefined when groups are selected and its grid is too coarse for the threshold. */
function candidate(spec: Spec, target: ValidTarget, family: 'gaussian' | 'laplace', layout: Layout): Omit<Plan, 'warnings'> | undefined {
  const G = spec.maxGroups;
  const pointEpsilon = (epsilon: number) => (layout.quantiles === 'exponential' ? (epsilon * POINT_SHARE) / statisticsOf(spec) / G : 0);
  const points = layout.quantiles === 'exponential' ? spec.quantile.flatMap(({ q }) => q).length : 0;
  const sensitivity = sensitivityOf(spec, layout);
  const sizes = layout.blocks.map((b) => b.size);
  const profile = readProfile({ groups: { sizes, sensitivity }, allocation: spec.weights === 'range' ? 'spr' : 'optimal' }, true);
  // Laplace noise meets (epsilon, delta) by meeting pure epsilon: grouped Laplace has no tighter route.
  const epsilon = (target as { epsilon: number }).epsilon;
  const delta = target.notion === 'approximate' ? target.delta : 0;
  const selecting = spec.groups === undefined;
  const beta = selecting ? delta * SELECTION_SHARE : 0;
  // The vector's share: what the exponential mechanism's quantiles leave (by basic composition).
  const vectorEpsilon = epsilon - points * pointEpsilon(epsilon) * G;
  const releases: ValidTarget = { notion: 'approximate', epsilon: vectorEpsilon, delta: delta - beta };
  const perGroup = (f: number): ValidTarget =>
    family === 'laplace' ? { notion: 'pure', epsilon: (vectorEpsilon / G) * f } : { notion: 'gdp', mu: (gaussianDistance(releases) / Math.sqrt(G)) * f };
  // Each per-group budget scaled by f: the largest f <= 1 whose release meets the target.
  const made = new Map<number, { mechanism: GaussianMechanism | LaplaceMechanism; exponential: readonly ExponentialQuantile[]; privacy: Privacy }>();
  const whole = wholeBlocks(spec, layout);
  const at = (f: number) =>
    memo(made, f, () => {
      const mechanism = independentMechanism(family === 'gaussian' ? GAUSSIAN : LAPLACE, perGroup(f), profile, readMode({}), whole);
      const exponential = exponentialQuantiles(spec, layout, pointEpsilon(epsilon) * f);
      const parts: Composable[] = [{ privacy: mechanism.privacy, times: G }];
      if (points > 0) parts.push({ privacy: purePrivacy(points * pointEpsilon(epsilon) * f, 'exponential'), times: G });
      const composed = parts.length === 1 && G === 1 ? mechanism.privacy : compose(parts);
      return { mechanism, exponential, privacy: selecting ? thresholdedPrivacy(composed, beta) : composed };
    });
  const f = largestMeeting((x) => certifies(at(x).privacy, epsilon, delta), 1 / 2, { gap: FACTOR_GAP, ceiling: 1 });
  const { mechanism, exponential, privacy } = at(f);
  const threshold = selecting ? thresholdOf(mechanism, layout, family, beta / G) : undefined;
  if (selecting && threshold === undefined) return undefined;
  const scale = mechanism.scales;
  const drawnWhole = wholeGroupsOf(mechanism);
  const sd = Float64Array.from(layout.blocks, (_, k) =>
    family === 'gaussian' ? scale[k]! : drawnWhole[k] ? wholeLaplaceSd(scale[k]!) : Math.SQRT2 * scale[k]!,
  );
  const halfWidth = blockHalfWidths(family, sd, scale, drawnWhole, spec.level);
  const offsets: number[] = [];
  let length = 0;
  for (const size of sizes) {
    offsets.push(length);
    length += size;
  }
  return Object.freeze({
    layout,
    family,
    mechanism,
    privacy,
    threshold,
    sensitivity,
    sd,
    halfWidth,
    grid: mechanism.grid!,
    whole: drawnWhole,
    offsets,
    length,
    exponential,
  });
}

/**
 * The plan of a spec at a privacy target, from public inputs only: of the noises the target
 * allows (Gaussian for (epsilon, delta), Laplace for pure epsilon and, as pure epsilon, for
 * (epsilon, delta); or the spec's `noise`), of sums plain or centred on the count, and of
 * quantiles by the exponential mechanism or the tree (or the spec's `quantileMethod`), the one
 * with the smallest error (scoreOf).
 */
export function planOf(spec: Spec, target: ValidTarget): Plan {
  if (spec.groups === undefined && spec.groupBy !== undefined && target.notion !== 'approximate') {
    throw new TypeError('dpnoise: selecting the groups privately (no `groups` given) needs `delta` in the privacy; or declare the groups.');
  }
  if (spec.noise === 'gaussian' && target.notion !== 'approximate') {
    throw new TypeError("dpnoise: Gaussian noise gives (epsilon, delta)-DP: give `delta` in the privacy, or `noise: 'laplace'` for pure epsilon-DP.");
  }
  const families = spec.noise ? [spec.noise] : target.notion === 'approximate' ? (['gaussian', 'laplace'] as const) : (['laplace'] as const);
  const methods: readonly QuantileMethod[] = spec.quantile.length === 0 ? ['tree'] : spec.quantileMethod ? [spec.quantileMethod] : ['exponential', 'tree'];
  const layouts = methods.flatMap((method) =>
    spec.sum.length > 0 ? [layoutOf(spec, false, method), layoutOf(spec, true, method)] : [layoutOf(spec, false, method)],
  );
  const candidates = families.flatMap((family) => layouts.flatMap((layout) => candidate(spec, target, family, layout) ?? []));
  if (candidates.length === 0)
    throw new RangeError(
      "dpnoise: the bounds are too wide beside the groups' numbers of units to select the groups privately at this privacy (one grid serves both, too coarse for the threshold): narrow the bounds (or `boundsLimit`), or declare the groups.",
    );
  const scores = candidates.map((c) => scoreOf(spec, c));
  const best = candidates[scores.indexOf(Math.min(...scores))]!;
  return Object.freeze({ ...best, warnings: Object.freeze(guaranteeWarnings(target, spec.warnAbove)) });
}

/** The release vector of exact totals, group by group in the plan's layout (quantile levels summed from the leaves). */
export function releaseVector(totals: Totals, groups: number, plan: Plan): Float64Array {
  const out = new Float64Array(groups * plan.length);
  plan.layout.blocks.forEach((block, k) => {
    const cells = totals[block.measure]!;
    const perGroup = block.level === 0 ? block.size : LEAVES;
    const span = block.level === 0 ? 1 : LEAVES / block.size; // leaves per node
    for (let g = 0; g < groups; g++) {
      const at = g * plan.length + plan.offsets[k]!;
      for (let i = 0; i < perGroup; i++) out[at + Math.floor(i / span)]! += cells[g * perGroup + i]!;
    }
  });
  return out;
}

/**
 * Each group's quantiles by the exponential mechanism (the plan's `exponential`, in order), from
 * its exact leaf counts, as values: group g's i-th at g E + i (E of them per group).
 */
export function chosenQuantiles(totals: Totals, groups: number, plan: Plan, rng: SampleOptions['rng']): Float64Array {
  const count = plan.exponential.length;
  const out = new Float64Array(groups * count);
  if (out.length === 0) return out;
  const next = wordsOf(sourceOf(rng));
  for (let g = 0; g < groups; g++) {
    plan.exponential.forEach(({ measure, q, epsilon, maxRows, bounds: [lower, upper] }, i) => {
      const k = exponentialQuantile(totals[measure]!.subarray(g * LEAVES, (g + 1) * LEAVES), q, epsilon, maxRows, next);
      out[g * count + i] = lower + (k / LEAVES) * (upper - lower);
    });
  }
  return out;
}

/**
 * Each group's vector with the plan's noise (each group's draws on their own, from `rng`); with
 * `shrink`, each block's data multiplied by its power of two before and the whole divided by it
 * after, exactly (powers of two), so the noise is the mechanism's divided by it.
 */
export function noised(exact: Float64Array, plan: Plan, options: SampleOptions): Float64Array {
  const out = new Float64Array(exact.length);
  const { rng } = options;
  const factor = plan.shrink && new Float64Array(plan.length);
  plan.layout.blocks.forEach((b, k) => {
    factor?.fill(plan.shrink![k]!, plan.offsets[k]!, plan.offsets[k]! + b.size);
  });
  const scaled = factor && exact.map((x, i) => x * factor[i % plan.length]!);
  for (let at = 0; at < exact.length; at += plan.length) {
    plan.mechanism.release((scaled ?? exact).subarray(at, at + plan.length), { rng, out: out.subarray(at, at + plan.length) });
  }
  if (factor) for (let i = 0; i < out.length; i++) out[i] = out[i]! / factor[i % plan.length]!;
  return out;
}
