// Correlated Gaussian noise for sums under add/remove neighbours (docs/mechanisms.md, "Correlated sums").
//
// Records x in [0, C]^d; the release is the d sums and the record count. At unit privacy
// (mu = 1) one draw eta ~ N(0, (d + t) / (4t)) is shared by every sum and independent
// z_j ~ N(0, (d + t) / 4) are added:  sums_j = f_j + C (eta + z_j),  count = n + 2 eta.
// This post-processes a standard Gaussian mechanism on (sum(2x/C - 1), sqrt(t) n), whose l2
// sensitivity is sqrt(d + t), so it has Mahalanobis distance 1; every variance is divided by
// mu^2 for the requested privacy. t = sqrt(d) minimises the sums' error: each gets
// C^2 (sqrt d + 1)^2 / (4 mu^2) against C^2 d / mu^2 for the standard mechanism (gain -> 4).
// For k-sparse records (sums only) the shared and independent variances follow Joseph & Yu's
// ellipse as extended in docs/mechanisms.md, "Correlated sums". Under replace-one neighbours the standard mechanism
// is optimal and the count is public: that is what `neighbours: 'replace-one'` releases.
import { calibrateGridGaussian, GAUSSIAN_NOTIONS, gaussianDistance } from '../accounting/distance.js';
import { gdpPrivacy, type GdpPrivacy, type ZcdpPrivacy } from '../accounting/privacy.js';
import type { GaussianTarget } from '../core/target.js';
import { targetOf, type PrivacyTarget, TARGET_OPTIONS, readTarget } from '../core/target.js';
import { MAX_SCALE, SAFETY } from '../core/domains.js';
import { FINITE_ENTRIES, integerIn, numberIn, oneOf, readOptions, type Range } from '../core/validate.js';
import { drawValidated } from '../noise/samplers.js';
import { type CorrelatedNoise, type CorrelatedRelease, gridCorrelatedSum } from './correlated-grid.js';
import { type Mode, MODE_OPTIONS, readMode } from './grid.js';
import { readReleaseOptions, releaseArrays, releasedArray, type VectorReleaseOptions } from './release-options.js';
import type { WasmVector } from '../noise/wasm-vector.js';

export type { CorrelatedNoise, CorrelatedRelease } from './correlated-grid.js';

/**
 * The neighbour relations: datasets differ by adding or removing a record, or by replacing one.
 *
 * @group Mechanisms
 */
export const NEIGHBOURS = ['add-remove', 'replace-one'] as const;
/**
 * A neighbour relation.
 *
 * @group Mechanisms
 */
export type Neighbours = (typeof NEIGHBOURS)[number];

/**
 * Options of `correlatedSum`: the target (`epsilon` and `delta`, `mu` or `rho`) and the records' shape.
 *
 * @group Mechanisms
 */
export type CorrelatedSumOptions = GaussianTarget & {
  /** d, the length of each record. */
  dimension: number;
  /** C: every record lies in [0, C]^d (default 1). */
  bound?: number;
  /** k: every record has at most k non-zero entries (sums only, no count). */
  sparsity?: number;
  /** t > 0: larger favours the count over the sums (default sqrt(d)). */
  tradeoff?: number;
  /** The neighbour relation (default 'add-remove'). */
  neighbours?: Neighbours;
  /** 'grid' (default): exact discrete Gaussian noise, sums on a power-of-two grid; or 'continuous' (not floating-point safe). */
  mode?: Mode;
  /** Grid mode: the grid of the released sums, a power of two (default: g / (2s), C/g in (256, 512]). */
  grid?: number;
};

/**
 * A calibrated correlated-sum mechanism.
 *
 * @group Mechanisms
 */
export interface CorrelatedSumMechanism extends CorrelatedNoise {
  /** d, the length of each record. */
  readonly dimension: number;
  /** The neighbour relation it is private under. */
  readonly neighbours: Neighbours;
  /** 'continuous' or 'grid'. */
  readonly mode: Mode;
  /** Grid mode: the released sums are exact multiples of this power of two. */
  readonly grid?: number;
  /** The target calibrated to, as asked. */
  readonly target: PrivacyTarget;
  /** The privacy the release guarantees (never less than asked): rho-zCDP in grid mode, mu-GDP in continuous mode. */
  readonly privacy: ZcdpPrivacy | GdpPrivacy;
}

/** Largest dimension: one Float64Array of sums. */
const DIMENSION: Range = { min: 1, max: 2 ** 32 };
const POSITIVE_FINITE: Range = { min: 0, max: Number.MAX_VALUE, minOpen: true };
const BOUND: Range = { min: 0, max: 1e150, minOpen: true };

/** Shared and independent variances at unit scale (C = 1, mu = 1), and the count's. */
interface Design {
  shared: number;
  independent: number;
  count: number;
  /** The standard mechanism's variance per sum, for the gain. */
  standard: number;
}

function addRemoveDesign(d: number, t: number): Design {
  return { shared: (d + t) / (4 * t), independent: (d + t) / 4, count: (d + t) / t, standard: d };
}

function sparseDesign(d: number, k: number): Design {
  const ke = Math.min(k, (d + Math.sqrt(d)) / 2);
  const r = d === 1 ? 0 : Math.sqrt(ke * (d - ke) * (d - 1));
  const independent = d === 1 ? ke : (ke / d) * (d - ke + r / (d - 1));
  const shared = d === 1 ? 0 : Math.max(0, (ke / (d * d)) * (2 * ke - d + (r * (d - 2)) / (d - 1)));
  return { shared, independent, count: 0, standard: k };
}

/**
 * A mechanism releasing the sums of d-dimensional records in [0, C]^d, and their count, with
 * Gaussian noise correlated across the sums (docs/mechanisms.md, "Correlated sums").
 *
 * @example
 * ```ts
 * import { correlatedSum } from 'dpnoise';
 *
 * // The exact sums and count of 100 records in [0, 1]^3 go in, noisy ones
 * // come out; then mean = sums / count.
 * const mechanism = correlatedSum({ dimension: 3, epsilon: 1, delta: 1e-6 });
 * const exactSums = new Float64Array([40, 12.5, 80]);
 * const { sums, count } = mechanism.release(exactSums, 100);
 * console.log(sums, count, mechanism.sumScale, mechanism.countScale);
 * ```
 *
 * @group Mechanisms
 */
export function correlatedSum(options: CorrelatedSumOptions): CorrelatedSumMechanism {
  const o = readOptions('options', options, ['dimension', ...TARGET_OPTIONS, 'bound', 'sparsity', 'tradeoff', 'neighbours', ...MODE_OPTIONS]);
  const d = integerIn('dimension', o.dimension, DIMENSION);
  const C = o.bound === undefined ? 1 : numberIn('bound', o.bound, BOUND);
  const neighbours = o.neighbours === undefined ? 'add-remove' : oneOf('neighbours', o.neighbours, NEIGHBOURS);
  const { mode, grid } = readMode(o);
  const target = readTarget(o, GAUSSIAN_NOTIONS);
  const asked = targetOf(target);
  if (mode === 'grid') {
    if (o.sparsity !== undefined || o.tradeoff !== undefined || neighbours !== 'add-remove') {
      throw new TypeError(
        "dpnoise: grid mode of correlatedSum is for add-remove neighbours, without `sparsity` or `tradeoff`; pass `mode: 'continuous'` for those (not floating-point safe).",
      );
    }
    const [, made] = calibrateGridGaussian(target, (mu) => gridCorrelatedSum(d, C, (mu * mu) / 2, gaussianDistance(target), grid));
    return Object.freeze({ dimension: d, neighbours, mode, target: asked, ...made.noise });
  }
  const mu = gaussianDistance(target);
  const sparse = o.sparsity !== undefined;
  const k = sparse ? integerIn('sparsity', o.sparsity, { min: 1, max: d }) : d;
  if (sparse && o.tradeoff !== undefined) throw new TypeError('dpnoise: `tradeoff` applies to the count, which sparse records do not release.');
  if (sparse && neighbours === 'replace-one') {
    throw new RangeError('dpnoise: `sparsity` is supported for add-remove neighbours only; use the standard Gaussian mechanism under replace-one.');
  }
  const t = o.tradeoff === undefined ? Math.sqrt(d) : numberIn('tradeoff', o.tradeoff, POSITIVE_FINITE);
  const design: Design =
    neighbours === 'replace-one' ? { shared: 0, independent: d, count: 0, standard: d } : sparse ? sparseDesign(d, k) : addRemoveDesign(d, t);

  const unit = (SAFETY * C) / mu; // rounded up, as every calibration
  const sharedScale = unit * Math.sqrt(design.shared);
  const independentScale = unit * Math.sqrt(design.independent);
  const countScale = (SAFETY * Math.sqrt(design.count)) / mu;
  const mse = d * unit * unit * (design.shared + design.independent);
  // Refuse, before any release, noise the samplers cannot represent (mu underflowing, a huge
  // bound or a tiny tradeoff): scales above 1e150, an infinite or NaN error.
  if (!(Math.max(sharedScale, independentScale, countScale) <= MAX_SCALE && Number.isFinite(mse))) {
    throw new RangeError(
      `dpnoise: this privacy level, bound and tradeoff need noise scales beyond 1e150 (shared ${sharedScale}, independent ${independentScale}, count ${countScale}); use a larger epsilon, delta or rho, or a smaller bound.`,
    );
  }
  const releasesCount = !sparse;
  const privacy = gdpPrivacy(mu); // the noise is calibrated to distance mu with every scale rounded up

  function release(sums: Float64Array | readonly number[] | WasmVector, count?: number, releaseOptions?: VectorReleaseOptions): CorrelatedRelease {
    const { random, out, given, budget } = readReleaseOptions(releaseOptions, d, true);
    if (releasesCount) {
      const n = integerIn('count', count, { min: 0, max: Number.MAX_SAFE_INTEGER }, { private: true }); // the number of records is private
      count = n;
    } else if (count !== undefined) {
      throw new TypeError('dpnoise: sparse records release the sums only; do not pass a `count`.');
    }
    const { exact, target } = releaseArrays('sums', sums, FINITE_ENTRIES, d, out, { budget, privacy }, true);
    const stream = random.stream();
    // The shared standard normal is coordinate d of the stream; the sums are coordinates 0..d-1.
    const g = drawValidated('gaussianSamples', new Float64Array(1), 1, stream, { origin: d })[0]!;
    drawValidated('gaussianSamples', target, independentScale, stream, { add: true, shared: sharedScale * g, source: exact });
    return {
      sums: releasedArray(given, target),
      count: releasesCount ? count! + (neighbours === 'replace-one' ? 0 : countScale * g) : undefined,
    };
  }

  return Object.freeze({
    dimension: d,
    neighbours,
    mode,
    grid: undefined,
    target: asked,
    privacy,
    mu,
    sharedScale,
    independentScale,
    sumScale: unit * Math.sqrt(design.shared + design.independent),
    countScale: neighbours === 'replace-one' ? 0 : countScale,
    mse,
    gain: design.standard / (design.shared + design.independent),
    release,
  });
}
