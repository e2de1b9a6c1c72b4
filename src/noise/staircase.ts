// Staircase noise over long vectors (docs/staircase.md, "Sampling"): the arguments are checked in
// full, then the vector streams through the WebAssembly kernel (assembly/noise/staircase.ts).
import { MAX_SCALE } from '../core/domains.js';
import { type Entries, readOptions, vector } from '../core/validate.js';
import { readRng } from './random.js';
import { drawValidated, type SampleOptions } from './samplers.js';

/**
 * Per-coordinate staircase parameters: step widths (sensitivities), budgets and shapes, all of one
 * length. A calibrateStaircase result is one, and so is a staircaseMechanism.
 *
 * @group Sampling
 */
export interface StaircaseShape {
  /** Each coordinate's step width Delta_i >= 0 (0: no noise). */
  sensitivity: Float64Array | readonly number[];
  /** Each coordinate's budget eps_i > 0 (where Delta_i > 0). */
  epsilons: Float64Array | readonly number[];
  /** Each coordinate's shape gamma_i in [0, 1]. */
  gammas: Float64Array | readonly number[];
}

const WIDTH_ENTRIES: Entries = { min: 0, max: MAX_SCALE, basic: 'a finite number >= 0', range: `a number >= 0 and <= ${MAX_SCALE}` };
const EPSILON_ENTRIES: Entries = { min: 0, max: 700, basic: 'a finite number >= 0', range: 'a number >= 0 and <= 700' };
const GAMMA_ENTRIES: Entries = { min: 0, max: 1, zero: true, basic: 'a number in [0, 1]', range: 'a number in [0, 1]' };

/**
 * A new Float64Array of staircase noise, coordinate i from the staircase of step width
 * `sensitivity[i]`, budget `epsilons[i]` and shape `gammas[i]` (density proportional to
 * e^(-k eps) on |x| in [k Delta, (k + gamma) Delta) and e^(-(k+1) eps) on [(k + gamma) Delta,
 * (k + 1) Delta)). A noise generator in floating point, not a release: its low bits are not
 * protected (docs/mechanisms.md, "Floating-point safety").
 *
 * @example
 * ```ts
 * import { calibrateStaircase, createRng, staircaseNoise } from 'dpnoise';
 *
 * const s = calibrateStaircase({ sensitivity: [0.15, 0.85], epsilon: 5, errorPower: 1 });
 * const noise = staircaseNoise(s, { rng: createRng({ seed: 1 }) });
 * console.log(noise.length); // 2
 * ```
 *
 * @group Sampling
 */
export function staircaseNoise(shape: StaircaseShape, options?: SampleOptions): Float64Array {
  // A calibrateStaircase result or a staircaseMechanism is a shape too: their other fields are allowed, and unread.
  const o = readOptions('shape', shape, [
    'sensitivity',
    'epsilons',
    'gammas',
    'noise',
    'target',
    'allocation',
    'errorPower',
    'error',
    'gain',
    'privacy',
    'mode',
    'grid',
    'release',
  ]);
  const widths = vector('sensitivity', o.sensitivity, WIDTH_ENTRIES, { copy: true });
  const K = widths.length;
  const epsilons = vector('epsilons', o.epsilons, EPSILON_ENTRIES, { length: K, copy: true });
  const gammas = vector('gammas', o.gammas, GAMMA_ENTRIES, { length: K, copy: true });
  for (let i = 0; i < K; i++) {
    if (widths[i]! > 0 && !(epsilons[i]! > 0 && widths[i]! / epsilons[i]! <= MAX_SCALE)) {
      throw new RangeError(
        `dpnoise: \`epsilons[${i}]\` must be above 0 and at least sensitivity[${i}] / ${MAX_SCALE} where the sensitivity is above 0; got ${epsilons[i]}.`,
      );
    }
  }
  const stream = readRng(options).stream();
  return drawValidated('staircaseSamples', new Float64Array(K), widths, stream, { staircase: { epsilons, gammas } });
}
