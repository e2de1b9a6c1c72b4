// Clipping holds on adversarial examples (src/tfjs/clipping.ts, step.ts, margin.ts): huge inputs,
// gradients that overflow float32, NaN and infinities. No example's clipped contribution exceeds
// its clipping norm, measured in float64; and the whole float32-then-float64 clipped sum of a batch
// moves by at most the clipping norm when one example is removed (docs/training.md, "Rounding").
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import type { Clipping } from '../../src/tfjs/clipping.js';
import { chunkLayout } from '../../src/tfjs/layout.js';
import { readLoss } from '../../src/tfjs/losses.js';
import { clipMargin, float32Below } from '../../src/tfjs/margin.js';
import { readModel } from '../../src/tfjs/model.js';
import { clippedSum, microBatchSums, normRoundings, type StepModel } from '../../src/tfjs/step.js';
import { BACKENDS, useBackend, variablesOf } from './helpers.js';

/** Rows of ordinary, huge (gradients overflowing float32), infinite, NaN and zero inputs. */
function adversarial(width: number): tf.Tensor2D {
  const scales = [1, 3, 1e3, 1e10, 1e18, 1e30, Infinity, Number.NaN, 0, -1e20, 0.5, 1e5];
  const base = tf.randomNormal([scales.length, width], 0, 1, 'float32', 11);
  return base.mul(tf.tensor2d(scales, [scales.length, 1])) as tf.Tensor2D;
}

const SETTINGS: ReadonlyArray<{ clipping: Clipping; p: 1 | 2 }> = [
  { clipping: 'per-layer', p: 2 },
  { clipping: 'global', p: 2 },
  { clipping: 'per-layer', p: 1 },
  { clipping: 'global', p: 1 },
];

/** The l_p norm of a float64 copy of float32 values. */
const norm = (values: ArrayLike<number>, p: 1 | 2) => {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += p === 2 ? values[i]! ** 2 : Math.abs(values[i]!);
  return p === 2 ? Math.sqrt(s) : s;
};

/** Each layer's norm within its clipping norm, or for global clipping their whole norm within the one norm. */
function expectWithin(layers: readonly number[], sensitivity: readonly number[], clipping: Clipping, p: 1 | 2): void {
  if (clipping === 'global') expect(norm(layers, p)).toBeLessThanOrEqual(sensitivity[0]!);
  else for (const [l, n] of layers.entries()) expect(n).toBeLessThanOrEqual(sensitivity[l]!);
}

describe.each(BACKENDS)('clipping on the %s backend', (backend) => {
  useBackend(backend);

  const model = () =>
    tf.sequential({
      layers: [tf.layers.dense({ inputShape: [6], units: 5, activation: 'relu' }), tf.layers.dense({ units: 3, activation: 'softmax' })],
    });
  const clip = [0.5, 0.25];

  it.each(SETTINGS)('no example contributes more than its norm ($clipping, l$p)', ({ clipping, p }) => {
    const stages = readModel(model());
    const x = adversarial(6);
    const examples = x.shape[0];
    const y = tf.oneHot(tf.range(0, examples, 1, 'int32').mod(3).toInt(), 3).toFloat();
    const sensitivity = clipping === 'global' ? [Math.hypot(...clip)] : clip;
    const loss = readLoss('categoricalCrossentropy');
    const margin = clipMargin({ normRoundings: normRoundings(stages, loss, x, y), chunk: 1, block: 1, population: examples });
    const step: StepModel = { stages, loss, p, clipping, clipNorms: sensitivity.map((c) => float32Below(c * margin)), chunk: 1 };
    // Chunks of one example: each chunk's sum is that example's clipped gradient. Clipped to the
    // norm itself, without the margin, contributions measured up to 8.8e-8 above it here.
    const sums = microBatchSums(step, x, y, tf.ones([examples]).cast('bool') as tf.Tensor1D).map((t) => t.dataSync());
    const sizes = variablesOf(stages).map((v) => v.size);
    for (let b = 0; b < examples; b++) {
      const parts = sums.map((s, w) => Array.from(s.subarray(b * sizes[w]!, (b + 1) * sizes[w]!)));
      const layers = [norm([...parts[0]!, ...parts[1]!], p), norm([...parts[2]!, ...parts[3]!], p)];
      expectWithin(layers, sensitivity, clipping, p);
      for (const part of parts) expect(part.every(Number.isFinite)).toBe(true);
    }
  });

  it.each(SETTINGS)(
    'no example contributes more than its norm when its inputs underflow and its output gradients are huge ($clipping, l$p)',
    ({ clipping, p }) => {
      // A regression with targets near float32's largest: the first layer's output gradients reach
      // 1e19, while inputs of 2.5e-23 square to zero in float32.
      const stages = readModel(tf.sequential({ layers: [tf.layers.dense({ inputShape: [6], units: 5, useBias: false, kernelInitializer: 'ones' })] }));
      const x = tf.tensor2d([2.5e-23, -2.5e-23, 2.5e-23, 1e-40, 2.5e-23, 2.5e-23, 1e-30, 1e-30, 1e-30, 1e-30, 1e-30, 1e-30], [2, 6]);
      const y = tf.fill([2, 5], 1e19);
      const loss = readLoss('meanSquaredError');
      const sensitivity = [1e-6];
      const margin = clipMargin({ normRoundings: normRoundings(stages, loss, x, y), chunk: 1, block: 1, population: 2 });
      const step: StepModel = { stages, loss, p, clipping, clipNorms: sensitivity.map((c) => float32Below(c * margin)), chunk: 1 };
      const sums = microBatchSums(step, x, y, tf.ones([2]).cast('bool') as tf.Tensor1D).map((t) => t.dataSync());
      for (let b = 0; b < 2; b++) {
        const kernel = Array.from(sums[0]!.subarray(b * 30, (b + 1) * 30));
        expect(norm(kernel, p)).toBeGreaterThan(0); // the example is clipped, not dropped
        expectWithin([norm(kernel, p)], sensitivity, clipping, p);
      }
    },
  );

  it.each(SETTINGS)('the clipped sum moves by at most the clipping norm when an example is removed ($clipping, l$p)', ({ clipping, p }) => {
    const stages = readModel(model());
    const ordinary = tf.randomNormal([12, 6], 0, 2, 'float32', 12);
    const x = tf.concat([adversarial(6), ordinary]);
    const examples = x.shape[0]!;
    const y = tf.oneHot(tf.range(0, examples, 1, 'int32').mod(3).toInt(), 3).toFloat();
    const sensitivity = clipping === 'global' ? [Math.hypot(...clip)] : clip;
    const loss = readLoss('categoricalCrossentropy');
    const block = 5;
    const margin = clipMargin({ normRoundings: normRoundings(stages, loss, x, y), chunk: 4, block, population: examples });
    const step: StepModel = { stages, loss, p, clipping, clipNorms: sensitivity.map((c) => float32Below(c * margin)), chunk: 4 };
    const length = variablesOf(stages).reduce((n, v) => n + v.size, 0);
    const all = Int32Array.from({ length: examples }, (_, i) => i);
    const sumOf = (batch: Int32Array) => clippedSum(step, { x, y }, chunkLayout(batch, block, 4), 8, length);
    const whole = sumOf(all);
    const firstLayer = 6 * 5 + 5;
    for (let removed = 0; removed < examples; removed++) {
      const without = sumOf(all.filter((i) => i !== removed));
      const change = whole.map((v, i) => v - without[i]!);
      const layers = [norm(change.subarray(0, firstLayer), p), norm(change.subarray(firstLayer), p)];
      expectWithin(layers, sensitivity, clipping, p);
    }
  });
});
