// Layer normalization over the last axis (docs/training.md, "Per-example gradients"):
// y = gamma * n + beta with n the input normalized per position, so example b's gradients are
// sum_t g_bt * n_bt for gamma and sum_t g_bt for beta.
import * as tf from '@tensorflow/tfjs';
import type { Piece } from './pieces.js';
import { type Layer, type Runner, weightOf } from './runner.js';

export function layerNormalizationRunner(layer: Layer): Runner {
  const gamma = weightOf(layer, 'gamma');
  const beta = weightOf(layer, 'beta');
  const epsilon = layer.getConfig().epsilon as number;
  return {
    forward(x, probe) {
      const { mean, variance } = tf.moments(x, -1, true);
      const normalized = x.sub(mean).mul(tf.rsqrt(variance.add(epsilon)));
      const scaled = gamma ? normalized.mul(gamma) : normalized;
      return { output: (beta ? scaled.add(beta) : scaled).add(probe), saved: normalized };
    },
    pieces(normalized, g) {
      const [examples] = g.shape;
      const width = g.shape[g.rank - 1]!;
      const gradients = g.reshape([examples!, -1, width]);
      const pieces: Record<string, Piece> = {};
      if (gamma) pieces.gamma = { kind: 'full', full: gradients.mul(normalized.reshape([examples!, -1, width])).sum(1) };
      if (beta) pieces.beta = { kind: 'full', full: gradients.sum(1) };
      return pieces;
    },
  };
}
