// Staircase noise (Geng & Viswanath, "The optimal noise-adding mechanism in differential
// privacy", IEEE Trans. Inf. Theory 62(2), 2016, Algorithm 1), one staircase per coordinate: step
// width Delta = SCALES[i], budget eps = EPSILONS[i], shape gamma = SHAPES[i] (docs/staircase.md):
//   X = S Delta (G + (B ? gamma + (1 - gamma) U : gamma U)),
// S a fair sign, G geometric with P(G = k) = (1 - b) b^k (b = e^-eps), U uniform on [0, 1), B a
// coin with P(B) = b (1 - gamma) / (gamma + b (1 - gamma)). G = floor(E / eps) for an Exp(1) draw E
// from the ziggurat, whose tail is unbounded, so no step is cut off. Coordinate i draws E (and its
// sign) from its primary word and U and B from its extra words: its noise depends only on the words.
import { beginCoordinate, nextWord } from "./random";
import { EPSILONS, RANDOM, SCALES, SHAPES, VALUES } from "../memory";
import { ADD, exponential, signed, standardExponential } from "./samplers";

/** 2^-53: a word's top 53 bits as a uniform on [0, 1). */
const TWO_M53: f64 = 1.1102230246251565e-16;

/**
 * VALUES[i] = (ADD ? VALUES[i] : 0) + X_i for coordinates [0, n) of the chunk starting at
 * coordinate `first` (no noise where Delta is 0).
 */
export function staircaseSamples(first: f64, n: i32, flags: i32): void {
  const add = (flags & ADD) != 0;
  const origin = <u64>first;
  let epsilon: f64 = NaN;
  let b: f64 = 0.0;
  for (let i = 0; i < n; i++) {
    const at = <usize>i << 3;
    const width = load<f64>(SCALES + at);
    let noise = 0.0;
    if (width > 0.0) {
      const e = load<f64>(EPSILONS + at);
      if (e != epsilon) {
        epsilon = e;
        b = Math.exp(-e);
      }
      const gamma = load<f64>(SHAPES + at);
      const word = load<u64>(RANDOM + at);
      const coordinate = origin + <u64>i;
      beginCoordinate(coordinate);
      const steps = Math.floor(standardExponential(word, coordinate) / epsilon);
      const u = <f64>(nextWord() >>> 11) * TWO_M53;
      const lower = b * (1.0 - gamma);
      const high = <f64>(nextWord() >>> 11) * TWO_M53 * (gamma + lower) < lower; // B: the step's lower-density part
      noise = signed(word, 0, width * (steps + (high ? gamma + (1.0 - gamma) * u : gamma * u)));
    }
    store<f64>(VALUES + at, (add ? load<f64>(VALUES + at) : 0.0) + noise);
  }
}

/** The largest dimension of the joint staircase (src/noise/staircase-norm.ts checks it first). */
const MOST_DIMENSIONS: i32 = 1000;
/**
 * The radius kernel's mixture: P(J = j) for j <= MOST_DIMENSIONS, and two rows of logarithms
 * that the recurrence reuses, log(gamma + j) and log(j mu).
 */
const MIXTURE: usize = memory.data((MOST_DIMENSIONS + 1) << 3, 16);
const LOG_STAY: usize = memory.data((MOST_DIMENSIONS + 1) << 3, 16);
const LOG_MOVE: usize = memory.data((MOST_DIMENSIONS + 1) << 3, 16);

// @ts-ignore: decorator
@inline function get(base: usize, j: i32): f64 {
  return load<f64>(base + (<usize>j << 3));
}
// @ts-ignore: decorator
@inline function set(base: usize, j: i32, x: f64): void {
  store<f64>(base + (<usize>j << 3), x);
}

/** The parameters MIXTURE holds, kept from call to call (only the radius kernel writes it): a mechanism's releases compute it once. */
let mixtureEpsilon: f64 = NaN;
let mixtureGamma: f64 = NaN;
let mixtureDimension: i32 = 0;

/** log(e^a + e^b), -Infinity for no mass. */
// @ts-ignore: decorator
@inline function logAdd(a: f64, b: f64): f64 {
  const top = Math.max(a, b);
  return top == -Infinity ? top : top + Math.log1p(Math.exp(-Math.abs(a - b)));
}

/**
 * MIXTURE[j] = P(J = j), j <= d, for the radius kernel: the law of the count of geometrics after
 * d size-biasing steps from gamma + G. A mixture is size-biased by weighting each of its laws by
 * its mean: from j geometrics (constant gamma + j, mean gamma + j + (1 + j) mu, mu = b / (1 - b)) a
 * step keeps j with weight gamma + j and moves to j + 1 with weight (1 + j) mu, so the weights W_j
 * of the counts follow W_j <- (gamma + j) W_j + j mu W_(j-1). They span far more than doubles
 * reach (mu^j, factorials), so the recurrence runs in logarithms.
 */
function mixture(d: i32, gamma: f64, logMean: f64): void {
  for (let j = 0; j <= d; j++) {
    set(LOG_STAY, j, Math.log(gamma + <f64>j));
    set(LOG_MOVE, j, Math.log(<f64>j) + logMean);
  }
  set(MIXTURE, 0, 0.0);
  for (let t = 0; t < d; t++) {
    set(MIXTURE, t + 1, -Infinity);
    for (let j = t + 1; j >= 1; j--) {
      set(MIXTURE, j, logAdd(get(LOG_STAY, j) + get(MIXTURE, j), get(LOG_MOVE, j) + get(MIXTURE, j - 1)));
    }
    set(MIXTURE, 0, get(LOG_STAY, 0) + get(MIXTURE, 0));
  }
  let top = -Infinity;
  for (let j = 0; j <= d; j++) top = Math.max(top, get(MIXTURE, j));
  let total = 0.0;
  for (let j = 0; j <= d; j++) {
    const p = Math.exp(get(MIXTURE, j) - top);
    set(MIXTURE, j, p);
    total += p;
  }
  for (let j = 0; j <= d; j++) set(MIXTURE, j, get(MIXTURE, j) / total);
}

/**
 * The radius R (in step widths) of the joint staircase in `dimension` d dimensions (docs/staircase.md,
 * "Sampling the joint staircase"): density proportional to b^phi(r) r^(d-1), with budget EPSILONS[i]
 * and shape SHAPES[i], into VALUES[i] for coordinates [0, n) of the chunk starting at `first`.
 * b^phi(r) = b^k for r < k + gamma and b^(k+1) from there, so it is the mixture over k of the
 * indicators of r < V_k = k + gamma with weights b^k (1 - b): R = V U^(1/d), with U uniform and
 * P(V = k + gamma) proportional to b^k (k + gamma)^d, the d-fold size-biased law of gamma + G, G
 * geometric. Size-biasing a sum of independent parts replaces one part, chosen in proportion to its
 * mean, by its size-biased self: a constant stays, and a geometric becomes 1 + G + G'. So V = gamma
 * + J + (J + 1 geometrics), with J from the mixture above: no cut-off anywhere. U comes from the
 * primary word, J's uniform and the geometrics (floor(E / eps), E from the unbounded exponential
 * ziggurat) from the coordinate's extra words.
 */
export function staircaseRadiusSamples(first: f64, n: i32, flags: i32, dimension: f64): void {
  const origin = <u64>first;
  const d = <i32>dimension;
  if (d < 1 || d > MOST_DIMENSIONS) unreachable();
  for (let i = 0; i < n; i++) {
    const at = <usize>i << 3;
    const epsilon = load<f64>(EPSILONS + at);
    const gamma = load<f64>(SHAPES + at);
    if (epsilon != mixtureEpsilon || gamma != mixtureGamma || d != mixtureDimension) {
      mixture(d, gamma, -Math.log(Math.expm1(epsilon))); // log mu, mu = 1 / (e^eps - 1)
      mixtureEpsilon = epsilon;
      mixtureGamma = gamma;
      mixtureDimension = d;
    }
    beginCoordinate(origin + <u64>i);
    let pick = <f64>(nextWord() >>> 11) * TWO_M53;
    let j = 0;
    while (j < d && pick >= get(MIXTURE, j)) {
      pick -= get(MIXTURE, j);
      j++;
    }
    let v = gamma + <f64>j;
    for (let k = 0; k <= j; k++) v += Math.floor(exponential() / epsilon);
    // U in (0, 1]: the top 53 bits of the primary word, plus one unit.
    const u = <f64>((load<u64>(RANDOM + at) >>> 11) + 1) * TWO_M53;
    store<f64>(VALUES + at, v * Math.exp(Math.log(u) / dimension));
  }
}
