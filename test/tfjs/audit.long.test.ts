// An empirical privacy audit of privateTraining (test/audit.ts) with one canary example. The model
// is one weight w (a dense unit without bias), the data four examples: the canary x = 1000, whose
// gradient (2e6) is clipped to the norm C = 1, and three examples x = 0, whose gradients are 0.
// The learning rate is 0, so every step is the same mechanism: y = C [canary drawn] + noise, seen
// by the auditor in the gradient the optimizer receives (times the expected batch size). D holds
// the canary, D' has x = 0 in its place. Blocks of K steps are audited against the accountant's
// privacy of K steps (what the run reports after K steps):
//  - white-box: the privacy loss of each block, L = log p_D(y) / p_D'(y) under the mechanism the
//    run claims (Poisson rate q, Gaussian of the mechanism's scale), drawn under D; estimateDelta
//    gives delta(eps), which must not exceed the reported delta(eps) (and is close to it: the
//    accountant is tight here);
//  - black-box: for any set S of outputs, P_D(S) - e^eps P_D'(S) <= delta(eps) whatever the
//    mechanism is; S = {L > t} over a grid of t, from the runs on D and D', with 5 standard errors
//    against the estimate. The same bound exceeds what a run that sampled at twice the rate it
//    accounts (q / 2 reported) would report: the audit can fail.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { compose, createRng, type Privacy, subsample } from '../../src/index.js';
import { privateTraining } from '../../src/tfjs/index.js';
import { estimateDelta } from '../audit.js';
import { useBackend } from './helpers.js';

const K = 4; // steps per audited block
const BLOCKS = 2500;
const RATE = 0.5;
const CLIP = 1;
const EPSILONS = [0.25, 0.5, 1, 2];

/** An SGD optimizer at learning rate 0 that keeps each step's (noisy, averaged) gradient of the one weight. */
class Recorder extends tf.SGDOptimizer {
  readonly seen: number[] = [];
  constructor() {
    super(0);
  }
  override applyGradients(gradients: tf.NamedTensorMap | { name: string; tensor: tf.Tensor }[]): void {
    const [first] = Array.isArray(gradients) ? gradients.map((g) => g.tensor) : Object.values(gradients);
    this.seen.push(first!.dataSync()[0]!);
  }
}

/** One run of K * BLOCKS steps on D (canary) or D' (no canary): the noisy sums it released, its per-step scale, and the privacy it reports after K steps. */
async function release(canary: boolean, seed: string) {
  const x = tf.tensor2d([[canary ? 1000 : 0], [0], [0], [0]]);
  const y = tf.zeros([4, 1]);
  const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [1], units: 1, useBias: false, kernelInitializer: 'ones' })] });
  const optimizer = new Recorder();
  // The whole run is planned at a large epsilon so that its noise (z about 1.3) leaves delta(eps) of a block measurable.
  const run = privateTraining(model, {
    loss: 'meanSquaredError',
    optimizer,
    epsilon: 1000,
    delta: 1e-5,
    steps: K * BLOCKS,
    sampleRate: RATE,
    clipNorms: [CLIP],
    mode: 'continuous',
    rng: createRng({ seed }),
  });
  let afterK: Privacy | undefined;
  await run.fit(x, y, {
    progress: false,
    onStep({ step }) {
      if (step === K) afterK = run.privacy;
    },
  });
  tf.dispose([x, y]);
  model.dispose();
  const sums = optimizer.seen.map((g) => g * RATE * 4); // the gradient is the noisy sum over the expected batch size
  return { sums, scale: run.mechanism.scales[0]!, afterK: afterK!, mechanism: run.mechanism };
}

/** Each block's privacy loss under the claimed mechanism: per step log((1 - q) + q exp((2 y C - C^2) / (2 sigma^2))). */
function blockLosses(sums: readonly number[], sigma: number): Float64Array {
  const out = new Float64Array(BLOCKS);
  for (let b = 0; b < BLOCKS; b++) {
    for (let s = 0; s < K; s++) {
      const yv = sums[b * K + s]!;
      out[b]! += Math.log(1 - RATE + RATE * Math.exp((2 * yv * CLIP - CLIP * CLIP) / (2 * sigma * sigma)));
    }
  }
  return out;
}

/** The black-box lower bound on delta(eps): max over t of P_D(L > t) - e^eps P_D'(L > t), each side moved 5 standard errors against it. */
function lowerBound(withCanary: Float64Array, without: Float64Array, epsilon: number): number {
  const share = (losses: Float64Array, t: number) => losses.reduce((n, L) => n + (L > t ? 1 : 0), 0) / losses.length;
  const se = (p: number) => Math.sqrt((p * (1 - p)) / BLOCKS);
  let best = 0;
  for (let t = -2; t <= 4; t += 0.05) {
    const [p, q] = [share(withCanary, t), share(without, t)];
    best = Math.max(best, p - 5 * se(p) - Math.exp(epsilon) * (q + 5 * se(q)));
  }
  return best;
}

describe('empirical audit of a private training run with one canary (2 x 10000 steps, cpu backend)', () => {
  useBackend('cpu');

  it('finds no more privacy loss than the run reports, and would catch a run that sampled at twice its accounted rate', async () => {
    const d = await release(true, 'audit-canary');
    const dPrime = await release(false, 'audit-no-canary');
    expect(d.sums).toHaveLength(K * BLOCKS);
    // The run reports, after K steps, the accountant's privacy of K Poisson-subsampled steps of its mechanism.
    const accountant = compose([{ privacy: subsample(d.mechanism.privacy, { rate: RATE }), times: K }]);
    for (const eps of EPSILONS) expect(d.afterK.delta(eps)).toBe(accountant.delta(eps));
    const understated = compose([{ privacy: subsample(d.mechanism.privacy, { rate: RATE / 2 }), times: K }]);
    const losses = blockLosses(d.sums, d.scale);
    const lossesPrime = blockLosses(dPrime.sums, dPrime.scale);
    let caught = false;
    for (const eps of EPSILONS) {
      const reported = d.afterK.delta(eps);
      // White-box: the estimate is within 5 standard errors below the report (statistical, fixed seeds).
      const { delta, se } = estimateDelta(losses, eps);
      expect(delta - 5 * se, `eps ${eps}: white-box estimate ${delta} ± ${se} against ${reported}`).toBeLessThanOrEqual(reported);
      // ... and the report is tight: not more than 5 standard errors above the estimate (seen: 0.216 ± 0.006 against 0.229 at eps 0.25).
      expect(delta + 5 * se, `eps ${eps}: the report is tight`).toBeGreaterThanOrEqual(reported);
      // Black-box: a proven lower bound (at 5 standard errors) never above the report.
      const bound = lowerBound(losses, lossesPrime, eps);
      expect(bound, `eps ${eps}: black-box bound against ${reported}`).toBeLessThanOrEqual(reported);
      if (bound > understated.delta(eps)) caught = true;
    }
    // Power: the same outputs refute the privacy of the same mechanism sampled at half the rate.
    expect(caught).toBe(true);
  }, 180_000);
});
