// One-line mechanisms: calibration, its verified privacy, and release in one object, for any
// noise family (noise/families.ts): gaussianMechanism and laplaceMechanism are the same code.
//
// By default a release is exact on a grid (grid.ts, docs/mechanisms.md "Floating-point safety"):
// the query is rounded to a power-of-two grid and exact discrete Laplace or discrete Gaussian
// noise is added in integer grid units, so no floating-point low bit can tell neighbours apart.
// `mode: 'continuous'` adds floating-point noise instead (simulations, post-processing).
//
// A mechanism owns everything its release depends on: the options are read once, from the
// caller's own properties, and validated once here; the arrays are copied at construction; the
// object is frozen, and the arrays it shows are fresh copies of its own.
import { calibrateGridGaussian, GAUSSIAN_NOTIONS, gaussianDistance } from '../accounting/distance.js';
import { certifies, type GdpPrivacy, type Privacy, type PurePrivacy, type ZcdpPrivacy } from '../accounting/privacy.js';
import { independentPrivacy } from '../accounting/independent.js';
import {
  calibrateProfile,
  checkApproximateLaplace,
  largestPureBudget,
  type GaussianCalibration,
  type GaussianCalibrationOptions,
  type LaplaceCalibration,
  type LaplaceCalibrationOptions,
  PROFILE_OPTIONS,
  type Profile,
  readProfile,
  withSensitivity,
} from '../calibrate/allocations.js';
import { TARGET_OPTIONS, targetOf, readTarget, type ValidTarget } from '../core/target.js';
import { frozenResult } from '../core/frozen.js';
import { readOptions } from '../core/validate.js';
import { GAUSSIAN, LAPLACE, type NoiseFamily } from '../noise/families.js';
import { drawValidated, type Scales } from '../noise/samplers.js';
import { defaultGrid, gridSensitivity, gridUnits, type Mode, MODE_OPTIONS, type ModeOptions, queryEntries, readMode, roundingScale } from './grid.js';
import { readReleaseOptions, releaseArrays, releasedArray, type ReleaseOptions, type VectorReleaseOptions } from './release-options.js';
import { arrayOf, type WasmVector } from '../noise/wasm-vector.js';

/** What every independent mechanism adds to its calibration. */
export interface Releasing {
  /** 'grid' (default): values rounded to `grid`, exact discrete noise; 'continuous'. */
  readonly mode: Mode;
  /** The grid step (grid mode only): every released value is a multiple of it. */
  readonly grid?: number;
  /**
   * The noise's standard deviation against continuous noise's at the same budget (the root mean
   * square over the coordinates): 1 or a hair above on the default grid; above 1 on a coarse
   * given grid, which rounds each sensitivity up to whole steps (docs/mechanisms.md, "Floating-point safety").
   * 1 in continuous mode.
   */
  readonly gridCost: number;
  /**
   * A new Float64Array (or `out`; a WasmVector `out`'s `values`): the query plus noise (in grid
   * mode, on the grid). The query is left untouched unless it is `out`. The query and `out` may be
   * WasmVectors, read and written where they are in the WebAssembly module's memory, with the
   * same checks and the same noise (grid mode's exact noise unless continuous is asked for).
   */
  release(query: Float64Array | readonly number[] | WasmVector, options?: VectorReleaseOptions): Float64Array;
}

/**
 * A calibrated Gaussian mechanism.
 *
 * @group Mechanisms
 */
export interface GaussianMechanism extends GaussianCalibration, Releasing {
  /** The privacy the release gives, verified from its own scales (never weaker than asked):
   * rho-zCDP in grid mode, mu-GDP in continuous mode. */
  readonly privacy: ZcdpPrivacy | GdpPrivacy;
}

/**
 * A calibrated Laplace mechanism.
 *
 * @group Mechanisms
 */
export interface LaplaceMechanism extends LaplaceCalibration, Releasing {
  /**
   * The privacy the release gives (in grid mode, with the rounding), never weaker than asked: pure
   * epsilon-DP (epsilonPure), and its (epsilon, delta) curve by the accountant.
   */
  readonly privacy: PurePrivacy;
}

/**
 * The options every mechanism takes for its release: the mode and the grid.
 *
 * @group Mechanisms
 */
export interface ModeChoice {
  /** 'grid' (default: floating-point-safe exact discrete noise) or 'continuous' (not floating-point safe). */
  mode?: Mode;
  /** Grid mode's step, a power of two (default: fine enough that rounding costs at most 2^-10 of the smallest sensitivity). */
  grid?: number;
}

/**
 * Options of laplaceMechanism: calibrateLaplace's, and the mode.
 *
 * @group Mechanisms
 */
export type LaplaceMechanismOptions = LaplaceCalibrationOptions & ModeChoice;

/**
 * Options of gaussianMechanism: calibrateGaussian's, and the mode.
 *
 * @group Mechanisms
 */
export type GaussianMechanismOptions = GaussianCalibrationOptions & ModeChoice;

const largest = (a: Float64Array) => a.reduce((m, x) => Math.max(m, x), 0);

function cumulative(sizes: Float64Array): Float64Array {
  const ends = new Float64Array(sizes.length);
  sizes.reduce((end, n, g) => (ends[g] = end + n), 0);
  return ends;
}

/**
 * A release: the noise of `kernel` with parameters `parameters` (per coordinate, or per group)
 * added to a copy of the query; in grid mode (`grid`) the query is rounded to the grid first. The
 * arrays are the mechanism's own copies; `privacy` is what a budget in the options is charged.
 * Groups marked `whole` hold whole numbers and are drawn on the grid of 1 (wholeGroups).
 */
function releaser(
  family: NoiseFamily,
  parameters: Float64Array,
  sizes: Float64Array | undefined,
  mode: ModeOptions & { grid: number | undefined },
  privacy: Privacy,
  whole: readonly boolean[] = [],
) {
  const length = sizes ? sizes.reduce((a, b) => a + b, 0) : parameters.length;
  const entries = queryEntries(mode.grid ?? Number.MAX_VALUE);
  const ends = sizes ? cumulative(sizes) : undefined;
  const perCoordinate: Scales = ends ? { ends, scales: parameters } : parameters;
  const kernel = mode.grid === undefined ? family.kernel : family.gridKernel;
  const byGroup = ends !== undefined && whole.includes(true);
  return (query: Float64Array | readonly number[] | WasmVector, options?: VectorReleaseOptions): Float64Array => {
    const { random, out, given, budget } = readReleaseOptions(options, length, true);
    const { exact, target } = releaseArrays('query', query, entries, length, out, { budget, privacy }, true);
    const stream = random.stream();
    if (!byGroup || !ends) drawValidated(kernel, target, perCoordinate, stream, { add: true, grid: mode.grid, source: exact });
    else {
      // Group by group, each coordinate from its own place in the stream: the same draws as one call where the grids agree.
      const [from, into] = [arrayOf(exact), arrayOf(target)];
      ends.forEach((end, k) => {
        const start = k === 0 ? 0 : ends[k - 1]!;
        const source = from.subarray(start, end);
        if (whole[k] && !source.every(Number.isInteger)) throw new Error('dpnoise: internal error: a group of whole numbers holds a fraction.');
        drawValidated(kernel, into.subarray(start, end), parameters[k]!, stream, { add: true, grid: whole[k] ? 1 : mode.grid, source, origin: start });
      });
    }
    return releasedArray(given, target);
  };
}

/** A release of one block's values (a coordinate's, or a group's of a grouped profile) with that block's noise. */
type BlockRelease = (block: number, query: Float64Array, options?: ReleaseOptions) => Float64Array;

/** Releases of one block, any number of values at a time, each with the noise a whole release gives that block (a budget is charged the whole release's privacy). */
function blockReleaser(
  family: NoiseFamily,
  parameters: Float64Array,
  mode: ModeOptions & { grid: number | undefined },
  privacy: Privacy,
  whole: readonly boolean[] = [],
): BlockRelease {
  return (block, query, options) =>
    releaser(family, parameters.subarray(block, block + 1), Float64Array.of(query.length), mode, privacy, [whole[block] === true])(query, options);
}

/** Each mechanism's block release (releaseBlock), and its groups drawn on the grid of 1 (wholeGroupsOf). */
const blockReleases = new WeakMap<object, BlockRelease>();
const wholeOf = new WeakMap<object, readonly boolean[]>();

/**
 * The groups of a grouped Laplace profile, among those `asked` (whose values the caller
 * guarantees are whole numbers), drawn on the grid of 1 instead of the mechanism's grid g: where
 * g <= 1 and the group's sensitivity is a whole number. Whole values lie on that grid, so a
 * neighbour moves the group by at most its sensitivity in whole steps (no rounding to add), and
 * discrete Laplace noise of scale b there costs lambda / b, as on the fine grid, with less error
 * (docs/aggregates.md, "Counts on the grid of 1").
 */
function wholeGroups(family: NoiseFamily, profile: Profile, g: number, asked: readonly boolean[]): boolean[] {
  if (family !== LAPLACE || !profile.grouped || !(g <= 1)) return [];
  return Array.from(profile.lambda, (l, k) => asked[k] === true && l > 0 && Number.isInteger(l));
}

/** The groups `mechanism` draws on the grid of 1 (independentMechanism's `whole`). */
export function wholeGroupsOf(mechanism: GaussianMechanism | LaplaceMechanism): readonly boolean[] {
  return wholeOf.get(mechanism) ?? [];
}

/**
 * `query`, values of one block of `mechanism`'s profile (of many releases: say one group's count
 * per group), each released with the noise that block gets in a whole release, drawn
 * independently. For a release in two steps whose law is that of one: a whole release draws
 * every coordinate independently.
 */
export function releaseBlock(mechanism: GaussianMechanism | LaplaceMechanism, block: number, query: Float64Array, options?: ReleaseOptions): Float64Array {
  const release = blockReleases.get(mechanism);
  if (release === undefined) throw new Error('dpnoise: internal error: not a mechanism of independentMechanism.');
  return release(block, query, options);
}

/** The budget value a family calibrates to in continuous mode, and grid-mode Laplace's: mu for Gaussian noise, pure epsilon for Laplace. */
function budgetValue(family: NoiseFamily, target: ValidTarget): number {
  return family === LAPLACE ? (target as { epsilon: number }).epsilon : gaussianDistance(target);
}

/**
 * The calibration, privacy and release of `family` at a budget value (mu, or pure epsilon), for a
 * profile and a mode. Grid mode calibrates to the sensitivities rounded to the grid (in steps);
 * the scales in grid units need not be whole steps, and the privacy is computed from the integer
 * changes and the noise drawn.
 */
function madeAt(family: NoiseFamily, profile: Profile, mode: ModeOptions, distance: number, wholeAsked: readonly boolean[] = []) {
  if (mode.mode === 'continuous') {
    const calibration = calibrateProfile(family, profile, distance);
    const { scales, sensitivity } = calibration;
    const privacy = independentPrivacy(family.name, sensitivity, (i) => scales[i]!);
    const release = () => releaser(family, scales.slice(), calibration.sizes?.slice(), { ...mode, grid: undefined }, privacy);
    const block = blockReleaser(family, scales.slice(), { ...mode, grid: undefined }, privacy);
    return { calibration, scales, privacy, grid: undefined, release, block, whole: [] as readonly boolean[] };
  }
  const { lambda, weights, grouped } = profile;
  const sizes = grouped ? weights : undefined;
  const first = calibrateProfile(family, profile, distance);
  const g = mode.grid ?? defaultGrid(roundingScale(lambda, sizes, family.q), largest(first.scales));
  // Groups of whole numbers go on the grid of 1 (wholeGroups): their sensitivity whole and exact
  // (nothing to round), their scale in value units a step of that grid; the rest on grid g.
  const whole = wholeGroups(family, profile, g, wholeAsked);
  const rounded = gridSensitivity(lambda, g, sizes, family.q).map((l, k) => (whole[k] ? lambda[k]! : l));
  const calibration = calibrateProfile(family, withSensitivity(profile, rounded), distance);
  const fine = gridUnits(calibration.scales, g, family.scaleName).map(family.gridParameter);
  const scales = fine.map((p) => family.gridScale(p) * g);
  const parameters = fine.map((p, k) => (whole[k] ? family.gridParameter(scales[k]!) : p));
  const steps = parameters.map(family.gridScale);
  const privacy = independentPrivacy(
    family.name,
    rounded.map((l, k) => (whole[k] ? l : l / g)),
    (i) => steps[i]!,
    true,
    grouped,
  );
  const release = () => releaser(family, parameters, sizes?.slice(), { ...mode, grid: g }, privacy, whole);
  const block = blockReleaser(family, parameters.slice(), { ...mode, grid: g }, privacy, whole);
  return { calibration, scales, privacy, grid: g, release, block, whole };
}

/** The budget value `family` calibrates to: for Laplace noise at (epsilon, delta), the largest pure budget whose noise the accountant certifies. */
function distanceFor(family: NoiseFamily, target: ValidTarget, at: (distance: number) => { privacy: Privacy }): number {
  if (family === LAPLACE && target.notion === 'approximate') {
    return largestPureBudget(target.epsilon, (e) => certifies(at(e).privacy, target.epsilon, target.delta));
  }
  return budgetValue(family, target);
}

/** The scales of continuous noise at the same budget and profile (for gridCost). */
function continuousScales(family: NoiseFamily, target: ValidTarget, profile: Profile): Float64Array {
  const continuous: ModeOptions = { mode: 'continuous', grid: undefined };
  const at = (distance: number) => madeAt(family, profile, continuous, distance);
  return at(distanceFor(family, target, at)).scales;
}

/** sqrt(sum w_i a_i^2 / sum w_i b_i^2), w_i the sizes of grouped scales (else 1). */
function rmsRatio(a: Float64Array, b: Float64Array, sizes: Float64Array | undefined): number {
  let top = 0;
  let bottom = 0;
  for (let i = 0; i < a.length; i++) {
    const w = sizes ? sizes[i]! : 1;
    top += w * a[i]! * a[i]!;
    bottom += w * b[i]! * b[i]!;
  }
  return bottom > 0 ? Math.sqrt(top / bottom) : 1;
}

/**
 * The mechanism of `family` for a budget, a profile (owned by the mechanism) and a mode, all
 * validated. Laplace noise for (epsilon, delta) takes the largest pure budget whose noise, as
 * drawn (on the grid, with the grid's rounding), the accountant certifies (epsilon, delta)-DP.
 * `whole` marks groups of a grouped Laplace profile whose values are whole numbers (wholeGroups).
 */
export function independentMechanism(
  family: NoiseFamily,
  target: ValidTarget,
  profile: Profile,
  mode: ModeOptions,
  whole: readonly boolean[] = [],
): GaussianMechanism | LaplaceMechanism {
  const at = (distance: number) => madeAt(family, profile, mode, distance, whole);
  let made: ReturnType<typeof madeAt>;
  let distance: number;
  if (family === LAPLACE && target.notion === 'approximate') {
    checkApproximateLaplace(target, profile);
    distance = distanceFor(family, target, at);
    made = at(distance);
  } else if (family === GAUSSIAN && mode.mode === 'grid') {
    [distance, made] = calibrateGridGaussian(target, at);
  } else {
    distance = budgetValue(family, target);
    made = at(distance);
  }
  const gridCost = mode.mode === 'grid' ? rmsRatio(made.scales, continuousScales(family, target, profile), profile.grouped ? profile.weights : undefined) : 1;
  const mechanism = frozenResult({
    noise: family.name,
    target: targetOf(target),
    allocation: profile.allocation,
    errorPower: profile.p,
    ...(family === GAUSSIAN ? { mu: distance } : {}),
    ...made.calibration,
    scales: made.scales,
    privacy: made.privacy,
    mode: mode.mode,
    grid: made.grid,
    gridCost,
    release: made.release(),
  }) as GaussianMechanism | LaplaceMechanism;
  blockReleases.set(mechanism, made.block);
  wholeOf.set(mechanism, made.whole);
  return mechanism;
}

/**
 * A Gaussian mechanism for (epsilon, delta)-DP (or mu-GDP, or rho-zCDP): calibrateGaussian's
 * options, and `mode`/`grid`.
 *
 * @example
 * ```ts
 * import { gaussianMechanism } from 'dpnoise';
 *
 * const m = gaussianMechanism({
 *   sensitivity: [0.1, 0.2, 0.4, 0.8],
 *   epsilon: 1,
 *   delta: 1e-6,
 * });
 * // A new Float64Array; every value is a multiple of m.grid (here 2^-14).
 * const released = m.release([12.5, 7.25, 3.0, 0.5]);
 * console.log(released, m.grid);
 * console.log(m.privacy.epsilon(1e-6), m.privacy.delta(1)); // <= 1, <= 1e-6
 * ```
 *
 * @group Mechanisms
 */
export function gaussianMechanism(options: GaussianMechanismOptions): GaussianMechanism {
  const o = readOptions('options', options, [...PROFILE_OPTIONS, ...TARGET_OPTIONS, ...MODE_OPTIONS]);
  return independentMechanism(GAUSSIAN, readTarget(o, GAUSSIAN_NOTIONS), readProfile(o, true), readMode(o)) as GaussianMechanism;
}

/**
 * A Laplace mechanism for pure epsilon-DP, or with `delta` for (epsilon, delta)-DP by the
 * accountant (the largest pure budget whose noise, as drawn, it certifies; in grid mode, the exact
 * discrete Laplace pairs with the grid's rounding): calibrateLaplace's options, and `mode`/`grid`.
 *
 * @example
 * ```ts
 * import { laplaceMechanism } from 'dpnoise';
 *
 * const m = laplaceMechanism({ sensitivity: [0.1, 0.2, 0.4, 0.8], epsilon: 1 });
 * // A new Float64Array; every value is a multiple of m.grid.
 * const released = m.release([12.5, 7.25, 3.0, 0.5]);
 * console.log(released, m.privacy.epsilonPure); // epsilonPure <= 1
 * // 100 counts at (1, 1e-6)-DP: scales 41.5 instead of pure epsilon 1's 100.
 * const d = laplaceMechanism({ sensitivity: new Array(100).fill(1), epsilon: 1, delta: 1e-6 });
 * console.log(d.scales[0], d.privacy.epsilon(1e-6)); // <= 1
 * ```
 *
 * @group Mechanisms
 */
export function laplaceMechanism(options: LaplaceMechanismOptions): LaplaceMechanism {
  const o = readOptions('options', options, [...PROFILE_OPTIONS, 'epsilon', 'delta', ...MODE_OPTIONS]);
  return independentMechanism(LAPLACE, readTarget(o, ['pure', 'approximate']), readProfile(o, true), readMode(o)) as LaplaceMechanism;
}
