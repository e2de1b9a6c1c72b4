// The noise of a private training run (docs/training.md, "Accounting"): dpsgd's noise multiplier z
// for the budget, the mechanism that adds each step's noise (grid mode's exact noise by default),
// and the privacy of each step as that mechanism draws it, Poisson-subsampled. Grid noise is not
// exactly the continuous noise dpsgd plans with: z is raised until the run, accounted from the
// mechanism's own privacy, meets the budget.
import { compose, subsample } from '../accounting/combinators.js';
import { type Privacy, purePrivacy } from '../accounting/privacy.js';
import { dpsgd } from '../applications/dpsgd.js';
import type { Allocation } from '../calibrate/allocations.js';
import { type GaussianMechanism, gaussianMechanism, type LaplaceMechanism, laplaceMechanism } from '../mechanisms/independent.js';
import type { Mode } from '../mechanisms/grid.js';
import type { NoiseName } from '../noise/families.js';

/** What the plan is made from. */
export interface NoiseRequest {
  /** Parameters per group: per trainable layer, or one group of all for global clipping. */
  readonly sizes: readonly number[];
  /** Each group's sensitivity: its clipping norm (l2 for Gaussian noise, l1 for Laplace). */
  readonly sensitivity: readonly number[];
  readonly allocation: Allocation;
  readonly noise: NoiseName;
  readonly mode: Mode;
  /** The Poisson rate each step samples at. */
  readonly rate: number;
  readonly steps: number;
  readonly epsilon: number;
  readonly delta: number;
}

/** A run's noise. */
export interface NoisePlan {
  /** z: each step's mechanism is calibrated to 1/z-GDP (Gaussian) or pure (1/z)-DP (Laplace). */
  readonly noiseMultiplier: number;
  /** The mechanism that adds each step's noise to the clipped sum. */
  readonly mechanism: GaussianMechanism | LaplaceMechanism;
  /** One step's privacy: the mechanism's, Poisson-subsampled. */
  readonly step: Privacy;
}

/** How many times z may be raised (by 1e-4, doubling) before the plan gives up. */
const RAISES = 40;

/** The plan for a request. */
export function planNoise(request: NoiseRequest): NoisePlan {
  const { sizes, sensitivity, allocation, noise, mode, rate, steps, epsilon, delta } = request;
  const base = dpsgd({ layerSizes: sizes, clipNorms: sensitivity, batch: { rate }, steps, epsilon, delta, noise });
  const groups = { sizes, sensitivity };
  const mechanismAt = (z: number) =>
    noise === 'gaussian' ? gaussianMechanism({ groups, allocation, mu: 1 / z, mode }) : laplaceMechanism({ groups, allocation, epsilon: 1 / z, mode });
  let z = base.noiseMultiplier;
  for (let raise = 0; raise < RAISES; raise++) {
    const mechanism = mechanismAt(z);
    const step = subsample(mechanism.privacy, { rate });
    if (runPrivacy(step, steps).epsilon(delta) <= epsilon) return { noiseMultiplier: z, mechanism, step };
    z *= 1 + 1e-4 * 2 ** raise;
  }
  throw new RangeError(
    `dpnoise: no noise multiplier meets epsilon ${epsilon} at delta ${delta} over ${steps} steps as the noise is drawn; try mode 'continuous'.`,
  );
}

/** The privacy of `steps` steps of `step` (none: no privacy spent). */
export function runPrivacy(step: Privacy, steps: number): Privacy {
  return steps === 0 ? purePrivacy(0, 'composition') : compose([{ privacy: step, times: steps }]);
}
