// Shared by the tfjs tests: the backends that run in Node without native code, the per-example
// gradients as the step computes them, and the reference loop over examples.
import '@tensorflow/tfjs-backend-wasm';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, expect } from 'vitest';
import type { Loss } from '../../src/tfjs/losses.js';
import { readModel, type Stage } from '../../src/tfjs/model.js';
import { addClipped, pieceSize, readPiece } from '../../src/tfjs/pieces.js';
import { layerPieces } from '../../src/tfjs/step.js';

tf.enableProdMode(); // no banner about tfjs-node on standard error

/** tfjs's backends in Node without native code: its JavaScript one, and WebAssembly (@tensorflow/tfjs-backend-wasm). */
export const BACKENDS = ['cpu', 'wasm'] as const;

/** Runs the tests of a describe block on `backend`. */
export function useBackend(backend: (typeof BACKENDS)[number]): void {
  beforeAll(async () => {
    expect(await tf.setBackend(backend)).toBe(true);
  });
}

/** Every trainable variable of the stages, in the step's order. */
export function variablesOf(stages: readonly Stage[]): tf.Variable[] {
  return stages.flatMap((s) => s.trainable?.weights.map((w) => w.variable) ?? []);
}

/** Each example's gradient of each trainable weight, as the step computes it (pieces, each example alone at factor 1, rounded to float32): [examples, ...shape] per weight. */
export function perExampleGradients(model: tf.LayersModel, loss: Loss, x: tf.Tensor, y: tf.Tensor): tf.Tensor[] {
  const stages = readModel(model);
  const examples = x.shape[0]!;
  const saved: tf.Tensor[] = [];
  try {
    return tf.tidy(() => {
      const pieces = layerPieces({ stages, loss }, x, y, saved).flat().map(readPiece);
      return pieces.map((piece, k) => {
        const size = pieceSize(piece);
        const values = new Float32Array(examples * size);
        for (let b = 0; b < examples; b++) {
          const alone = new Float64Array(size);
          addClipped(
            piece,
            Float64Array.from({ length: examples }, (_, c) => (c === b ? 1 : 0)),
            alone,
            0,
          );
          values.set(alone, b * size);
        }
        return tf.tensor(values, [examples, ...variablesOf(stages)[k]!.shape]);
      });
    });
  } finally {
    for (const t of saved) t.dispose();
  }
}

/** The reference: each example's gradients by tf.variableGrads on that example alone, through the model's own layers. */
export function referenceGradients(model: tf.LayersModel, loss: Loss, x: tf.Tensor, y: tf.Tensor): tf.Tensor[] {
  const variables = variablesOf(readModel(model));
  const examples = x.shape[0]!;
  const perExample = Array.from({ length: examples }, (_, b) =>
    tf.tidy(() => {
      const xb = x.slice(b, 1);
      const yb = y.slice(b, 1);
      const { grads } = tf.variableGrads(() => loss.perExample(yb, model.apply(xb, { training: true }) as tf.Tensor).sum() as tf.Scalar, variables);
      return variables.map((v) => grads[v.name]!);
    }),
  );
  const stacked = variables.map((_, k) => tf.stack(perExample.map((g) => g[k]!)));
  for (const g of perExample.flat()) g.dispose();
  return stacked;
}
