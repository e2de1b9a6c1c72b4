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

/** Privacy losses of independent noise: releases y = f + noise, against f' = f + shift. */
function losses(noise: Float64Array, scales: ArrayLike<number>, shift: ArrayLike<number>, loss: (e: number, s: number, b: number) => number): Float64Array {
  const K = scales.length;
  const out = new Float64Array(noise.length / K);
  for (let r = 0; r < out.length; r++) {
    let L = 0;
    for (let i = 0; i < K; i++) L += loss(noise[r * K + i]!, shift[i]!, scales[i]!);
    out[r] = L;
  }
  return out;
}

/** Gaussian: log N(e; 0, b^2) - log N(e; s, b^2). */
export const gaussianLosses = (noise: Float64Array, scales: ArrayLike<number>, shift: ArrayLike<number>) =>
  losses(noise, scales, shift, (e, s, b) => ((e - s) ** 2 - e * e) / (2 * b * b));

/** Laplace: log Lap(e; 0, b) - log Lap(e; s, b). */
export const laplaceLosses = (noise: Float64Array, scales: ArrayLike<number>, shift: ArrayLike<number>) =>
  losses(noise, scales, shift, (e, s, b) => (Math.abs(e - s) - Math.abs(e)) / b);

/** The staircase's step count phi(t): k on [k, k + gamma), k + 1 on [k + gamma, k + 1) (docs/staircase.md, "The staircase"). */
function steps(t: number, gamma: number): number {
  const k = Math.floor(t);
  return t - k < gamma ? k : k + 1;
}

/** Staircase: log f(e) - log f(e - s) = eps (phi(|e - s| / Delta) - phi(|e| / Delta)), coordinate by coordinate. */
export function staircaseLosses(
  noise: Float64Array,
  shape: { widths: ArrayLike<number>; epsilons: ArrayLike<number>; gammas: ArrayLike<number> },
  shift: ArrayLike<number>,
): Float64Array {
  const K = shape.widths.length;
  const out = new Float64Array(noise.length / K);
  for (let r = 0; r < out.length; r++) {
    let L = 0;
    for (let i = 0; i < K; i++) {
      const [e, w, g] = [noise[r * K + i]!, shape.widths[i]!, shape.gammas[i]!];
      L += shape.epsilons[i]! * (steps(Math.abs(e - shift[i]!) / w, g) - steps(Math.abs(e) / w, g));
    }
    out[r] = L;
  }
  return out;
}
