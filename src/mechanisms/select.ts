// Choosing one of several candidates privately, by permute-and-flip (McKenna & Sheldon 2020,
// "Permute-and-Flip: A new mechanism for differentially private selection"): visit the candidates
// in a uniformly random order and stop at the first whose coin comes up, candidate r's coin
// landing with probability exp(-(d_r - d_min) rate), d_r its distance from the best score. With
// rate = epsilon / (2 Delta), Delta what one neighbour can move any score by, it is epsilon-DP, and
// its expected score is never worse than the exponential mechanism's. The best candidate's coin
// always lands, so it ends within one pass; every coin is drawn whichever lands first, so its work
// does not depend on the data. Every coin is exact (discrete-exact.ts, bernoulliExp)
// and the order is drawn from whole words: nothing is decided in floating point, which would leak
// as rounded noise does (docs/mechanisms.md, "Floating-point safety").
import { bernoulliExp, type NextWord, type Ratio } from '../noise/discrete-exact.js';
import { uniformBelow } from '../noise/words.js';

/**
 * The index of the candidate chosen by permute-and-flip from its distances (d_r >= 0 integers,
 * the smallest the best) at `rate` (x_r = (d_r - d_min) rate is candidate r's exponent).
 */
export function permuteAndFlip(distances: readonly bigint[], rate: Ratio, next: NextWord): number {
  const best = distances.reduce((a, b) => (b < a ? b : a));
  const order = Array.from(distances, (_, i) => i);
  // The rate in double precision, where it is a normal number (within 2^-52 relative): each coin's exponent then is within 2^-50.
  const quotient = Number(rate.n) / Number(rate.d);
  const approximateRate = Number.isFinite(quotient) && quotient > 2 ** -1000 ? quotient : undefined;
  const approximate = Float64Array.from(distances, (d) => (approximateRate === undefined ? Number.NaN : Number(d - best) * approximateRate));
  let chosen = -1;
  for (let i = 0; i < order.length; i++) {
    // A lazy Fisher-Yates shuffle: the i-th candidate visited is uniform among those left.
    const j = i + uniformBelow(next, order.length - i);
    [order[i], order[j]] = [order[j]!, order[i]!];
    const r = order[i]!;
    const gap = distances[r]! - best;
    const a = approximate[r]!;
    // Every candidate's coin is drawn and the first to land kept: the work is the same whichever
    // lands (docs/noise.md, "Timing"). The exact exponent is formed only if a coin needs it.
    const lands = bernoulliExp(() => ({ n: gap * rate.n, d: rate.d }), next, Number.isFinite(a) ? a : undefined);
    if (lands && chosen < 0) chosen = r;
  }
  if (chosen < 0) throw new Error('dpnoise: internal error: permute-and-flip passed its best candidate.');
  return chosen;
}
