// The canary audit of privateTraining (audit.long.test.ts), after
// test/audit.ts. The model is one weight w (a dense unit without bias), the data four examples:
// the canary x = 1000, whose gradient (2e6) is clipped to the norm C = 1, and three examples
// x = 0, whose gradients are 0. The learning rate is 0, so every step is the same mechanism:
// y = C [canary drawn] + noise, seen by the auditor in the gradient the optimizer receives (times
// the expected batch size). D holds the canary, D' has x = 0 in its place. Blocks of K steps are
// audited against the accountant's privacy of K steps (what the run reports after K steps):
//  - white-box: the privacy loss of each block, L = log p_D(y) / p_D'(y) under the mechanism the
//    run claims (Poisson rate q, Gaussian of the mechanism's scale), drawn under D; estimateDelta
//    gives delta(eps), which must not exceed the reported delta(eps);
//  - black-box: for any set S of outputs, P_D(S) - e^eps P_D'(S) <= delta(eps) whatever the
//    mechanism is; S = {L > t} over a grid of t, from the runs on D and D', with 5 standard errors
//    against the estimate.
import * as tf from '@tensorflow/tfjs';
import { compose, createRng, type Privacy, subsample } from '../../src/index.js';
import { privateTraining } from '../../src/tfjs/index.js';
import { estimateDelta } from '../audit.js';

export const K = 4; // steps per audited block
export const RATE = 0.5;
const CLIP = 1;
export const EPSILONS = [0.25, 0.5, 1, 2];

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

/** One run of K * blocks steps on D (canary) or D' (no canary): the noisy sums it released, its per-step scale, and the privacy it reports after K steps. */
export async function release(canary: boolean, seed: string, blocks: number) {
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
    steps: K * blocks,
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
export function blockLosses(sums: readonly number[], sigma: number): Float64Array {
  const out = new Float64Array(sums.length / K);
  for (let b = 0; b < out.length; b++) {
    for (let s = 0; s < K; s++) {
      const yv = sums[b * K + s]!;
      out[b]! += Math.log(1 - RATE + RATE * Math.exp((2 * yv * CLIP - CLIP * CLIP) / (2 * sigma * sigma)));
    }
  }
  return out;
}

/** The black-box lower bound on delta(eps): max over t of P_D(L > t) - e^eps P_D'(L > t), each side moved 5 standard errors against it. */
export function lowerBound(withCanary: Float64Array, without: Float64Array, epsilon: number): number {
  const share = (losses: Float64Array, t: number) => losses.reduce((n, L) => n + (L > t ? 1 : 0), 0) / losses.length;
  const se = (p: number, n: number) => Math.sqrt((p * (1 - p)) / n);
  let best = 0;
  for (let t = -2; t <= 4; t += 0.05) {
    const [p, q] = [share(withCanary, t), share(without, t)];
    best = Math.max(best, p - 5 * se(p, withCanary.length) - Math.exp(epsilon) * (q + 5 * se(q, without.length)));
  }
  return best;
}

/** One figure of the audit at an epsilon. */
export interface AuditFigure {
  epsilon: number;
  /** delta(eps) the run reports after K steps. */
  reported: number;
  /** The accountant's delta(eps) for K steps of the run's mechanism at its rate, computed here. */
  accountant: number;
  /** The white-box estimate and its standard error. */
  estimate: { delta: number; se: number };
  /** The black-box lower bound. */
  bound: number;
  /** delta(eps) of the same mechanism accounted at half the rate: what a run sampling at twice its accounted rate would report. */
  understated: number;
}

/** Runs D and D' for `blocks` blocks of K steps each (seeded) and returns the audit's figures. */
export async function audit(blocks: number, seed: string): Promise<{ steps: number; figures: AuditFigure[] }> {
  const d = await release(true, `${seed} canary`, blocks);
  const dPrime = await release(false, `${seed} no canary`, blocks);
  const accountant = compose([{ privacy: subsample(d.mechanism.privacy, { rate: RATE }), times: K }]);
  const understated = compose([{ privacy: subsample(d.mechanism.privacy, { rate: RATE / 2 }), times: K }]);
  const losses = blockLosses(d.sums, d.scale);
  const lossesPrime = blockLosses(dPrime.sums, dPrime.scale);
  const figures = EPSILONS.map((epsilon) => ({
    epsilon,
    reported: d.afterK.delta(epsilon),
    accountant: accountant.delta(epsilon),
    estimate: estimateDelta(losses, epsilon),
    bound: lowerBound(losses, lossesPrime, epsilon),
    understated: understated.delta(epsilon),
  }));
  return { steps: d.sums.length, figures };
}
