// Embeddings (docs/training.md, "Per-example gradients"): example b's gradient has, in the row of
// each id it holds, the sum of the output gradients at that id's positions. The positions of an
// id are gathered at its first one, so that an example's rows have distinct ids and its norm is
// that of its rows.
import * as tf from '@tensorflow/tfjs';
import { type Layer, type Runner, weightOf } from './runner.js';

export function embeddingRunner(layer: Layer): Runner {
  const table = weightOf(layer, 'embeddings')!;
  const [vocabulary, width] = table.shape as [number, number];
  return {
    forward(x, probe) {
      const ids = x.toInt().reshape([x.shape[0]!, -1]);
      // Checked here, so that no error of tfjs's shows an id: the ids are training data.
      const outside = tf.logicalOr(ids.less(0), ids.greaterEqual(vocabulary)).any().dataSync()[0];
      if (outside) throw new RangeError(`dpnoise: the inputs of embedding layer '${layer.name}' must be ids in [0, ${vocabulary}); some are not (not shown).`);
      const z = tf.gather(table, ids.flatten()).reshape([...x.shape, width]);
      return { output: z.add(probe), saved: ids };
    },
    pieces(ids, g) {
      const [examples, positions] = ids.shape as [number, number];
      const gradients = g.reshape([examples, positions, width]) as tf.Tensor3D;
      // first[b, t]: the first position of example b whose id is that of position t.
      const same = tf.equal(ids.expandDims(2), ids.expandDims(1));
      const index = tf.range(0, positions, 1, 'int32').reshape([1, 1, positions]).broadcastTo(same.shape);
      const first = tf.where(same, index, tf.fill(same.shape, positions, 'int32')).min(2) as tf.Tensor2D;
      // rows[b, s] = sum of the gradients at the positions t whose first position is s.
      const rows = tf.matMul(tf.oneHot(first, positions).toFloat() as tf.Tensor3D, gradients, true, false) as tf.Tensor3D;
      return { embeddings: { kind: 'rows', rows, ids: ids as tf.Tensor2D, vocabulary } };
    },
  };
}
