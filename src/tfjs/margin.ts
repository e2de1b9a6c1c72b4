// The clipping norm tfjs clips to, below the sensitivity the noise is calibrated to, so that the
// clipped sum as float32 and float64 arithmetic computes it still moves by at most that
// sensitivity between neighbours (docs/training.md, "Rounding"): the norm computed in float32 may
// read low, the factor C'/norm rounds, each chunk of examples is summed in float32, and the chunks
// in float64.
import { roundUp } from '../core/rounding.js';

/** Unit roundoff of float32 and of float64. */
const U32 = 2 ** -24;
const U64 = 2 ** -53;

/** gamma_n = n u / (1 - n u): the relative error bound of n roundings of unit u (Higham 2002, Lemma 3.1). */
function gamma(n: number, u: number): number {
  return (n * u) / (1 - n * u);
}

/** What the rounding bound depends on: shapes and sizes only, never data. */
export interface RoundingShape {
  /** The most float32 roundings in computing any example's norm (its longest reduction, the parts and layers added, the square root). */
  normRoundings: number;
  /** m, the examples summed in float32 in one chunk. */
  chunk: number;
  /** M, the dataset indices of one block: the most examples whose chunks change with one example. */
  block: number;
  /** N, the training examples: the most examples in a batch, and the most chunks. */
  population: number;
}

/**
 * The factor by which the clipping norms are lowered: 1 / (rho (1 + 2 gamma32_{m+2} M +
 * 2 gamma64_N (1 + gamma32_{m+2}) N)) with rho = (1 + u32) / (1 - gamma32_R), rounded down by 2^-40
 * for this evaluation's own roundings (docs/training.md, "Rounding").
 */
export function clipMargin({ normRoundings, chunk, block, population }: RoundingShape): number {
  const rho = (1 + U32) / (1 - gamma(normRoundings, U32));
  const chunkError = gamma(chunk + 2, U32);
  const grows = rho * (1 + 2 * chunkError * block + 2 * gamma(population, U64) * (1 + chunkError) * population);
  return 1 / roundUp(grows) / (1 + 2 ** -40);
}

/** The largest float32 at most x (x > 0 and normal): tfjs holds the clipping norm as a float32. */
export function float32Below(x: number): number {
  const f = new Float32Array([x]);
  // For a positive float32 the next one down has the bit pattern one less.
  if (f[0]! > x) new Uint32Array(f.buffer)[0]! -= 1;
  return f[0]!;
}
