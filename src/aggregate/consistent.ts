// Histograms consistent with their group's count (`consistent`; docs/aggregates.md, "Consistent
// histograms"): post-processing of the noisy count and bins, so it costs no privacy. The count and
// each histogram's bins are released with independent noise; the consistent values are the least
// squares fit, each weighed by its noise's variance, under the constraint that every histogram's
// bins add up to the count.

/** A noisy count, or a histogram's noisy bins, with the standard deviation of each coordinate's noise. */
export interface NoisyCells {
  readonly values: readonly number[];
  readonly sd: number;
}

/** The consistent values and the standard deviations of their noise. */
export interface Consistent {
  readonly count: { value: number; sd: number };
  readonly histograms: ReadonlyArray<{ values: number[]; sd: number[] }>;
}

/**
 * The weighted least squares fit of a count c (noise sd s_c) and histograms h of k_h bins b_hk (sd
 * s_h) with every histogram adding up to the count. For a count c', each histogram's best bins
 * spread c' - S_h (S_h its sum) evenly over its k_h bins, at a cost (c' - S_h)^2 / (k_h s_h^2);
 * so c' is the average of c and the sums S_h weighed by their inverse variances 1 / s_c^2 and
 * 1 / (k_h s_h^2), and b'_hk = b_hk + (c' - S_h) / k_h. Both are linear in the independent noises,
 * so their variances are exact: var c' = 1 / W with W the sum of the weights, and
 * var b'_hk = s_h^2 (1 - 2a + k_h a^2) + (var c' - alpha_h^2 k_h s_h^2) / k_h^2 with
 * a = (1 - alpha_h) / k_h and alpha_h = 1 / (k_h s_h^2 W) the weight of S_h in c'.
 */
export function consistent(count: { value: number; sd: number }, histograms: readonly NoisyCells[]): Consistent {
  const sums = histograms.map((h) => h.values.reduce((a, b) => a + b, 0));
  const weights = histograms.map((h) => 1 / (h.values.length * h.sd ** 2));
  const total = 1 / count.sd ** 2 + weights.reduce((a, b) => a + b, 0);
  const value = (count.value / count.sd ** 2 + sums.reduce((sum, s, h) => sum + s * weights[h]!, 0)) / total;
  const countVariance = 1 / total;
  return {
    count: { value, sd: Math.sqrt(countVariance) },
    histograms: histograms.map((h, i) => {
      const k = h.values.length;
      const alpha = weights[i]! / total;
      const a = (1 - alpha) / k;
      // The part of c' that is not S_h's noise: var c' less alpha^2 var S_h.
      const rest = countVariance - alpha ** 2 * k * h.sd ** 2;
      const variance = h.sd ** 2 * (1 - 2 * a + k * a * a) + Math.max(0, rest) / k ** 2;
      const shift = (value - sums[i]!) / k;
      return { values: h.values.map((b) => b + shift), sd: h.values.map(() => Math.sqrt(variance)) };
    }),
  };
}
