// Dense layers (docs/training.md, "Per-example gradients"): z = x W + b. On rows, example b's
// kernel gradient is the outer product x_b g_b^T, left as its factors; with more positions per
// example (a dense layer on sequences), sum_t x_bt g_bt^T, one batched matrix product.
import * as tf from '@tensorflow/tfjs';
import type { Piece } from './pieces.js';
import { activationOf, type Layer, type Runner, weightOf } from './runner.js';

export function denseRunner(layer: Layer): Runner {
  const kernel = weightOf(layer, 'kernel')!;
  const bias = weightOf(layer, 'bias');
  const activate = activationOf(layer);
  const [inputs, units] = kernel.shape as [number, number];
  return {
    forward(x, probe) {
      const z = x
        .reshape([-1, inputs])
        .matMul(kernel)
        .reshape([...x.shape.slice(0, -1), units]);
      return { output: activate((bias ? z.add(bias) : z).add(probe)), saved: x };
    },
    pieces(x, g) {
      const examples = x.shape[0]!;
      const perPosition = x.reshape([examples, -1, inputs]);
      const gradients = g.reshape([examples, -1, units]);
      const pieces: Record<string, Piece> = {
        kernel:
          x.rank === 2
            ? { kind: 'outer', a: x as tf.Tensor2D, g: g as tf.Tensor2D }
            : { kind: 'full', full: tf.matMul(perPosition as tf.Tensor3D, gradients as tf.Tensor3D, true, false) },
      };
      if (bias) pieces.bias = { kind: 'full', full: gradients.sum(1) };
      return pieces;
    },
  };
}
