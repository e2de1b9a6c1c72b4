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
import { ADD, signed, standardExponential } from "./samplers";

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
