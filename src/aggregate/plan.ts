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
import { type Block, LEAVES, layoutOf, type Layout } from './layout.js';
import type { Spec } from './spec.js';
import { quantumOf, type Totals } from './totals.js';

/** Sums are exact up to this many rows per group (the one rounding of an exact total to a double, docs/aggregates.md). */
const ROUNDING_MARGIN = 2 ** -20;

export interface Plan {
  readonly layout: Layout;
  readonly family: 'gaussian' | 'laplace';
  readonly mechanism: GaussianMechanism | LaplaceMechanism;
  /** Each block's sensitivity (the norm of a unit's change over every group). */
  readonly sensitivity: Float64Array;
  /** Each block's noise standard deviation per coordinate (Laplace: sqrt 2 times its scale). */
  readonly sd: Float64Array;
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

/** The plan of a spec at a privacy target: public inputs only. */
export function planOf(spec: Spec, target: Target): Plan {
  const layout = layoutOf(spec);
  const family = spec.noise ?? (target.notion === 'approximate' ? 'gaussian' : 'laplace');
  if (family === 'gaussian' && target.notion !== 'approximate') {
    throw new TypeError("dpnoise: Gaussian noise gives (epsilon, delta)-DP: give `delta` in the privacy, or `noise: 'laplace'` for pure epsilon-DP.");
  }
  const n = spec.groups.length;
  const R = spec.maxRows;
  const G = spec.maxGroups;
  const reach = family === 'gaussian' ? R * Math.sqrt(G) : R * G;
  const sensitivity = Float64Array.from(layout.blocks, (b) => reach * perRowBound(b, layout));
  const sizes = layout.blocks.map((b) => n * b.size);
  const profile = readProfile({ groups: { sizes, sensitivity }, allocation: spec.weights === 'range' ? 'spr' : 'optimal' }, true);
  const mechanism = independentMechanism(family === 'gaussian' ? GAUSSIAN : LAPLACE, target, profile, readMode({}));
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
