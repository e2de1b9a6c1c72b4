// Statistical tests for the samplers. Each returns a statistic and whether it rejects at the
// stated level; the sampler tests run each on good data and on data drawn with a wrong scale.

/** Kolmogorov-Smirnov distance between the sample and a CDF; rejects above 1.95/sqrt(n) (alpha = 0.001). */
export function kolmogorovSmirnov(sample: Float64Array, cdf: (x: number) => number): { d: number; rejects: boolean } {
  const sorted = Float64Array.from(sample).sort();
  const n = sorted.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = cdf(sorted[i]!);
    d = Math.max(d, f - i / n, (i + 1) / n - f);
  }
  return { d, rejects: d > 1.95 / Math.sqrt(n) };
}

/** Sample moments. */
export function moments(sample: Float64Array): { mean: number; variance: number; skewness: number; kurtosis: number } {
  const n = sample.length;
  let sum = 0;
  for (const x of sample) sum += x;
  const mean = sum / n;
  let m2 = 0,
    m3 = 0,
    m4 = 0;
  for (const x of sample) {
    const d = x - mean;
    const d2 = d * d;
    m2 += d2;
    m3 += d2 * d;
    m4 += d2 * d2;
  }
  m2 /= n;
  m3 /= n;
  m4 /= n;
  return { mean, variance: m2, skewness: m3 / m2 ** 1.5, kurtosis: m4 / (m2 * m2) };
}

/** z-score of an observed count against a Poisson (or binomial) expectation. */
export function countZ(observed: number, expected: number): number {
  return (observed - expected) / Math.sqrt(expected);
}

/** How many |x| exceed t. */
export function countBeyond(sample: Float64Array, t: number): number {
  let count = 0;
  for (const x of sample) if (Math.abs(x) > t) count++;
  return count;
}

/** Pearson correlation of x[i] and x[i + lag]. */
export function autocorrelation(sample: Float64Array, lag: number): number {
  const n = sample.length - lag;
  let sx = 0,
    sy = 0,
    sxx = 0,
    syy = 0,
    sxy = 0;
  for (let i = 0; i < n; i++) {
    const x = sample[i]!,
      y = sample[i + lag]!;
    sx += x;
    sy += y;
    sxx += x * x;
    syy += y * y;
    sxy += x * y;
  }
  const cov = sxy / n - (sx / n) * (sy / n);
  return cov / Math.sqrt((sxx / n - (sx / n) ** 2) * (syy / n - (sy / n) ** 2));
}

export function scaled(sample: Float64Array, factor: number): Float64Array {
  return sample.map((x) => x * factor);
}
