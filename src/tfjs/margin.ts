// The clipping norm the step clips to, below the sensitivity the noise is calibrated to, so that
// the clipped sum as float64 arithmetic computes it still moves by at most that sensitivity
// between neighbours (docs/training.md, "Rounding"): the norm computed may read low, the factor
// C'/norm rounds, and so do each clipped term and the sum.
import { roundUp } from '../core/rounding.js';

/** Unit roundoff of float64. */
const U64 = 2 ** -53;

/** gamma_n = n u / (1 - n u): the relative error bound of n roundings of unit u (Higham 2002, Lemma 3.1). */
function gamma(n: number, u: number): number {
  return (n * u) / (1 - n * u);
}

/** What the rounding bound depends on: shapes and sizes only, never data. */
export interface RoundingShape {
  /** R: the most float64 roundings in computing any example's norm (its longest reduction, the parts and layers added, the square root). */
  normRoundings: number;
  /** N, the training examples: the most examples in a batch. */
  population: number;
}

/**
 * The factor by which the clipping norms are lowered: 1 / (rho (1 + 2 gamma_{N+2} N)) with
 * rho = (1 + u) / (1 - gamma_R), u float64's unit roundoff, rounded down by 2^-40 for this
 * evaluation's own roundings and the product with the norm (docs/training.md, "Rounding").
 */
export function clipMargin({ normRoundings, population }: RoundingShape): number {
  const rho = (1 + U64) / (1 - gamma(normRoundings, U64));
  const grows = rho * (1 + 2 * gamma(population + 2, U64) * population);
  return 1 / roundUp(grows) / (1 + 2 ** -40);
}
