// The noise of an aggregate, fixed before any data is read: one mechanism over the whole release
// vector, each block a group of coordinates whose l2 norm (Gaussian) or l1 norm (Laplace) one
// privacy unit can move by at most maxRows x maxGroups^(1/2 or 1) x its per-row bound
// (docs/aggregates.md, "Sensitivity").
import { independentMechanism, type GaussianMechanism, type LaplaceMechanism } from '../mechanisms/independent.js';
import { readBudget, type Target } from '../core/budget.js';
import { readOptions } from '../core/validate.js';
import { readProfile } from '../calibrate/allocations.js';
import { readMode } from '../mechanisms/grid.js';
import { GAUSSIAN, LAPLACE } from '../noise/families.js';
import { type Noised, scoreOf } from './accuracy.js';
import { type Block, LEAVES, layoutOf, type Layout } from './layout.js';
import type { Spec } from './spec.js';
import { quantumOf, type Totals } from './totals.js';

/** Sums are exact up to this many rows per group (the one rounding of an exact total to a double, docs/aggregates.md). */
const ROUNDING_MARGIN = 2 ** -20;

export interface Plan extends Noised {
  readonly mechanism: GaussianMechanism | LaplaceMechanism;
  /** Each block's first coordinate in the release vector. */
  readonly offsets: readonly number[];
  readonly length: number;
}

/** A block's per-row bound with the exact-sum rounding (one quantum, and the final double's). */
function perRowBound(block: Block, layout: Layout): number {
  const m = layout.measures[block.measure]!;
  return m.kind === 'sum' ? block.perRow * (1 + ROUNDING_MARGIN) + quantumOf(block.perRow) : block.perRow;
}

/** The privacy asked of one aggregate: `{ epsilon, delta }` or `{ epsilon }`. */
export function readAggregatePrivacy(privacy: unknown): Target {
  return readBudget(readOptions('privacy', privacy, ['epsilon', 'delta']), ['pure', 'approximate']);
}

/** The plan of a spec for one noise family and layout. */
function candidate(spec: Spec, target: Target, family: 'gaussian' | 'laplace', layout: Layout): Plan {
  const n = spec.groups.length;
  const R = spec.maxRows;
  const G = spec.maxGroups;
  const reach = family === 'gaussian' ? R * Math.sqrt(G) : R * G;
  const sensitivity = Float64Array.from(layout.blocks, (b) => reach * perRowBound(b, layout));
  const sizes = layout.blocks.map((b) => n * b.size);
  const profile = readProfile({ groups: { sizes, sensitivity }, allocation: spec.weights === 'range' ? 'spr' : 'optimal' }, true);
  // Laplace noise meets (epsilon, delta) by meeting pure epsilon: grouped Laplace has no tighter route.
  const budget: Target = family === 'laplace' ? { notion: 'pure', epsilon: (target as { epsilon: number }).epsilon } : target;
  const mechanism = independentMechanism(family === 'gaussian' ? GAUSSIAN : LAPLACE, budget, profile, readMode({}));
  const scale = mechanism.scales;
  const sd = Float64Array.from(layout.blocks, (_, k) => (family === 'gaussian' ? scale[k]! : Math.SQRT2 * scale[k]!));
  const offsets: number[] = [];
  let length = 0;
  for (const size of sizes) {
    offsets.push(length);
    length += size;
  }
  return Object.freeze({ layout, family, mechanism, sensitivity, sd, offsets, length });
}

/**
 * The plan of a spec at a privacy target, from public inputs only: of the noises the target
 * allows (Gaussian for (epsilon, delta), Laplace for pure epsilon and, as pure epsilon, for
 * (epsilon, delta); or the spec's `noise`) and of sums plain or centred on the count, the one
 * with the smallest error (scoreOf).
 */
export function planOf(spec: Spec, target: Target): Plan {
  if (spec.noise === 'gaussian' && target.notion !== 'approximate') {
    throw new TypeError("dpnoise: Gaussian noise gives (epsilon, delta)-DP: give `delta` in the privacy, or `noise: 'laplace'` for pure epsilon-DP.");
  }
  const families = spec.noise ? [spec.noise] : target.notion === 'approximate' ? (['gaussian', 'laplace'] as const) : (['laplace'] as const);
  const layouts = spec.sum.length > 0 ? [layoutOf(spec, false), layoutOf(spec, true)] : [layoutOf(spec, false)];
  const candidates = families.flatMap((family) => layouts.map((layout) => candidate(spec, target, family, layout)));
  const scores = candidates.map((c) => scoreOf(spec, c));
  return candidates[scores.indexOf(Math.min(...scores))]!;
}

/** The release vector of exact totals, in the plan's layout (quantile levels summed from the leaves). */
export function releaseVector(totals: Totals, spec: Spec, plan: Plan): Float64Array {
  const out = new Float64Array(plan.length);
  const n = spec.groups.length;
  plan.layout.blocks.forEach((block, k) => {
    const cells = totals[block.measure]!;
    const perGroup = block.level === 0 ? block.size : LEAVES;
    const span = block.level === 0 ? 1 : LEAVES / block.size; // leaves per node
    for (let g = 0; g < n; g++) {
      for (let i = 0; i < perGroup; i++) out[plan.offsets[k]! + g * block.size + Math.floor(i / span)]! += cells[g * perGroup + i]!;
    }
  });
  return out;
}
