// 2-D convolutions (docs/training.md, "Per-example gradients"), channels last. The input's patches
// (each output position's receptive field, flattened in the kernel's order) turn the convolution
// into a dense layer over positions: z = patches W + b, and example b's kernel gradient is
// sum_t patch_bt g_bt^T, one batched matrix product.
import * as tf from '@tensorflow/tfjs';
import type { Piece } from './pieces.js';
import { activationOf, type Layer, type Runner, weightOf } from './runner.js';

/** A config entry that is a number or a pair, as a pair. */
const pair = (value: unknown): [number, number] => (Array.isArray(value) ? [value[0], value[1]] : [value as number, value as number]);

/** Output length and padding before, along one axis, as tfjs computes them for 'same' and 'valid'. */
function axis(length: number, size: number, stride: number, dilation: number, same: boolean): { out: number; before: number; total: number } {
  const reach = (size - 1) * dilation + 1;
  const out = same ? Math.ceil(length / stride) : Math.ceil((length - reach + 1) / stride);
  const total = same ? Math.max(0, (out - 1) * stride + reach - length) : 0;
  return { out, before: Math.floor(total / 2), total };
}

export function conv2dRunner(layer: Layer): Runner {
  const kernel = weightOf(layer, 'kernel')!;
  const bias = weightOf(layer, 'bias');
  const activate = activationOf(layer);
  const config = layer.getConfig();
  const [kh, kw, channels, filters] = kernel.shape as [number, number, number, number];
  const [sh, sw] = pair(config.strides);
  const [dh, dw] = pair(config.dilationRate);
  const same = config.padding === 'same';
  const width = kh * kw * channels;
  /** [examples, out rows, out columns, kh kw channels]: entry (i, j, c) of a patch is input channel c at offset (i dh, j dw). */
  const patchesOf = (x: tf.Tensor4D): tf.Tensor4D => {
    const [examples, height, columns] = x.shape;
    const rows = axis(height, kh, sh, dh, same);
    const cols = axis(columns, kw, sw, dw, same);
    // Padded past the end to a whole stride after the last tap, so that each tap is a slice cut in strides.
    const padded = x.pad([
      [0, 0],
      [rows.before, rows.total - rows.before + sh],
      [cols.before, cols.total - cols.before + sw],
      [0, 0],
    ]);
    const taps: tf.Tensor4D[] = [];
    for (let i = 0; i < kh; i++) {
      for (let j = 0; j < kw; j++) {
        // Rows i dh, i dh + sh, ...: a slice of out sh rows, keeping the first of every sh (tf.slice has a gradient; tf.stridedSlice has none).
        const window = padded.slice([0, i * dh, j * dw, 0], [examples, rows.out * sh, cols.out * sw, channels]);
        const strided = window
          .reshape([examples, rows.out, sh, cols.out, sw, channels])
          .slice([0, 0, 0, 0, 0, 0], [examples, rows.out, 1, cols.out, 1, channels]);
        taps.push(strided.reshape([examples, rows.out, cols.out, channels]));
      }
    }
    return tf.concat(taps, 3);
  };
  return {
    forward(x, probe) {
      const patches = patchesOf(x as tf.Tensor4D);
      const [examples, rows, cols] = patches.shape;
      const z = patches
        .reshape([-1, width])
        .matMul(kernel.reshape([width, filters]))
        .reshape([examples, rows, cols, filters]);
      return { output: activate((bias ? z.add(bias) : z).add(probe)), saved: patches };
    },
    pieces(patches, g) {
      const examples = patches.shape[0]!;
      const perPosition = patches.reshape([examples, -1, width]) as tf.Tensor3D;
      const gradients = g.reshape([examples, -1, filters]) as tf.Tensor3D;
      const pieces: Record<string, Piece> = {
        kernel: { kind: 'full', full: tf.matMul(perPosition, gradients, true, false).reshape([examples, kh, kw, channels, filters]) },
      };
      if (bias) pieces.bias = { kind: 'full', full: gradients.sum(1) };
      return pieces;
    },
  };
}
