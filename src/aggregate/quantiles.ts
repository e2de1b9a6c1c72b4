// A group's quantiles (docs/aggregates.md, "Quantiles"), by one of two methods the plan chooses
// between. The tree: its three levels (16, 256 and 4096 nodes over [L, U], each level a block of
// the release vector) made consistent by least squares, the estimate read off their monotone
// cumulative counts. The exponential mechanism: one choice among the leaf boundaries per
// quantile, from the group's exact leaf counts, with the tree's top levels released for the
// interval alone. Either way the interval holds at its level whatever the data, built from the
// tree's raw cumulative counts against a critical value fixed by the plan.
import { MAX_SEARCH_STEPS } from '../core/rounding.js';
import { permuteAndFlip } from '../mechanisms/select.js';
import { type NextWord, ratioOf } from '../noise/discrete-exact.js';
import { exp, log } from '../math/elementary.js';
import { BRANCHING, DEPTH, LEAVES } from './layout.js';

/** The noise of a quantile tree's levels, as the plan fixes it. */
export interface TreeNoise {
  readonly family: 'gaussian' | 'laplace';
  /** Each level's noise standard deviation (per node), from level 1 down to the tree's finest. */
  readonly sd: readonly number[];
  /** The grid the noise is drawn on (value units per step). */
  readonly grid: number;
}

/** A quantile chosen by the exponential mechanism (exponentialQuantile), as the plan fixes it. */
export interface ExponentialQuantile {
  readonly column: string;
  readonly bounds: readonly [number, number];
  readonly q: number;
  /** Its leaf counts' measure. */
  readonly measure: number;
  /** The mechanism's epsilon in each group. */
  readonly epsilon: number;
  /** The most rows a unit has in a group. */
  readonly maxRows: number;
}

/**
 * The leaves of the tree made consistent (each node the sum of its children) by generalized least
 * squares with each level's noise variance: up the tree, each node's estimate combines its own
 * count and its children's sum, weighted by their variances; down it, each node's children share
 * the difference between it and their sum equally (they have equal variances). This is the
 * best linear unbiased estimate for a tree with independent noise (Hay, Rastogi, Miklau & Suciu
 * 2010, with per-level variances).
 */
export function consistentLeaves(levels: readonly Float64Array[], variances: readonly number[]): Float64Array {
  // Up: estimates z and their variances, level by level from the leaves.
  const up: Float64Array[] = [];
  let below = Float64Array.from(levels[DEPTH - 1]!);
  let belowVariance = variances[DEPTH - 1]!;
  up[DEPTH - 1] = below;
  for (let l = DEPTH - 2; l >= 0; l--) {
    const own = levels[l]!;
    const ownWeight = 1 / variances[l]!;
    const childrenWeight = 1 / (BRANCHING * belowVariance);
    const z = new Float64Array(own.length);
    for (let i = 0; i < own.length; i++) {
      let children = 0;
      for (let c = 0; c < BRANCHING; c++) children += below[i * BRANCHING + c]!;
      z[i] = (own[i]! * ownWeight + children * childrenWeight) / (ownWeight + childrenWeight);
    }
    up[l] = z;
    below = z;
    belowVariance = 1 / (ownWeight + childrenWeight);
  }
  // Down: the top level stands; each level's children are moved to sum to their parent.
  let parents = up[0]!;
  for (let l = 1; l < DEPTH; l++) {
    const z = Float64Array.from(up[l]!);
    for (let i = 0; i < parents.length; i++) {
      let children = 0;
      for (let c = 0; c < BRANCHING; c++) children += z[i * BRANCHING + c]!;
      const share = (parents[i]! - children) / BRANCHING;
      for (let c = 0; c < BRANCHING; c++) z[i * BRANCHING + c]! += share;
    }
    parents = z;
  }
  return parents;
}

/**
 * The cumulative counts of `leaves` (at boundaries 0 to LEAVES) made monotone by isotonic
 * regression (the pool-adjacent-violators algorithm: the closest non-decreasing sequence in least
 * squares), with the first held at 0 and the last at the total, and clamped to [0, total].
 */
export function monotone(leaves: Float64Array): Float64Array {
  const prefix = new Float64Array(LEAVES + 1);
  for (let k = 0; k < LEAVES; k++) prefix[k + 1] = prefix[k]! + leaves[k]!;
  const total = prefix[LEAVES]!;
  // Blocks of pooled values on a stack: mean, weight (Infinity for a pinned end) and length.
  const blocks: Array<{ mean: number; weight: number; length: number }> = [];
  for (let k = 0; k <= LEAVES; k++) {
    const pinned = k === 0 || k === LEAVES;
    let block = { mean: k === 0 ? 0 : prefix[k]!, weight: pinned ? Infinity : 1, length: 1 };
    while (blocks.length > 0 && blocks.at(-1)!.mean > block.mean) {
      const before = blocks.pop()!;
      const weight = before.weight + block.weight;
      const mean =
        before.weight === Infinity ? before.mean : block.weight === Infinity ? block.mean : (before.mean * before.weight + block.mean * block.weight) / weight;
      block = { mean, weight, length: before.length + block.length };
    }
    blocks.push(block);
  }
  const out = new Float64Array(LEAVES + 1);
  let k = 0;
  for (const { mean, length } of blocks) {
    out.fill(Math.min(Math.max(0, total), Math.max(0, mean)), k, k + length);
    k += length;
  }
  return out;
}

/**
 * The raw noisy counts below each boundary k (0 to BRANCHING^D) of a tree's top D levels: per
 * boundary, the fewest nodes that cover the cells below it (whole nodes of level 1, then of level
 * 2 under the next level-1 node, and so on), summed from each level's running sums.
 */
function rawPrefixes(levels: readonly Float64Array[]): Float64Array {
  const depth = levels.length;
  const running = levels.map((level) => {
    const sums = new Float64Array(level.length + 1);
    for (let i = 0; i < level.length; i++) sums[i + 1] = sums[i]! + level[i]!;
    return sums;
  });
  const spans = Array.from({ length: depth }, (_, l) => BRANCHING ** (depth - 1 - l)); // finest cells per node of each level
  const cells = BRANCHING ** depth;
  const out = new Float64Array(cells + 1);
  for (let k = 0; k <= cells; k++) {
    let total = 0;
    let first = 0; // the first node of this level under the path
    let rest = k;
    for (let l = 0; l < depth && rest > 0; l++) {
      const span = spans[l]!;
      const whole = Math.floor(rest / span);
      total += running[l]![first + whole]! - running[l]![first]!;
      rest -= whole * span;
      first = (first + whole) * BRANCHING;
    }
    out[k] = total;
  }
  return out;
}

/**
 * The terms of the rank error E_k = (noisy count below boundary k) - q (noisy total), minus its
 * exact value, at its largest, for a tree of `depth` levels: b_1 nodes of level 1 with
 * coefficient 1 - q, 16 - b_1 with -q, and 15 nodes of each deeper level with 1 (a boundary's
 * path passes at most 15 nodes there). Per b_1, a list of [coefficient, level, how many].
 */
function worstTerms(q: number, depth: number): Array<Array<[number, number, number]>> {
  return Array.from({ length: BRANCHING + 1 }, (_, b1) => [
    [1 - q, 0, b1],
    [q, 0, BRANCHING - b1], // -q: the noises are symmetric
    ...Array.from({ length: depth - 1 }, (_, l): [number, number, number] => [1, l + 1, BRANCHING - 1]),
  ]);
}

/** log E[e^(s Y)] of discrete Laplace noise Y, P(Y = y) proportional to e^(-|y| / t), for |s| < 1 / t. */
function discreteLaplaceLogMgf(s: number, t: number): number {
  const p = exp(-1 / t);
  return 2 * log(1 - p) - log(1 - p * exp(s)) - log(1 - p * exp(-s));
}

/** The least c whose Chernoff bound min over lambda of e^(-lambda c) E[e^(lambda E)] is at most `tail`, for a Laplace rank error E. */
function laplaceCritical(terms: Array<[number, number, number]>, noise: TreeNoise, tail: number): number {
  // A node of level l is g Y, Y discrete Laplace of t = scale / g steps, scale = sd / sqrt 2.
  const steps = noise.sd.map((sd) => sd / Math.SQRT2 / noise.grid);
  const limit = Math.min(...terms.filter(([, , n]) => n > 0).map(([a, l]) => 1 / (a * steps[l]! * noise.grid))); // lambda's domain
  const logMgf = (lambda: number) => terms.reduce((sum, [a, l, n]) => sum + n * discreteLaplaceLogMgf(lambda * a * noise.grid, steps[l]!), 0);
  const bound = (c: number) => {
    // The exponent is convex in lambda: a golden-section search on (0, limit).
    let low = 0;
    let high = limit * (1 - 2 ** -20);
    const f = (lambda: number) => -lambda * c + logMgf(lambda);
    for (let i = 0; i < 64; i++) {
      const a = high - (high - low) / 1.618033988749895;
      const b = low + (high - low) / 1.618033988749895;
      if (f(a) < f(b)) high = b;
      else low = a;
    }
    return f((low + high) / 2);
  };
  const target = log(tail);
  let low = 0;
  let high = 1;
  for (let i = 0; bound(high) > target; i++) {
    if (i === MAX_SEARCH_STEPS) return Infinity; // no finite c: the interval is the whole bounds
    high *= 2;
  }
  for (let i = 0; i < MAX_SEARCH_STEPS && high - low > high * 2 ** -30; i++) {
    const middle = (low + high) / 2;
    if (bound(middle) > target) low = middle;
    else high = middle;
  }
  return high;
}

/**
 * The rank error's critical value c, with P(E_k > c) <= (1 - level) / 2 at every boundary k, and
 * the largest rank sd. Gaussian: discrete Gaussian noise of parameter sigma is sigma^2-subgaussian
 * (Canonne, Kamath & Steinke 2020), so E_k is V-subgaussian with V the sum of its terms' a^2
 * sigma^2, and c = sqrt(2 V ln(2 / (1 - level))). Laplace: the Chernoff bound with discrete
 * Laplace noise's own moment generating function. Both at the boundary where they are largest.
 */
export function rankCritical(noise: TreeNoise, q: number, level: number): { rankSd: number; critical: number } {
  // The plan, its accuracy table and every group's estimates ask for the same few: kept.
  const key = JSON.stringify([noise.family, noise.sd, noise.grid, q, level]);
  let found = criticals.get(key);
  if (found === undefined) {
    found = Object.freeze(criticalOf(noise, q, level));
    if (criticals.size >= 256) criticals.clear();
    criticals.set(key, found);
  }
  return found;
}

/** rankCritical's values, by their inputs. */
const criticals = new Map<string, { rankSd: number; critical: number }>();

/** rankCritical, computed. */
function criticalOf(noise: TreeNoise, q: number, level: number): { rankSd: number; critical: number } {
  const tail = (1 - level) / 2;
  let critical = 0;
  let variance = 0;
  for (const terms of worstTerms(q, noise.sd.length)) {
    const v = terms.reduce((sum, [a, l, n]) => sum + n * (a * noise.sd[l]!) ** 2, 0);
    variance = Math.max(variance, v);
    critical = Math.max(critical, noise.family === 'gaussian' ? Math.sqrt(2 * v * -log(tail)) : laplaceCritical(terms, noise, tail));
  }
  // Rounded up: a hair wider is the safe side.
  return { rankSd: Math.sqrt(variance), critical: critical * (1 + 2 ** -30) };
}

/** What a group's noisy tree gives every quantile read off it. */
export interface TreeCounts {
  /** The raw noisy count below each boundary of its finest level (rawPrefixes). */
  readonly raw: Float64Array;
  /** With all DEPTH levels: the consistent leaves' cumulative counts, made monotone (monotone). */
  readonly cumulative: Float64Array | undefined;
}

/** A group's noisy tree (`levels`: its top levels, all DEPTH of them for estimates) read once for all its quantiles. */
export function treeCounts(levels: readonly Float64Array[], noise: TreeNoise): TreeCounts {
  return {
    raw: rawPrefixes(levels),
    cumulative:
      levels.length === DEPTH
        ? monotone(
            consistentLeaves(
              levels,
              noise.sd.map((sd) => sd * sd),
            ),
          )
        : undefined,
  };
}

/** A quantile's interval over [lower, upper], and whether it is the whole bounds. */
export interface QuantileInterval {
  readonly low: number;
  readonly high: number;
  readonly wholeBounds: boolean;
}

/**
 * The interval of quantile q from a tree's raw cumulative counts R_k and total T' (k = 0 to C, the
 * finest level's C cells; independent noise, the fewest nodes per boundary) at the plan's
 * critical value c (rankCritical): with S_k = R_k - q T', cell j is ruled out when S_j >= c (the
 * quantile lies below it) or S_(j+1) <= -c (it lies above), and the interval runs from the lowest
 * cell not ruled out to the highest, or is the whole bounds when every cell is. Let k* be the
 * first boundary with at least q n values below it (n the group's values), so the quantile lies in
 * cell k* - 1, with fewer than q n values below boundary k* - 1. That cell is ruled out only if
 * the noise at one of those two boundaries passes c, each with probability at most
 * (1 - level) / 2. Both ends are cell boundaries, so the whole cell of an atom stays inside
 * (docs/aggregates.md, "Quantiles").
 */
export function quantileInterval(raw: Float64Array, q: number, lower: number, upper: number, critical: { critical: number }): QuantileInterval {
  const cells = raw.length - 1;
  const c = critical.critical;
  const s = (k: number) => raw[k]! - q * raw[cells]!;
  let low = -1;
  let high = -1;
  for (let j = 0; j < cells; j++) {
    if (s(j) < c && s(j + 1) > -c) {
      if (low < 0) low = j;
      high = j + 1;
    }
  }
  if (low < 0) [low, high] = [0, cells];
  const at = (k: number) => lower + (k / cells) * (upper - lower);
  return Object.freeze({ low: at(low), high: at(high), wholeBounds: low === 0 && high === cells });
}

/**
 * Quantile q read off the tree's consistent, monotone cumulative counts P_k (treeCounts; k = 0 to
 * LEAVES, within [0, T], T their total): the value where they reach q T, by linear interpolation
 * within its leaf; without a positive T, the middle of the bounds.
 */
export function treeQuantile(cumulative: Float64Array, q: number, lower: number, upper: number): number {
  const sum = cumulative[LEAVES]!;
  if (!(sum > 0)) return (lower + upper) / 2;
  const at = (k: number) => lower + (k / LEAVES) * (upper - lower);
  const target = q * sum;
  const k = cumulative.findIndex((x) => x >= target); // >= 1: cumulative[0] = 0 < target
  return at(k - 1) + ((target - cumulative[k - 1]!) / (cumulative[k]! - cumulative[k - 1]!)) * (at(k) - at(k - 1));
}

/** q = a / 2^s exactly, and what one unit can move a quantile's distances by over 2^s: maxRows max(a, 2^s - a). */
function quantileRatio(q: number, maxRows: number): { a: bigint; scale: bigint; sensitivity: bigint } {
  const { n: a, d: scale } = ratioOf(q);
  return { a, scale, sensitivity: BigInt(maxRows) * (a > scale - a ? a : scale - a) };
}

/** What one unit can move a quantile's score by, maxRows max(q, 1 - q), in double precision (rounded up): for the accuracy table. */
export function quantileSensitivity(q: number, maxRows: number): number {
  return maxRows * Math.max(q, 1 - q) * (1 + 2 ** -50);
}

/**
 * Each leaf boundary's distance from quantile q, times 2^s (q = a / 2^s): |P_k 2^s - a n|, with
 * P_k the values in the leaves below boundary k (k = 0 to LEAVES) and n in all; and what one unit
 * can move a distance by, on the same scale (exponentialQuantile).
 */
export function quantileDistances(leaves: Float64Array, q: number, maxRows: number): { distances: bigint[]; sensitivity: bigint } {
  const { a, scale, sensitivity } = quantileRatio(q, maxRows);
  const prefix: bigint[] = [0n];
  for (let k = 0; k < LEAVES; k++) prefix.push(prefix[k]! + BigInt(leaves[k]!));
  const total = prefix[LEAVES]!;
  const distances = prefix.map((p) => {
    const d = p * scale - a * total;
    return d < 0n ? -d : d;
  });
  return { distances, sensitivity };
}

/**
 * Quantile q of a group by the exponential mechanism's permute-and-flip form (select.ts) over the
 * LEAVES + 1 leaf boundaries of [lower, upper], from the group's exact leaf counts: boundary k,
 * with P_k values in the leaves below it and n in all, scores -|P_k - q n|. Adding a unit's rows
 * (at most maxRows) moves P_k by at most maxRows and q n by q maxRows, in the same direction or
 * not, so every score by at most maxRows max(q, 1 - q) =: Delta; at rate epsilon / (2 Delta) the
 * choice is epsilon-DP (docs/aggregates.md, "Quantiles"). Distances and Delta are both taken
 * times 2^s (quantileDistances), which the rate's quotient cancels.
 */
export function exponentialQuantile(leaves: Float64Array, q: number, epsilon: number, maxRows: number, next: NextWord): number {
  const { distances, sensitivity } = quantileDistances(leaves, q, maxRows);
  const e = ratioOf(epsilon);
  // x_k = (D_k - D_min) epsilon / (2 Delta), both D and Delta times 2^s.
  return permuteAndFlip(distances, { n: e.n, d: e.d * 2n * sensitivity }, next);
}
