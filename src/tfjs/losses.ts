// The losses private training takes, by name: each gives one loss per example, computed from that
// example's row alone (a loss that mixes examples would let one example move the others'
// gradients, past what clipping bounds), and an accuracy where the loss is a classifier's.
import * as tf from '@tensorflow/tfjs';
import { oneOf } from '../core/validate.js';

/** A loss by name. */
export interface Loss {
  /** One loss per example: [examples]. */
  perExample(yTrue: tf.Tensor, yPred: tf.Tensor): tf.Tensor1D;
  /** The share of examples classified right, for classifiers' losses. */
  accuracy?(yTrue: tf.Tensor, yPred: tf.Tensor): tf.Tensor1D;
}

/** Per example: the mean over every axis but the first (a sequence's positions). */
function perExample(metric: (yTrue: tf.Tensor, yPred: tf.Tensor) => tf.Tensor): Loss['perExample'] {
  return (yTrue, yPred) => {
    const values = metric(yTrue, yPred);
    return (values.rank > 1 ? values.reshape([values.shape[0]!, -1]).mean(1) : values) as tf.Tensor1D;
  };
}

/**
 * The losses private training takes, by name (each one value per example).
 *
 * @group Training
 */
export type LossName = 'categoricalCrossentropy' | 'sparseCategoricalCrossentropy' | 'binaryCrossentropy' | 'meanSquaredError' | 'meanAbsoluteError';

const LOSSES: Record<LossName, Loss> = {
  categoricalCrossentropy: { perExample: perExample(tf.metrics.categoricalCrossentropy), accuracy: perExample(tf.metrics.categoricalAccuracy) },
  sparseCategoricalCrossentropy: {
    perExample: perExample((labels, yPred) =>
      tf.metrics.categoricalCrossentropy(tf.oneHot(labels.reshape([-1]).toInt(), yPred.shape[yPred.rank - 1]!).reshape(yPred.shape), yPred),
    ),
    accuracy: perExample(tf.metrics.sparseCategoricalAccuracy),
  },
  binaryCrossentropy: { perExample: perExample(tf.metrics.binaryCrossentropy), accuracy: perExample(tf.metrics.binaryAccuracy) },
  meanSquaredError: { perExample: perExample(tf.metrics.meanSquaredError) },
  meanAbsoluteError: { perExample: perExample(tf.metrics.meanAbsoluteError) },
};

/** The loss named `name`. */
export function readLoss(name: unknown): Loss {
  return LOSSES[oneOf('loss', name, Object.keys(LOSSES) as LossName[])];
}
