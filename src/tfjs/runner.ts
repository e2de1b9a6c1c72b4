// What a trainable layer dpnoise supports provides: its forward pass written out, with a probe
// (zeros) added where the layer's own activation would be applied, so that the gradient at the
// probe is the gradient at the layer's output for every example at once; and, from what the
// forward pass saved and that gradient, the per-example gradients of its weights.
import * as tf from '@tensorflow/tfjs';
import type { Piece } from './pieces.js';

/** A layer of a tfjs model. */
export type Layer = tf.LayersModel['layers'][number];

/** The forward and backward of one supported trainable layer (dense.ts, conv2d.ts, embedding.ts, layer-normalization.ts). */
export interface Runner {
  /** The layer's output for `input`, with `probe` added before its activation; `saved` is what `pieces` needs. */
  forward(input: tf.Tensor, probe: tf.Tensor): { output: tf.Tensor; saved: tf.Tensor };
  /** The per-example gradients of the layer's trainable weights, by weight name ('kernel', 'bias', ...), from `saved` and the gradient at the probe. */
  pieces(saved: tf.Tensor, gradient: tf.Tensor): Record<string, Piece>;
}

/** The name of a weight within its layer: 'kernel' for 'dense_Dense1/kernel'. */
export function weightName(variable: { readonly name: string }): string {
  return variable.name.slice(variable.name.lastIndexOf('/') + 1);
}

/** The variable of the layer's trainable weight `name`, or undefined (no bias, say). */
export function weightOf(layer: Layer, name: string): tf.Variable | undefined {
  return layer.trainableWeights.find((w) => weightName(w) === name)?.read() as tf.Variable | undefined;
}

/** The layer's activation (its `activation` option), as the layer applies it. */
export function activationOf(layer: Layer): (z: tf.Tensor) => tf.Tensor {
  const activation = tf.layers.activation({ activation: layer.getConfig().activation as 'relu' });
  return (z) => activation.apply(z) as tf.Tensor;
}
