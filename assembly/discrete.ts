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

// ---------------------------------------------------------------------------------------------
// Discrete Gaussian (Algorithm 3 of the same paper), with 128-bit integers for the acceptance
// test Bernoulli(exp(-(|Y| t - s)^2 / (2 s t^2))), s = sigma^2 an integer below 2^40.
// ---------------------------------------------------------------------------------------------
let wideHigh: u64 = 0;
let wideLow: u64 = 0;

/** (wideHigh, wideLow) = a * b, exactly. */
function multiplyWide(a: u64, b: u64): void {
  const a0 = a & 0xFFFFFFFF, a1 = a >>> 32, b0 = b & 0xFFFFFFFF, b1 = b >>> 32;
  const p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const middle = (p00 >>> 32) + (p01 & 0xFFFFFFFF) + (p10 & 0xFFFFFFFF);
  wideLow = (middle << 32) | (p00 & 0xFFFFFFFF);
  wideHigh = p11 + (p01 >>> 32) + (p10 >>> 32) + (middle >>> 32);
}

// @ts-ignore: decorator
@inline function lessWide(aHigh: u64, aLow: u64, bHigh: u64, bLow: u64): bool {
  return aHigh < bHigh || (aHigh == bHigh && aLow < bLow);
}

/** Bernoulli(r / d) for 128-bit 0 <= r < d: a uniform integer below d (masked words, rejected above d) compared with r. */
function bernoulliWide(rHigh: u64, rLow: u64, dHigh: u64, dLow: u64): bool {
  const highMask: u64 = dHigh == 0 ? 0 : 0xFFFFFFFFFFFFFFFF >>> clz(dHigh);
  const lowMask: u64 = dHigh == 0 ? (dLow == 0 ? 0 : 0xFFFFFFFFFFFFFFFF >>> clz(dLow)) : 0xFFFFFFFFFFFFFFFF;
  while (true) {
    const uHigh = dHigh == 0 ? 0 : nextWord() & highMask;
    const uLow = nextWord() & lowMask;
    if (exhausted) return false;
    if (lessWide(uHigh, uLow, dHigh, dLow)) return lessWide(uHigh, uLow, rHigh, rLow);
  }
}

/** Beyond this many whole units of gamma, Bernoulli(exp(-gamma)) is taken as 0 (an error below e^-1024). */
const GAMMA_CUTOFF: u64 = 1024;

/** Bernoulli(exp(-n/d)) for 128-bit n >= 0, d > 0 (Algorithm 1, both cases). */
function bernoulliExpWide(nHigh: u64, nLow: u64, dHigh: u64, dLow: u64): bool {
  // gamma = k + r/d: Bernoulli(exp(-1)) k times, then Bernoulli(exp(-r/d)).
  for (let k: u64 = 0; !lessWide(nHigh, nLow, dHigh, dLow); k++) {
    if (k == GAMMA_CUTOFF) return false;
    const borrow: u64 = nLow < dLow ? 1 : 0;
    nLow -= dLow;
    nHigh -= dHigh + borrow;
    if (!bernoulliExp(1, 1) || exhausted) return false;
  }
  let K: u64 = 1;
  while (!exhausted && bernoulliWide(nHigh, nLow, dHigh, dLow) && bernoulli(1, K)) K++;
  return (K & 1) == 1;
}

/** floor(sqrt(s)) for s < 2^53. */
function integerSqrt(s: u64): u64 {
  let r = <u64>Math.sqrt(<f64>s);
  while (r * r > s) r--;
  while ((r + 1) * (r + 1) <= s) r++;
  return r;
}

/** A draw of the discrete Gaussian P(y) proportional to exp(-y^2 / (2 s)), integer s >= 1; NaN if the pool ran dry. */
function discreteGaussian(s: u64): f64 {
  const t = integerSqrt(s) + 1;
  multiplyWide(s << 1, t * t); // the denominator 2 s t^2 (s < 2^40, t^2 < 2^41)
  const dHigh = wideHigh, dLow = wideLow;
  while (true) {
    const y = discreteLaplace(t);
    if (isNaN(y)) return NaN;
    const magnitude = <u64>Math.abs(y);
    if (magnitude > 0xFFFFFFFFFFFFFFFF / t) continue; // |Y| t overflows: gamma is astronomically large
    const yt = magnitude * t;
    const m = yt >= s ? yt - s : s - yt;
    multiplyWide(m, m);
    const accept = bernoulliExpWide(wideHigh, wideLow, dHigh, dLow);
    if (exhausted) return NaN;
    if (accept) return y;
  }
}

/**
 * As discreteLaplaceSamples, with discrete Gaussian noise of integer variance parameter
 * s = (perCoordinate ? SCALES[i] : scale), 0 meaning no noise, s below 2^40.
 */
export function discreteGaussianSamples(first: f64, start: i32, n: i32, perCoordinate: bool, scale: f64, add: bool, shared: f64): i32 {
  for (let i = start; i < n; i++) {
    const at = <usize>i << 3;
    const s = <u64>(perCoordinate ? load<f64>(SCALES + at) : scale);
    coordinate = <u64>first + <u64>i;
    drawn = 0;
    const y = s == 0 ? 0.0 : discreteGaussian(s);
    if (isNaN(y)) return i;
    store<f64>(VALUES + at, (add ? load<f64>(VALUES + at) : 0.0) + (y + shared));
  }
  return n;
}
