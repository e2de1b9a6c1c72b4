// The staircase mechanism (docs/staircase.md): calibrateStaircase's budgets and shapes, and a
// release. Grid mode (the default) rounds the query to a power-of-two grid and adds the exact
// discrete staircase in grid steps; continuous mode adds floating-point staircase noise.
import { type PurePrivacy, purePrivacy } from '../accounting/privacy.js';
import { roundUp } from '../core/rounding.js';
import { frozenResult } from '../core/frozen.js';
import { readOptions } from '../core/validate.js';
import { PROFILE_OPTIONS, type Profile, withSensitivity } from '../calibrate/allocations.js';
import { readStaircaseOptions, type StaircaseCalibration, type StaircaseCalibrationOptions, staircaseCalibration } from '../calibrate/staircase.js';
import { drawValidated } from '../noise/samplers.js';
import { defaultGrid, gridSensitivity, gridUnits, MODE_OPTIONS, type ModeOptions, queryEntries, readMode, roundingScale } from './grid.js';
import { readReleaseOptions, releaseArrays, releasedArray, type VectorReleaseOptions } from './release-options.js';
import type { WasmVector } from '../noise/wasm-vector.js';
import type { ModeChoice, Releasing } from './independent.js';

/**
 * The options of staircaseMechanism: calibrateStaircase's, and the mode.
 *
 * @group Mechanisms
 */
export type StaircaseMechanismOptions = StaircaseCalibrationOptions & ModeChoice;

/**
 * A calibrated staircase mechanism.
 *
 * @group Mechanisms
 */
export interface StaircaseMechanism extends StaircaseCalibration, Releasing {
  /** The privacy the release gives (in grid mode, with the rounding): pure epsilon-DP, and its (epsilon, delta) curve. */
  readonly privacy: PurePrivacy;
}

const largest = (a: Float64Array) => a.reduce((m, x) => Math.max(m, x), 0);

type StaircaseTarget = Parameters<typeof staircaseCalibration>[0];

/**
 * Grid mode: the calibration to the sensitivities rounded to the grid, and the kernel's
 * parameters in grid steps: the step D_i = lambda'_i / g (whole), the discrete Laplace scale t_i
 * = 1/eps_i rounded up (so each coordinate spends at most eps_i), and the high part r_i =
 * round(gamma_i D_i).
 */
function onGrid(target: StaircaseTarget, profile: Profile, mode: ModeOptions) {
  const g = mode.grid ?? defaultGrid(roundingScale(profile.lambda), noiseScale(staircaseCalibration(target, profile)));
  const rounded = gridSensitivity(profile.lambda, g);
  const calibration = staircaseCalibration(target, withSensitivity(profile, rounded));
  const { sensitivity, epsilons, gammas } = calibration;
  const steps = sensitivity.map((l) => l / g); // exact: g is a power of two and l a multiple of it
  const scales = epsilons.map((e) => (e > 0 ? roundUp(1 / e) : 0));
  gridUnits(
    sensitivity.map((l, i) => l * scales[i]!),
    g,
    'step width / budget',
  ); // the noise's reach in steps, within the samplers' limit
  const high = gammas.map((gamma, i) => Math.min(steps[i]!, Math.max(0, Math.round(gamma * steps[i]!))));
  return { calibration, grid: g, kernel: 'discreteStaircaseSamples' as const, widths: steps, parameters: { epsilons: scales, gammas: high } };
}

/** The largest step width per unit of budget, lambda_i / eps_i: the noise's reach, for the default grid. */
function noiseScale({ sensitivity, epsilons }: StaircaseCalibration): number {
  return largest(sensitivity.map((l, i) => (l > 0 ? l / epsilons[i]! : 0)));
}

/** Continuous mode: the calibration itself, drawn in floating point. */
function continuous(target: StaircaseTarget, profile: Profile) {
  const calibration = staircaseCalibration(target, profile);
  const { sensitivity, epsilons, gammas } = calibration;
  return { calibration, grid: undefined, kernel: 'staircaseSamples' as const, widths: sensitivity, parameters: { epsilons, gammas } };
}

/**
 * The staircase mechanism: independent staircase noise per coordinate, the budget split and the
 * shapes of calibrateStaircase, pure epsilon-DP under the box bound. Grid mode (the default)
 * rounds the query to a power-of-two grid and adds the exact discrete staircase (whole grid
 * steps, drawn from exact discrete Laplace draws and uniform integers), so no floating-point low
 * bit depends on the data; the calibration is to the sensitivities rounded to the grid.
 *
 * @example
 * ```ts
 * import { createRng, staircaseMechanism } from 'dpnoise';
 *
 * const m = staircaseMechanism({ sensitivity: [0.15, 0.85], epsilon: 5, errorPower: 1 });
 * console.log(m.epsilons, m.gain); // each coordinate's budget; the gain over i.n.i.d. Laplace
 * console.log(m.release([10, 20], { rng: createRng({ seed: 1 }) })); // on the grid
 * console.log(m.privacy.epsilon(0)); // 5: pure epsilon-DP
 * ```
 *
 * @group Mechanisms
 */
export function staircaseMechanism(options: StaircaseMechanismOptions): StaircaseMechanism {
  const o = readOptions('options', options, [...PROFILE_OPTIONS, 'epsilon', ...MODE_OPTIONS]);
  const mode = readMode(o);
  const { target, profile } = readStaircaseOptions(o);
  const { calibration, grid, kernel, widths, parameters } = mode.mode === 'grid' ? onGrid(target, profile, mode) : continuous(target, profile);
  const entries = queryEntries(grid ?? Number.MAX_VALUE);
  const how = { add: true, grid, staircase: parameters };
  const privacy = purePrivacy(target.epsilon, 'staircase');
  const release = (query: Float64Array | readonly number[] | WasmVector, releaseOptions?: VectorReleaseOptions): Float64Array => {
    const { random, out, given, budget } = readReleaseOptions(releaseOptions, widths.length, true);
    const { exact, target } = releaseArrays('query', query, entries, widths.length, out, { budget, privacy }, true);
    drawValidated(kernel, target, widths, random.stream(), { ...how, source: exact });
    return releasedArray(given, target);
  };
  return frozenResult({
    ...calibration,
    privacy,
    mode: mode.mode,
    grid,
    release,
  }) as StaircaseMechanism;
}
