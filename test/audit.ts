// An empirical privacy audit: for a pair of neighbouring inputs, draw many releases, compute each
// release's privacy loss L = log p(y | D) / p(y | D') exactly, and estimate the privacy profile
// delta(eps) = E[(1 - e^(eps - L))_+] (the hockey-stick divergence) with its standard error.

export interface ProfileEstimate {
  delta: number;
  /** Standard error of the estimate (the integrand lies in [0, 1]). */
  se: number;
}

/** delta(eps) estimated from privacy losses drawn under D. */
export function estimateDelta(losses: Float64Array, epsilon: number): ProfileEstimate {
  let sum = 0;
  let sum2 = 0;
  for (const L of losses) {
    const v = L > epsilon ? 1 - Math.exp(epsilon - L) : 0;
    sum += v;
    sum2 += v * v;
  }
  const n = losses.length;
  const mean = sum / n;
  return { delta: mean, se: Math.sqrt(Math.max(0, sum2 / n - mean * mean) / n) };
}

/** Privacy losses of independent Gaussian noise: releases y = f + noise against f' = f + shift. */
export function gaussianLosses(noise: Float64Array, scales: ArrayLike<number>, shift: ArrayLike<number>): Float64Array {
  const K = scales.length;
  const losses = new Float64Array(noise.length / K);
  for (let r = 0; r < losses.length; r++) {
    let L = 0;
    for (let i = 0; i < K; i++) {
      const e = noise[r * K + i]!; // y - f
      const s2 = 2 * scales[i]! ** 2;
      L += ((e - shift[i]!) ** 2 - e * e) / s2;
    }
    losses[r] = L;
  }
  return losses;
}

/** Privacy losses of independent Laplace noise. */
export function laplaceLosses(noise: Float64Array, scales: ArrayLike<number>, shift: ArrayLike<number>): Float64Array {
  const K = scales.length;
  const losses = new Float64Array(noise.length / K);
  for (let r = 0; r < losses.length; r++) {
    let L = 0;
    for (let i = 0; i < K; i++) {
      const e = noise[r * K + i]!;
      L += (Math.abs(e - shift[i]!) - Math.abs(e)) / scales[i]!;
    }
    losses[r] = L;
  }
  return losses;
}
