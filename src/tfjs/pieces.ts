// The per-example gradients of one trainable weight over a micro-batch, in the form its layer gives
// them without a loop over examples (docs/training.md, "Per-example gradients"), and what clipping
// needs from each form, in float64 arithmetic on the float32 values tfjs computed: every
// example's norm, and the sum of the clipped gradients (docs/training.md, "Rounding").
import type * as tf from '@tensorflow/tfjs';

/**
 * One weight's per-example gradients, batch first:
 * - outer: example b's gradient is the outer product a_b g_b^T (a dense layer on rows);
 * - full: example b's gradient is full[b];
 * - rows: example b's gradient has row ids[b, t] equal to rows[b, t], the ids of an example
 *   distinct where their rows are not zero, and every other row zero (an embedding).
 */
export type Piece =
  | { readonly kind: 'outer'; readonly a: tf.Tensor2D; readonly g: tf.Tensor2D }
  | { readonly kind: 'full'; readonly full: tf.Tensor }
  | { readonly kind: 'rows'; readonly rows: tf.Tensor3D; readonly ids: tf.Tensor2D; readonly vocabulary: number };

/** A piece's values read from tfjs, batch first, with the length of one example's part of each. */
export type HostPiece =
  | { readonly kind: 'outer'; readonly a: Float32Array; readonly g: Float32Array; readonly inputs: number; readonly units: number }
  | { readonly kind: 'full'; readonly full: Float32Array; readonly size: number }
  | {
      readonly kind: 'rows';
      readonly rows: Float32Array;
      readonly ids: Int32Array;
      readonly positions: number;
      readonly width: number;
      readonly vocabulary: number;
    };

/** The norm clipped: l2 for Gaussian noise, l1 for Laplace noise. */
export type NormPower = 1 | 2;

/** The entries of x after the batch axis, per example. */
const perExample = (x: tf.Tensor) => x.size / x.shape[0]!;

/** The piece's values, read from tfjs (for the cpu backend, its own arrays: nothing here writes to them). */
export function readPiece(piece: Piece): HostPiece {
  switch (piece.kind) {
    case 'outer':
      return { kind: 'outer', a: piece.a.dataSync() as Float32Array, g: piece.g.dataSync() as Float32Array, inputs: piece.a.shape[1], units: piece.g.shape[1] };
    case 'full':
      return { kind: 'full', full: piece.full.dataSync() as Float32Array, size: perExample(piece.full) };
    case 'rows':
      return {
        kind: 'rows',
        rows: piece.rows.dataSync() as Float32Array,
        ids: Int32Array.from(piece.ids.dataSync()),
        positions: piece.rows.shape[1],
        width: piece.rows.shape[2],
        vocabulary: piece.vocabulary,
      };
  }
}

/** The entries of the weight: of one example's gradient. */
export function pieceSize(piece: HostPiece): number {
  switch (piece.kind) {
    case 'outer':
      return piece.inputs * piece.units;
    case 'full':
      return piece.size;
    case 'rows':
      return piece.vocabulary * piece.width;
  }
}

/**
 * sum |x_i|^p over x[start, start + n), in float64: the square or absolute value of a float32 is
 * exact in float64 (a product of two 24-bit significands, within float64's range).
 */
function power(x: Float32Array, start: number, n: number, p: NormPower): number {
  let sum = 0;
  if (p === 2) for (let i = start; i < start + n; i++) sum += x[i]! * x[i]!;
  else for (let i = start; i < start + n; i++) sum += Math.abs(x[i]!);
  return sum;
}

/** Each of the first `examples` examples' ||gradient||_p^p: ||a g^T||_p^p = ||a||_p^p ||g||_p^p for p = 1, 2. */
export function normPowers(piece: HostPiece, examples: number, p: NormPower): Float64Array {
  const out = new Float64Array(examples);
  for (let b = 0; b < examples; b++) {
    switch (piece.kind) {
      case 'outer':
        out[b] = power(piece.a, b * piece.inputs, piece.inputs, p) * power(piece.g, b * piece.units, piece.units, p);
        break;
      case 'full':
        out[b] = power(piece.full, b * piece.size, piece.size, p);
        break;
      case 'rows':
        out[b] = power(piece.rows, b * piece.positions * piece.width, piece.positions * piece.width, p);
        break;
    }
  }
  return out;
}

/**
 * The most float64 roundings in one example's ||gradient||_p^p of the piece: the additions of its
 * longest reduction, and for `outer` the product of the two.
 */
export function normTerms(piece: Piece): number {
  switch (piece.kind) {
    case 'outer':
      return perExample(piece.a) + perExample(piece.g) + 1;
    case 'full':
      return perExample(piece.full);
    case 'rows':
      return perExample(piece.rows);
  }
}

/**
 * Adds sum_b factor[b] (example b's gradient), in float64, to out[offset, offset + weight size)
 * (the weight's entries in tfjs's order). An example of factor 0 is left out, not multiplied: its
 * entries may not be finite. Each term takes at most two roundings (f g_j, then times a_i; or
 * f full_i), each entry adds at most one term per example: rows of one example hold distinct ids.
 */
export function addClipped(piece: HostPiece, factor: Float64Array, out: Float64Array, offset: number): void {
  // For `outer`: one example's nonzero entries of f g_b, and their columns.
  const column = new Int32Array(piece.kind === 'outer' ? piece.units : 0);
  const scaled = new Float64Array(column.length);
  for (let b = 0; b < factor.length; b++) {
    const f = factor[b]!;
    if (f === 0) continue;
    switch (piece.kind) {
      case 'outer': {
        const { a, g, inputs, units } = piece;
        // Only the nonzero entries of f g_b and of a_b: the rest add exact zeros (both rows are
        // finite), and a relu's output gradients and inputs are zero about half the time.
        let nonzero = 0;
        for (let j = 0; j < units; j++) {
          const v = g[b * units + j]!;
          if (v !== 0) {
            column[nonzero] = j;
            scaled[nonzero++] = f * v;
          }
        }
        if (nonzero === 0) break;
        for (let i = 0; i < inputs; i++) {
          const ai = a[b * inputs + i]!;
          if (ai === 0) continue;
          const row = offset + i * units;
          for (let k = 0; k < nonzero; k++) out[row + column[k]!]! += ai * scaled[k]!;
        }
        break;
      }
      case 'full': {
        const { full, size } = piece;
        for (let i = 0, k = b * size; i < size; i++, k++) out[offset + i]! += f * full[k]!;
        break;
      }
      case 'rows': {
        const { rows, ids, positions, width } = piece;
        for (let t = b * positions; t < (b + 1) * positions; t++) {
          const row = offset + ids[t]! * width;
          for (let w = 0; w < width; w++) out[row + w]! += f * rows[t * width + w]!;
        }
        break;
      }
    }
  }
}
