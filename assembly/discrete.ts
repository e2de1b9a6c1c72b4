// Exact discrete Laplace noise for grid mode: Canonne, Kamath & Steinke (2020), "The discrete
// Gaussian for differential privacy", Algorithms 1 and 2, with integer arithmetic only. Every
// random word is an extra word of the coordinate (random.ts), so the noise of coordinate i depends
// only on (stream, i), as for the continuous samplers.
import { exhausted, extraWord } from "./random";
import { SCALES, VALUES } from "./memory";

let coordinate: u64 = 0;
let drawn: u64 = 0;

// @ts-ignore: decorator
@inline function nextWord(): u64 {
  return extraWord(coordinate, drawn++);
}

/** A uniform integer in [0, m), m >= 1: masked for powers of two, else by rejection of the 2^64 mod m lowest words. */
function uniformBelow(m: u64): u64 {
  if ((m & (m - 1)) == 0) return m == 1 ? 0 : nextWord() & (m - 1);
  const reject = (0 - m) % m; // 2^64 mod m
  while (true) {
    const w = nextWord();
    if (exhausted) return 0;
    if (w >= reject) return w % m;
  }
}

/** Bernoulli(n / d) for 0 <= n <= d. */
// @ts-ignore: decorator
@inline function bernoulli(n: u64, d: u64): bool {
  return uniformBelow(d) < n;
}

/** Bernoulli(exp(-n/d)) for 0 <= n <= d (Algorithm 1): A_K ~ Bernoulli(n/(dK)) until one fails. */
function bernoulliExp(n: u64, d: u64): bool {
  let K: u64 = 1;
  // Bernoulli(n/(dK)) as Bernoulli(n/d) and Bernoulli(1/K): no product can overflow.
  while (!exhausted && bernoulli(n, d) && bernoulli(1, K)) K++;
  return (K & 1) == 1;
}

/**
 * A draw of the discrete Laplace distribution P(y) proportional to exp(-|y|/t), integer t >= 1
 * (Algorithm 2 with s = 1); NaN if the pool of extra words ran dry.
 */
function discreteLaplace(t: u64): f64 {
  while (true) {
    const u = uniformBelow(t);
    const keep = bernoulliExp(u, t);
    if (exhausted) return NaN;
    if (!keep) continue;
    let v: u64 = 0;
    while (bernoulliExp(1, 1) && !exhausted) v++; // geometric, P(v) proportional to exp(-v)
    const negative = bernoulli(1, 2);
    if (exhausted) return NaN;
    const x = u + t * v;
    if (negative && x == 0) continue;
    return negative ? -<f64>x : <f64>x;
  }
}

/**
 * VALUES[i] = (add ? VALUES[i] : 0) + a discrete Laplace draw with integer scale
 * (perCoordinate ? SCALES[i] : scale), 0 meaning no noise, plus `shared`, for coordinates
 * [start, n) of the chunk starting at coordinate `first` (the samplers' signature). Scales stay
 * below 2^40 and values below 2^52, so every result is an exact integer. Returns n, or the
 * coordinate at which the CSPRNG pool ran dry.
 */
export function discreteLaplaceSamples(first: f64, start: i32, n: i32, perCoordinate: bool, scale: f64, add: bool, shared: f64): i32 {
  for (let i = start; i < n; i++) {
    const at = <usize>i << 3;
    const t = <u64>(perCoordinate ? load<f64>(SCALES + at) : scale);
    coordinate = <u64>first + <u64>i;
    drawn = 0;
    const y = t == 0 ? 0.0 : discreteLaplace(t);
    if (isNaN(y)) return i;
    store<f64>(VALUES + at, (add ? load<f64>(VALUES + at) : 0.0) + (y + shared));
  }
  return n;
}
