// The per-example gradients of one trainable weight over a micro-batch, in the form its layer gives
// them without a loop over examples (docs/training.md, "Per-example gradients"), and what clipping
// needs from each form: every example's norm, and the sum over each chunk of m consecutive
// examples of the clipped gradients (docs/training.md, "Rounding").
import * as tf from '@tensorflow/tfjs';

/**
 * One weight's per-example gradients, batch first:
 * - outer: example b's gradient is the outer product scale_b a_b g_b^T (a dense layer on rows),
 *   a and g scaled to a largest entry of 1 (outerPiece);
 * - full: example b's gradient is full[b];
 * - rows: example b's gradient has row ids[b, t] equal to rows[b, t], the ids of an example
 *   distinct where their rows are not zero, and every other row zero (an embedding).
 */
export type Piece =
  | { readonly kind: 'outer'; readonly a: tf.Tensor2D; readonly g: tf.Tensor2D; readonly scale: tf.Tensor1D }
  | { readonly kind: 'full'; readonly full: tf.Tensor }
  | { readonly kind: 'rows'; readonly rows: tf.Tensor3D; readonly ids: tf.Tensor2D; readonly vocabulary: number };

/** The norm clipped: l2 for Gaussian noise, l1 for Laplace noise. */
export type NormPower = 1 | 2;

/**
 * The piece of the outer products a_b g_b^T, held as scale_b (a_b / max|a_b|) (g_b / max|g_b|)^T
 * with scale_b = max|a_b| max|g_b|: the norm of a row whose entries are at most 1, one of them 1,
 * does not underflow, and a product rounded below float32's normal range is never multiplied by a
 * huge factor afterwards (docs/training.md, "Rounding"). A row of zeros stays zeros, scale 0.
 */
export function outerPiece(a: tf.Tensor2D, g: tf.Tensor2D): Piece {
  const unit = (x: tf.Tensor2D) => {
    const largest = x.abs().max(1) as tf.Tensor1D;
    return { unit: x.div(perExample(tf.where(largest.greater(0), largest, tf.onesLike(largest)), x)) as tf.Tensor2D, largest };
  };
  const left = unit(a);
  const right = unit(g);
  return { kind: 'outer', a: left.unit, g: right.unit, scale: left.largest.mul(right.largest) };
}

/**
 * v[b] at every entry of example b, shaped like x (batch first): a product with a row of ones, exact
 * (v[b] 1 + 0), because tfjs's cpu backend broadcasts an elementwise operation index by index, ten
 * times slower than operands of one shape.
 */
function perExample(v: tf.Tensor1D, x: tf.Tensor): tf.Tensor {
  return v
    .reshape([-1, 1])
    .matMul(tf.ones([1, x.size / x.shape[0]!]))
    .reshape(x.shape);
}

/** Per row of x (batch first): the sum of |x|^p over the row. */
function rowPowers(x: tf.Tensor, p: NormPower): tf.Tensor1D {
  const flat = x.reshape([x.shape[0]!, -1]);
  return (p === 2 ? flat.square() : flat.abs()).sum(1);
}

/** Each example's ||gradient||_p^p: ||s a g^T||_p = s ||a||_p ||g||_p for p = 1, 2. */
export function normPowers(piece: Piece, p: NormPower): tf.Tensor1D {
  switch (piece.kind) {
    case 'outer': {
      const norm = (x: tf.Tensor2D) => (p === 2 ? rowPowers(x, 2).sqrt() : rowPowers(x, 1));
      const whole = piece.scale.mul(norm(piece.a)).mul(norm(piece.g)) as tf.Tensor1D;
      return p === 2 ? whole.square() : whole;
    }
    case 'full':
      return rowPowers(piece.full, p);
    case 'rows':
      return rowPowers(piece.rows, p);
  }
}

/**
 * The most float32 roundings in one example's norm of the piece: its longest reduction; for
 * `outer`, both rows' (each entry divided by the largest), their roots, the products with the scale and
 * the square, and the product of the factor with the scale.
 */
export function normTerms(piece: Piece): number {
  const perExample = (x: tf.Tensor) => x.size / x.shape[0]!;
  switch (piece.kind) {
    case 'outer':
      return perExample(piece.a) + perExample(piece.g) + 9;
    case 'full':
      return perExample(piece.full);
    case 'rows':
      return perExample(piece.rows);
  }
}

/** x with its non-finite entries zero: the same x for an example that counts, as its norm is finite. */
function finite(x: tf.Tensor): tf.Tensor {
  return tf.where(tf.isFinite(x), x, tf.zerosLike(x));
}

/**
 * x with example b's entries times factor[b], and zero (not 0 times a non-finite entry) where
 * keep[b] is false: the mask is applied to the factors, one per example.
 */
function scaled(x: tf.Tensor, factor: tf.Tensor1D, keep: tf.Tensor1D): tf.Tensor {
  return finite(x).mul(perExample(tf.where(keep, factor, tf.zerosLike(factor)), x));
}

/**
 * The sum over each chunk of `chunk` consecutive examples of factor[b] times example b's gradient,
 * examples with keep[b] false left out: [examples / chunk, ...weight shape], in float32, each
 * chunk's sum computed from its own examples only. One matrix product per chunk for `outer`.
 */
export function chunkSums(piece: Piece, factor: tf.Tensor1D, keep: tf.Tensor1D, chunk: number): tf.Tensor {
  switch (piece.kind) {
    case 'outer': {
      const [examples, inputs] = piece.a.shape;
      const chunks = examples / chunk;
      const a = scaled(piece.a, factor.mul(piece.scale), keep).reshape([chunks, chunk, inputs]);
      // a's rows are zero where the example does not count, so g only needs finite entries.
      const g = finite(piece.g).reshape([chunks, chunk, piece.g.shape[1]]);
      return tf.matMul(a as tf.Tensor3D, g as tf.Tensor3D, true, false);
    }
    case 'full': {
      const [examples, ...shape] = piece.full.shape;
      return scaled(piece.full, factor, keep)
        .reshape([examples! / chunk, chunk, ...shape])
        .sum(1);
    }
    case 'rows': {
      const [examples, positions, width] = piece.rows.shape;
      const chunks = examples / chunk;
      const rows = scaled(piece.rows, factor, keep).reshape([examples * positions, width]);
      // Row (b, t) adds to row ids[b, t] of chunk floor(b / chunk): at most one row per example, in slot order.
      const owner = tf.floorDiv(tf.range(0, examples, 1, 'int32'), tf.scalar(chunk, 'int32'));
      const target = owner
        .reshape([examples, 1])
        .mul(tf.scalar(piece.vocabulary, 'int32'))
        .add(piece.ids.toInt())
        .reshape([examples * positions, 1]);
      return tf.scatterND(target, rows, [chunks * piece.vocabulary, width]).reshape([chunks, piece.vocabulary, width]);
    }
  }
}
