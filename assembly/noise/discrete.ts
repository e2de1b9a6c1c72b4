// Exact discrete Laplace and discrete Gaussian noise for grid mode (docs/noise.md, "Exact discrete
// noise"). Discrete Gaussian noise at variance parameters in the cells' range (cells.ts: s >= 64
// grid steps, where grid mode's default grids put them) is drawn by cell trials, about one random
// word a draw, two at a time in the SIMD build (cellRounds); smaller s by the sampler below, one
// by one. Discrete Laplace noise by the sampler below, two at a time where the SIMD build is sure
// (laplacePairs).
//
// Discrete Laplace, P(y) proportional to exp(-|y|/t), t > 0: a sign bit s and X = B H + L, where
// H = floor(-(t/B) ln U) for a uniform U (so P(H >= h) = exp(-h B/t)), and L in [0, B) has
// P(L = l) proportional to exp(-l/t), drawn as a uniform l accepted when a uniform V < exp(-l/t).
// B = 2^b keeps t/B in [16, 32), where a double resolves H finely. (s, X) = (1, 0) is redrawn.
// Discrete Gaussian, P(y) proportional to exp(-y^2/(2 s)): Canonne, Kamath & Steinke (2020),
// Algorithm 3: Y ~ discrete Laplace(T), T = floor(sqrt s) + 1, accepted when a uniform
// V < exp(-(|Y| - s/T)^2 / (2 s)).
//
// Every decision compares a uniform (U, V: the bits of random words, extended by further words
// as far as needed) with exp(-x) for a rational x. Here it is decided in double precision when the
// uniform's known bits lie farther from the threshold than a proven bound on the rounding error
// (MARGIN); otherwise the draw is handed, in its current state, to the exact path (src/noise/discrete-exact.ts,
// rational arithmetic), which makes the same decisions from the same words. Both are therefore
// one function of the random words: the fast path only skips work. The hand-over happens for
// about one draw in 2^28; `exactOnly` forces it for every draw (tests).
import { beginCoordinate, extraWordsInto, nextWord, replayCoordinate } from "./random";
import { BATCH, EPSILONS, EXACT, HOPS, PAIR_BATCH, PAIR_BYTES, PAIRS, PENDING, PENDING_NEXT, RANDOM, SCALES, SHAPES, SLOW, STASH, VALUES } from "../memory";
import { ADD, exactDouble, PER_COORDINATE } from "./samplers";
import { LANE_ZERO, minusLogUniform, tabulateLogUniform } from "./log-uniform";
import { laplaceMagnitudes, LOW_63, MARGIN, releasedPair, signed } from "./laplace-lanes";
import { cellDraw, entryOf, factorOf, MOST_HOPS, magnitudeOf, TAIL, tableOf, tabulateCells, warmTables, widthBits } from "./cells";
import {
  acceptanceLanes, acceptedLanes, entryLanes, factorLanes, inCells, lanes, magnitudeLanes, offsetAndUniform, rejectedLanes, releasableLanes, signedLanes, tableLanes,
  unitLanes, widthLanes,
} from "./cell-lanes";

/**
 * Finishes the current coordinate exactly from the state in EXACT (stage: one of the constants
 * below) and returns its output, the value plus the noise rounded to a double.
 */
@external("env", "exactDraw")
declare function exactDraw(stage: i32): f64;

/** Stages at which a draw can be handed over (the layout of EXACT is in memory.ts). */
const LAPLACE_TRIAL: i32 = 1;
const LAPLACE_REMAINDER: i32 = 2;
const GAUSSIAN_TRIAL: i32 = 3;
const GAUSSIAN_REMAINDER: i32 = 4;
const GAUSSIAN_ACCEPT: i32 = 5;

/** 2^-50. */
const TWO_M50: f64 = 8.881784197001252e-16;
/** exp(-x) is bounded by 2^-1000 beyond this x, where exp's relative error is no longer small. */
const X_TINY: f64 = 700.0;

let exactOnly = false;

/** Sends every draw to the exact path (tests: its decisions must equal the fast path's). */
export function setExactOnly(on: bool): void {
  exactOnly = on;
}

// The draw in progress: the value the noise is added to, and the discrete Laplace parameters.
let value: f64 = 0.0;
let laplaceT: f64 = 0.0;
let scaledT: f64 = 0.0; // t / B
let blockBits: i32 = 0; // b, B = 2^b
let block: f64 = 1.0; // B
/** Set when the exact path has finished the coordinate; its output is `finishedOutput`. */
let finished = false;
let finishedOutput: f64 = 0.0;

/** Sets t, and b = max(0, floor(log2 t) - 4) so that t / B is in [16, 32) when B > 1. */
// @ts-ignore: decorator
@inline function setLaplace(t: f64): void {
  laplaceT = t;
  blockBits = max(0, <i32>((reinterpret<u64>(t) >>> 52) & 0x7FF) - 1027);
  block = reinterpret<f64>(<u64>(1023 + blockBits) << 52);
  scaledT = t * reinterpret<f64>(<u64>(1023 - blockBits) << 52); // t / B, exactly
}

/** Writes the state and lets the exact path finish the coordinate. */
function handOver(stage: i32, word: u64, negative: u64, h: f64, y: f64, s: f64): void {
  store<f64>(EXACT, stage >= GAUSSIAN_TRIAL ? s : laplaceT);
  store<f64>(EXACT, laplaceT, 8);
  store<u64>(EXACT, word, 16);
  store<f64>(EXACT, <f64>negative, 24);
  store<f64>(EXACT, h, 32);
  store<f64>(EXACT, y, 40);
  store<f64>(EXACT, value, 48);
  finishedOutput = exactDraw(stage);
  finished = true;
}

/**
 * H = floor(-(t/B) ln U) for U in [u, u + 1) 2^-63, or -1 when a double cannot be sure. One
 * logarithm, at u (minusLogUniform, within 2^-46), bounds the interval's image: y(U) = -(t/B) ln U
 * falls by (t/B) ln(1 + 1/u) <= (t/B) / u <= (t/B) 2^(k - 63) across it (k the leading zeros of
 * u, so u >= 2^(63 - k)), so H is sure when [y(u) - (t/B) 2^(k - 63), y(u)], widened by MARGIN,
 * holds no integer but 0 (which U < 1 never reaches). Every u takes the same steps, so a small U
 * (large noise) costs no extra logarithm and the time of a draw does not tell its size (u = 0,
 * where the logarithm is infinite, goes to the exact path).
 */
// @ts-ignore: decorator
@inline function inversion(u: u64): f64 {
  if (u == 0) return -1.0;
  const y = scaledT * minusLogUniform(u);
  const width = scaledT * reinterpret<f64>(<u64>(1023 - 63 + <i32>clz(u)) << 52); // (t/B) 2^(k - 63), exact
  const h = Math.floor(Math.max(y - width - MARGIN, 0.0));
  return Math.floor(y + MARGIN) == h ? h : -1.0;
}

/**
 * Whether V < exp(-x) for V in [v, v + 1) 2^-bits (bits <= 64), given x' with |x' - x| <= error:
 * 1 (yes), 0 (no) or -1 (too close to tell in double precision). V's top 53 bits decide, in exact
 * double arithmetic (a wider interval can only leave more to the exact path, never decide wrongly).
 */
function belowExp(v: u64, bits: i32, x: f64, error: f64): i32 {
  if (x - error > X_TINY) return v >= 1 ? 0 : -1; // exp(-x) < 2^-1000 <= V unless v = 0
  const eta = 2.0 * (error + TWO_M50); // exp's error (< 1 ulp) and x's, with room
  if (eta > MARGIN) return -1;
  const drop = max(0, bits - 53);
  const top = <f64><i64>(v >>> <u64>drop); // exact: below 2^53
  const c = Math.exp(-x) * reinterpret<f64>(<u64>(1023 + bits - drop) << 52); // in units of 2^(drop - bits)
  if (top + 1.0 <= c * (1.0 - eta)) return 1; // V < (top + 1) 2^(drop - bits) <= exp(-x)
  if (top >= c * (1.0 + eta)) return 0; // V >= top 2^(drop - bits) >= exp(-x)
  return -1;
}

/**
 * A discrete Laplace draw with the parameters of setLaplace, starting from the trial word `word`;
 * the stages name where the exact path takes over (for the Laplace noise itself, or as the
 * Gaussian's proposal). Returns the noise, or 0 with `finished` set.
 */
function laplace(word: u64, trialStage: i32, s: f64): f64 {
  let w = word;
  const remainderStage = trialStage + 1;
  while (true) {
    const negative = w >>> 63;
    const h = inversion(w & LOW_63);
    if (h < 0.0) {
      handOver(trialStage, w, 0, 0.0, 0.0, s);
      return 0.0;
    }
    let x = h * block;
    if (blockBits > 0) {
      const shift = <u64>(64 - blockBits);
      const mask = (<u64>1 << shift) - 1;
      let lw = nextWord();
      while (true) {
        const l = exactDouble(lw >>> shift);
        const lx = l / laplaceT;
        const accept = belowExp(lw & mask, 64 - blockBits, lx, lx * TWO_M50);
        if (accept < 0) {
          handOver(remainderStage, lw, negative, h, 0.0, s);
          return 0.0;
        }
        if (accept > 0) {
          x += l;
          break;
        }
        lw = nextWord();
      }
    }
    // (negative, 0) is redrawn; the sign itself, a coin flip, is applied without a branch.
    if ((<i32>(negative != 0) & <i32>(x == 0.0)) == 0) return reinterpret<f64>(reinterpret<u64>(x) | (negative << 63));
    w = nextWord();
  }
}

// The discrete Gaussian of the draw in progress: s, s/T and 1/(2s), set once per variance.
let variance: f64 = 0.0;
let shift: f64 = 0.0;
let halfInverse: f64 = 0.0;

/** Sets s, its proposal's scale T = floor(sqrt s) + 1, s/T and 1/(2s). */
// @ts-ignore: decorator
@inline function setGaussian(s: f64): void {
  variance = s;
  setLaplace(Math.floor(Math.sqrt(s)) + 1.0);
  shift = s / laplaceT;
  halfInverse = 0.5 / s;
}

/** A discrete Gaussian draw with the parameters of setGaussian, from the trial word `word`. Returns the noise, or 0 with `finished` set. */
function gaussian(word: u64): f64 {
  let w = word;
  while (true) {
    const y = laplace(w, GAUSSIAN_TRIAL, variance);
    if (finished) return 0.0;
    // gamma = (|y| - s/T)^2 / (2 s); d carries an error of at most 2^-52 (s/T + |d|).
    const d = Math.abs(y) - shift;
    const dError = (shift + Math.abs(d)) * TWO_M50;
    const gamma = d * d * halfInverse;
    const error = 4.0 * ((Math.abs(d) * dError + dError * dError) * halfInverse + gamma * TWO_M50);
    const aw = nextWord();
    const accept = belowExp(aw, 64, gamma, error);
    if (accept < 0) {
      handOver(GAUSSIAN_ACCEPT, aw, 0, 0.0, y, variance);
      return 0.0;
    }
    if (accept > 0) return y;
    w = nextWord();
  }
}

/**
 * c ? a : b for doubles, by masks on their bits: V8 (Node 20) turns a floating-point select into a
 * branch, which guesses wrong as often as a random condition goes either way, and the optimiser
 * folds an integer select of reinterpreted doubles back into one.
 */
// @ts-ignore: decorator
@inline function pick(a: f64, b: f64, c: bool): f64 {
  const mask = <u64>0 - <u64>c;
  return reinterpret<f64>((reinterpret<u64>(a) & mask) | (reinterpret<u64>(b) & ~mask));
}

/** x >= 0 with the sign of `word` (its top bit): -0 for a negative 0, which adds as 0. */
// @ts-ignore: decorator
@inline function signedBy(word: u64, x: f64): f64 {
  return reinterpret<f64>(reinterpret<u64>(x) | (word & 0x8000000000000000));
}

/** floor(x + 1/2), exactly: the test x - floor(x) >= 1/2 is exact for every double (docs/mechanisms.md, "Floating-point safety"). */
// @ts-ignore: decorator
@inline export function roundHalfUp(x: f64): f64 {
  const f = Math.floor(x);
  return pick(f + 1.0, f, x - f >= 0.5);
}

/**
 * The value of coordinate i on the grid: VALUES[i] / grid rounded half up (ADD), else 0; then the
 * noise of `noise` added and the sum scaled back by the grid. The sum of the two integers is
 * rounded to a double only once, so the output is a function of the exact integer release.
 */
// @ts-ignore: decorator
@inline function gridValue(at: usize, add: bool, inverseGrid: f64): f64 {
  return gridValueOf(load<f64>(VALUES + at), add, inverseGrid);
}

/** gridValue of a query read already. */
// @ts-ignore: decorator
@inline function gridValueOf(query: f64, add: bool, inverseGrid: f64): f64 {
  // Exact: the grid is a power of two. + 0.0 makes -0 +0, so a -0 and a 0 query give the same output.
  return add ? roundHalfUp(query * inverseGrid) + 0.0 : 0.0;
}

/**
 * Brings a chunk's values (with ADD) and scales (with PER_COORDINATE) into VALUES and SCALES where
 * the caller's vectors hold them elsewhere in the module's memory: one copy inside the module,
 * each value read once (the rounds after the first read VALUES, never the caller's vector again).
 */
// @ts-ignore: decorator
@inline function readChunk(n: i32, flags: i32, from: usize, scales: usize): void {
  if ((flags & ADD) != 0 && from != VALUES) memory.copy(VALUES, from, <usize>n << 3);
  if ((flags & PER_COORDINATE) != 0 && scales != SCALES) memory.copy(SCALES, scales, <usize>n << 3);
}

/** Hands a chunk's outputs, all finished, from VALUES to `into` (a caller's vector) when it is elsewhere. */
// @ts-ignore: decorator
@inline function writeChunk(n: i32, into: usize): void {
  if (into != VALUES) memory.copy(into, VALUES, <usize>n << 3);
}

/**
 * For coordinates [0, n) of the chunk starting at coordinate `first`: into[i] = grid *
 * (round(from[i] / grid) + Y_i) with ADD, else grid * Y_i, where Y_i is discrete Laplace noise of
 * scale t = (PER_COORDINATE ? scales[i] : scale) in grid units (0: no noise); `into`, `from` and
 * `scales` are VALUES and SCALES or a caller's vectors (readChunk). Every acceptance
 * computes its exp, so no draw takes a shortcut whose use depends on its noise. The SIMD build
 * first draws two coordinates at a time where it is sure (laplacePairs), then the others one by
 * one from the same words, BATCH coordinates at a time.
 */
export function discreteLaplaceSamples(first: f64, n: i32, flags: i32, scale: f64, grid: f64, into: usize, from: usize, scales: usize): void {
  readChunk(n, flags, from, scales);
  laplaceChunk(first, n, flags, scale, grid);
  writeChunk(n, into);
}

/** discreteLaplaceSamples on the chunk in VALUES and SCALES. */
function laplaceChunk(first: f64, n: i32, flags: i32, scale: f64, grid: f64): void {
  tabulateLogUniform();
  const perCoordinate = (flags & PER_COORDINATE) != 0;
  const add = (flags & ADD) != 0;
  const inverseGrid = 1.0 / grid;
  laplaceT = NaN; // parameters cached from an earlier call (of any kernel) are never reused
  if (!perCoordinate && scale > 0.0) setLaplace(scale);
  if (!ASC_FEATURE_SIMD || exactOnly) {
    for (let i = 0; i < n; i++) {
      beginCoordinate(<u64>first + <u64>i);
      drawOne(false, i, perCoordinate ? load<f64>(SCALES + (<usize>i << 3)) : scale, load<u64>(RANDOM + (<usize>i << 3)), 0, add, inverseGrid, grid);
    }
    return;
  }
  for (let b = 0; b < n; b += BATCH) {
    const m = min(BATCH, n - b);
    extraWordsInto(STASH, first + <f64>b, 0, m, 0);
    const count = laplacePairs(b, m, perCoordinate, add, scale, inverseGrid, grid);
    for (let p = 0; p < count; p++) {
      const i = load<i32>(PENDING + (<usize>p << 2));
      replayCoordinate(<u64>first + <u64>i, 0, STASH + (<usize>(i - b) << 3), 1); // its L word, read ahead
      drawOne(false, i, perCoordinate ? load<f64>(SCALES + (<usize>i << 3)) : scale, load<u64>(RANDOM + (<usize>i << 3)), 0, add, inverseGrid, grid);
    }
  }
}

/**
 * The discrete Laplace draws of coordinates [b, b + m) that end at their first trial for sure,
 * two at a time (laplaceMagnitudes; L's word of coordinate i is in STASH at slot i - b): writes
 * their outputs, lists the other coordinates in PENDING, and returns how many it listed. No
 * branch depends on a draw.
 */
function laplacePairs(b: i32, m: i32, perCoordinate: bool, add: bool, scale: f64, inverseGrid: f64, grid: f64): i32 {
  const scales = f64x2.splat(scale);
  const inverseGrids = f64x2.splat(inverseGrid);
  const grids = f64x2.splat(grid);
  let pending = 0;
  const end = b + m;
  // The noise of every pair first, in a loop of its own, so that the long chains of operations of
  // many pairs (a logarithm, then an exp) overlap; then the outputs.
  for (let i = b; i + 1 < end; i += 2) {
    const at = <usize>i << 3;
    const t = perCoordinate ? v128.load(SCALES + at) : scales;
    const w = v128.load(RANDOM + at);
    v128.store(PAIRS + (<usize>(i - b) << 3), signed(laplaceMagnitudes(t, w, v128.load(STASH + (<usize>(i - b) << 3))), w));
  }
  for (let i = b; i + 1 < end; i += 2) {
    const at = <usize>i << 3;
    const t = perCoordinate ? v128.load(SCALES + at) : scales;
    const noise = v128.load(PAIRS + (<usize>(i - b) << 3));
    const query = v128.load(VALUES + at);
    const noisy = f64x2.gt(t, v128.load(LANE_ZERO));
    const out = releasedPair(query, noise, noisy, add, inverseGrids, grids);
    const missed = v128.andnot(noisy, f64x2.eq(noise, noise)); // noise drawn, and not here
    v128.store(VALUES + at, v128.bitselect(query, out, missed));
    // Listed without a branch (one that waits on the lanes' chain of operations costs that chain
    // whenever the processor guesses it wrong): each slot is written, and counted if missed.
    const lanes = i64x2.bitmask(missed);
    store<i32>(PENDING + (<usize>pending << 2), i);
    pending += lanes & 1;
    store<i32>(PENDING + (<usize>pending << 2), i + 1);
    pending += lanes >> 1;
  }
  return m & 1 ? listed(PENDING, pending, end - 1) : pending;
}

/**
 * As discreteLaplaceSamples, with discrete Gaussian noise of variance parameter
 * s = (PER_COORDINATE ? scales[i] : scale) in grid units squared (0: no noise). s in the cells'
 * range is drawn by cell trials (cells.ts), in the SIMD build two at a time in rounds (cellRounds),
 * BATCH coordinates at a time; the scalar build draws every coordinate one by one, from the same
 * words, and smaller s by the sampler above.
 */
export function discreteGaussianSamples(first: f64, n: i32, flags: i32, scale: f64, grid: f64, into: usize, from: usize, scales: usize): void {
  readChunk(n, flags, from, scales);
  gaussianChunk(first, n, flags, scale, grid);
  writeChunk(n, into);
}

/** discreteGaussianSamples on the chunk in VALUES and SCALES. */
function gaussianChunk(first: f64, n: i32, flags: i32, scale: f64, grid: f64): void {
  tabulateLogUniform();
  tabulateCells();
  const perCoordinate = (flags & PER_COORDINATE) != 0;
  const add = (flags & ADD) != 0;
  const inverseGrid = 1.0 / grid;
  laplaceT = NaN; // parameters cached from an earlier call (of any kernel) are never reused
  variance = NaN;
  warmTables(n, perCoordinate, scale);
  if (ASC_FEATURE_SIMD && !exactOnly) {
    for (let b = 0; b < n; b += BATCH) cellRounds(first, b, min(BATCH, n - b), perCoordinate, add, scale, inverseGrid, grid);
    return;
  }
  for (let i = 0; i < n; i++) {
    const at = <usize>i << 3;
    beginCoordinate(<u64>first + <u64>i);
    drawOne(true, i, perCoordinate ? load<f64>(SCALES + at) : scale, load<u64>(RANDOM + at), 0, add, inverseGrid, grid);
  }
}

/**
 * Draws coordinate i's discrete Gaussian (`gaussianNoise`: cell trials in their range) or discrete
 * Laplace noise one by one (its extra words set up by the caller) from the trial word `word`, after
 * `hops` steps outwards (cells only), and writes its output to VALUES[i].
 */
function drawOne(gaussianNoise: bool, i: i32, scale: f64, word: u64, hops: i32, add: bool, inverseGrid: f64, grid: f64): void {
  const at = <usize>i << 3;
  value = gridValue(at, add, inverseGrid);
  let out = value;
  if (scale > 0.0) {
    const w = gaussianNoise ? widthBits(scale) : -1;
    if (w >= 0) out = cellDraw(scale, w, word, hops, value, exactOnly);
    else {
      if (gaussianNoise) {
        if (scale != variance) setGaussian(scale);
      } else if (scale != laplaceT) setLaplace(scale);
      finished = false;
      if (exactOnly) handOver(gaussianNoise ? GAUSSIAN_TRIAL : LAPLACE_TRIAL, word, 0, 0.0, 0.0, gaussianNoise ? scale : 0.0);
      else out = value + (gaussianNoise ? gaussian(word) : laplace(word, LAPLACE_TRIAL, 0.0));
      if (finished) out = finishedOutput;
    }
  }
  store<f64>(VALUES + at, out * grid);
}

/** Appends coordinate i to the list at `list`, which held `count`; returns the new count. */
// @ts-ignore: decorator
@inline function listed(list: usize, count: i32, i: i32): i32 {
  store<i32>(list + (<usize>count << 2), i);
  return count + 1;
}

/** When this many coordinates or fewer are left, cellRounds finishes them one by one. */
const LAST_FEW: i32 = 4;

/**
 * The draws of coordinates [b, b + m), their cell trials taken two at a time in rounds
 * (cellRound): round 1 on every coordinate, from its primary word; each later one on those the
 * last sent round again (rejected, or stepped outwards), from their next extra word, which goes
 * to RANDOM's slot b + j for slot j. Once LAST_FEW or fewer are left, they are drawn one by one.
 * Every coordinate reads the words it would read alone.
 */
function cellRounds(first: f64, b: i32, m: i32, perCoordinate: bool, add: bool, scale: f64, inverseGrid: f64, grid: f64): void {
  let list = PENDING;
  let next = PENDING_NEXT;
  let left = cellRound(first, b, m, 0, list, 0, perCoordinate, add, scale, inverseGrid, grid);
  let before = 0; // the extra words each coordinate left has read
  while (left > LAST_FEW) {
    extraWordsInto(RANDOM + (<usize>b << 3), first, list, left, before);
    before++;
    left = cellRound(first, b, left, list, next, before, perCoordinate, add, scale, inverseGrid, grid);
    const kept = list;
    list = next;
    next = kept;
  }
  for (let j = 0; j < left; j++) {
    const i = load<i32>(list + (<usize>j << 2));
    replayCoordinate(<u64>first + <u64>i, before, 0, 0);
    drawOne(true, i, perCoordinate ? load<f64>(SCALES + (<usize>i << 3)) : scale, nextWord(), load<i32>(HOPS + (<usize>(i - b) << 2)), add, inverseGrid, grid);
  }
}

/**
 * One round of cell trials on m slots, two at a time: slot j is coordinate list[j] (round 1, list
 * 0: b + j), its trial word at RANDOM + 8 (b + j), after `taken` extra words (its hops in HOPS).
 * Each lane picks its cell here, and the pair's acceptances are decided together (cell-lanes.ts).
 * Releases the coordinates decided for sure, lists at `next` those to try again (rejected, with
 * 0 hops, or stepped outwards, with one more) and returns how many, and draws the others one by
 * one from the same word: scales outside the cells' range, undecided acceptances, too many hops,
 * an odd slot out.
 */
function cellRound(first: f64, b: i32, m: i32, list: usize, next: usize, taken: i32, perCoordinate: bool, add: bool, scale: f64, inverseGrid: f64, grid: f64): i32 {
  if (list == 0) {
    return perCoordinate
      ? cellPairs<Yes, No>(first, b, m, list, next, taken, add, scale, inverseGrid, grid)
      : cellPairs<No, No>(first, b, m, list, next, taken, add, scale, inverseGrid, grid);
  }
  return perCoordinate
    ? cellPairs<Yes, Yes>(first, b, m, list, next, taken, add, scale, inverseGrid, grid)
    : cellPairs<No, Yes>(first, b, m, list, next, taken, add, scale, inverseGrid, grid);
}

/** Flags as type arguments (Yes or No), so that each combination is compiled without a branch on them (as in samplers.ts). */
type Yes = i32;
type No = f64;

/**
 * cellRound with one scale per coordinate (Yes) or one for all (No), in round 1 (Listed: No) or a
 * later one. Each pair's trials are picked and decided in lanes (cell-lanes.ts), with no branch
 * on a decision; a pair with a lane not released is listed, and its lanes are ended after the
 * loop (laneEnd). A scale outside the cells' range computes with w = 0 and table 0, and its lane
 * is never released here.
 */
function cellPairs<PerCoordinate, Listed>(first: f64, b: i32, m: i32, list: usize, next: usize, taken: i32, add: bool, scale: f64, inverseGrid: f64, grid: f64): i32 {
  const perCoordinate = isInteger<PerCoordinate>();
  const listed = isInteger<Listed>(); // a later round: slots from `list`, with hops
  const scales = f64x2.splat(scale);
  const half = f64x2.splat(0.5);
  // A uniform scale's parameters, once.
  const uniformCells = inCells(scales);
  const uniformW = widthLanes(scales, uniformCells);
  const uniformTable = tableLanes(scales, uniformW, uniformCells);
  const uniformC = f64x2.div(half, scales);
  const uniformUnit = unitLanes(uniformW);
  const inverseGrids = f64x2.splat(inverseGrid);
  const grids = f64x2.splat(grid);
  const zero = v128.load(LANE_ZERO);
  let again = 0;
  let others = 0;
  // The pairs PAIR_BATCH at a time (what PAIRS holds), each through three passes.
  for (let from = 0; from + 1 < m; from += PAIR_BATCH << 1) {
    const to = min(m & ~1, from + (PAIR_BATCH << 1));
    // Pass 1, each pair's trials: the exponent x and factor of their acceptances, the magnitudes,
    // which lanes a sure acceptance would release, and V's interval [low, high).
    for (let j = from, p = PAIRS; j < to; j += 2, p += PAIR_BYTES) {
      const i0 = listed ? load<i32>(list + (<usize>j << 2)) : b + j;
      const i1 = listed ? load<i32>(list + (<usize>j << 2), 4) : b + j + 1;
      const words = v128.load(RANDOM + (<usize>(b + j) << 3));
      const s = !perCoordinate ? scales : listed ? lanes(load<f64>(SCALES + (<usize>i0 << 3)), load<f64>(SCALES + (<usize>i1 << 3))) : v128.load(SCALES + (<usize>i0 << 3));
      const cells = perCoordinate ? inCells(s) : uniformCells;
      const w = perCoordinate ? widthLanes(s, cells) : uniformW;
      const table = perCoordinate ? tableLanes(s, w, cells) : uniformTable;
      const entry = entryLanes(table, words);
      const hops0 = listed ? load<i32>(HOPS + (<usize>(i0 - b) << 2)) : 0;
      const hops1 = listed ? load<i32>(HOPS + (<usize>(i1 - b) << 2)) : 0;
      const factor = listed
        ? lanes(
            factorOf(<i32>i64x2.extract_lane(table, 0), <i32>i64x2.extract_lane(entry, 0), hops0),
            factorOf(<i32>i64x2.extract_lane(table, 1), <i32>i64x2.extract_lane(entry, 1), hops1),
          )
        : factorLanes(table, entry);
      // hops TAIL + entry (TAIL = 127 = 2^7 - 1)
      const hops = i64x2.replace_lane(i64x2.splat(<i64>hops0), 1, <i64>hops1);
      const cell = listed ? i64x2.add(i64x2.sub(i64x2.shl(hops, 7), hops), entry) : entry;
      const unit = perCoordinate ? unitLanes(w) : uniformUnit;
      const t = offsetAndUniform(words, unit);
      const offset = f64x2.floor(t);
      const low = f64x2.sub(t, offset);
      v128.store(p, low, 64);
      v128.store(p, f64x2.add(low, unit), 80);
      const n = magnitudeLanes(cell, w, offset);
      v128.store(p, f64x2.mul(f64x2.mul(n, n), perCoordinate ? f64x2.div(half, s) : uniformC));
      v128.store(p, factor, 16);
      v128.store(p, n, 32);
      v128.store(p, releasableLanes(cells, entry, words, n), 48);
    }
    // Pass 2, the acceptances a = exp(-x) factor: a short loop, so that the long chains of
    // operations of many pairs' exps overlap (docs/noise.md, "Cells").
    for (let p = PAIRS, end = PAIRS + (<usize>((to - from) >> 1) * PAIR_BYTES); p < end; p += PAIR_BYTES) {
      v128.store(p, acceptanceLanes(v128.load(p), v128.load(p, 16)));
    }
    // Pass 3, the decisions and the outputs.
    for (let j = from, p = PAIRS; j < to; j += 2, p += PAIR_BYTES) {
      const i0 = listed ? load<i32>(list + (<usize>j << 2)) : b + j;
      const i1 = listed ? load<i32>(list + (<usize>j << 2), 4) : b + j + 1;
      const at0 = <usize>i0 << 3;
      const at1 = <usize>i1 << 3;
      const words = v128.load(RANDOM + (<usize>(b + j) << 3));
      const s = !perCoordinate ? scales : listed ? lanes(load<f64>(SCALES + at0), load<f64>(SCALES + at1)) : v128.load(SCALES + at0);
      const query = listed ? lanes(load<f64>(VALUES + at0), load<f64>(VALUES + at1)) : v128.load(VALUES + at0);
      const a = v128.load(p);
      const n = v128.load(p, 32);
      const accepted = acceptedLanes(v128.load(p, 80), a);
      const rejected = rejectedLanes(v128.load(p, 64), a);
      // Released: accepted, a cell entry (not the tail), not (negative, 0); or no noise at all.
      const noisy = f64x2.gt(s, zero);
      const released = v128.or(v128.not(noisy), v128.and(v128.load(p, 48), accepted));
      // Without a branch (one that waits on the exp's chain costs that chain whenever it guesses
      // wrong): both outputs are stored, a lane not released keeping its query for a later round,
      // and the pair is listed for laneEnd unless both lanes are released.
      const out = v128.bitselect(releasedPair(query, signedLanes(n, words), noisy, add, inverseGrids, grids), query, released);
      if (listed) {
        store<f64>(VALUES + at0, f64x2.extract_lane(out, 0));
        store<f64>(VALUES + at1, f64x2.extract_lane(out, 1));
      } else {
        v128.store(VALUES + at0, out);
      }
      const decided = i64x2.bitmask(accepted) | (i64x2.bitmask(rejected) << 2);
      const releasedBits = i64x2.bitmask(released);
      store<i32>(SLOW + (<usize>others << 2), j | (decided << 16) | (releasedBits << 20));
      others += <i32>(releasedBits != 3);
    }
  }
  // The lanes not released of those pairs, one by one (no call in the loop above, whose values
  // would all have to wait in memory across it).
  for (let k = 0; k < others; k++) {
    const entry = load<i32>(SLOW + (<usize>k << 2));
    const j = entry & 0xFFFF;
    for (let lane = 0; lane < 2; lane++) {
      if ((entry >> (20 + lane)) & 1) continue;
      const i = listed ? load<i32>(list + (<usize>(j + lane) << 2)) : b + j + lane;
      const word = load<u64>(RANDOM + (<usize>(b + j + lane) << 3));
      const hops = listed ? load<i32>(HOPS + (<usize>(i - b) << 2)) : 0;
      const s = perCoordinate ? load<f64>(SCALES + (<usize>i << 3)) : scale;
      const w = s > 0.0 ? widthBits(s) : -1;
      const cellEntry = w >= 0 ? entryOf(tableOf(s, w), word) : 0;
      const n = w >= 0 ? magnitudeOf(word, cellEntry, hops, w) : 0.0;
      again = laneEnd(first, b, i, s, w, cellEntry, n, (entry >> 16) >> lane, word, hops, taken, next, again, add, inverseGrid, grid);
    }
  }
  if (m & 1) {
    const i = listed ? load<i32>(list + (<usize>(m - 1) << 2)) : b + m - 1;
    replayCoordinate(<u64>first + <u64>i, taken, 0, 0);
    drawOne(true, i, perCoordinate ? load<f64>(SCALES + (<usize>i << 3)) : scale, load<u64>(RANDOM + (<usize>(b + m - 1) << 3)), listed ? load<i32>(HOPS + (<usize>(i - b) << 2)) : 0, add, inverseGrid, grid);
  }
  return again;
}

/**
 * Ends coordinate i of a lane (cellPairs) that is not simply released: w its width bits (-1:
 * outside the cells' range), the trial's entry and magnitude n, `decided` the pair's bitmask
 * shifted to the lane (bit 0 accepted, bit 2 rejected). Returns the count of the `next` list.
 */
function laneEnd(first: f64, b: i32, i: i32, s: f64, w: i32, entry: i32, n: f64, decided: i32, word: u64, hops: i32, taken: i32, next: usize, again: i32, add: bool, inverseGrid: f64, grid: f64): i32 {
  const at = <usize>i << 3;
  if (!(s > 0.0)) {
    store<f64>(VALUES + at, gridValue(at, add, inverseGrid) * grid);
    return again;
  }
  if (w >= 0) {
    const negative = word >>> 63;
    if (entry == TAIL) {
      if (hops + 1 < MOST_HOPS) {
        store<i32>(HOPS + (<usize>(i - b) << 2), hops + 1);
        return listed(next, again, i);
      }
    } else if ((negative != 0 && n == 0.0) || (decided & 4) != 0) {
      store<i32>(HOPS + (<usize>(i - b) << 2), 0);
      return listed(next, again, i);
    } else if ((decided & 1) != 0) {
      store<f64>(VALUES + at, (gridValue(at, add, inverseGrid) + (negative != 0 ? -n : n)) * grid);
      return again;
    }
  }
  replayCoordinate(<u64>first + <u64>i, taken, 0, 0);
  drawOne(true, i, s, word, hops, add, inverseGrid, grid);
  return again;
}

/**
 * Discrete Laplace noise of the scale set by setLaplace, drawn inside another sampler: the exact
 * path, when it takes over, finishes this draw alone (the value slot 0 makes its answer the noise).
 */
function laplaceInside(word: u64): f64 {
  const kept = value;
  value = 0.0;
  finished = false;
  let y = 0.0;
  if (exactOnly) handOver(LAPLACE_TRIAL, word, 0, 0.0, 0.0, 0.0);
  else y = laplace(word, LAPLACE_TRIAL, 0.0);
  if (finished) y = finishedOutput;
  finished = false;
  value = kept;
  return y;
}

const LOW_32: u64 = 0xFFFFFFFF;

/** The high 64 bits of a 128-bit product. */
// @ts-ignore: decorator
@inline function multiplyHigh(a: u64, b: u64): u64 {
  const aLow = a & LOW_32;
  const aHigh = a >>> 32;
  const bLow = b & LOW_32;
  const bHigh = b >>> 32;
  const middle = aHigh * bLow + ((aLow * bLow) >>> 32);
  return aHigh * bHigh + (middle >>> 32) + ((aLow * bHigh + (middle & LOW_32)) >>> 32);
}

/** A uniform integer below w >= 1 from the coordinate's extra words (Lemire 2019: the product's high half, redrawn when its low half falls below 2^64 mod w). */
function uniformBelow(w: u64): u64 {
  while (true) {
    const x = nextWord();
    const low = x * w;
    if (low >= w || low >= (<u64>0 - w) % w) return multiplyHigh(x, w);
  }
}

/**
 * Discrete staircase noise (docs/staircase.md, "The discrete staircase"), in grid steps: for
 * coordinate i, the step D = SCALES[i] (a whole number of steps, 0: no noise), the high part's
 * length r = SHAPES[i] (a whole number in [0, D]) and t = EPSILONS[i] = 1/eps (the discrete
 * Laplace scale whose steps decay by b = e^(-1/t)). P(y) is proportional to b^k on |y| in
 * [k D, k D + r) and b^(k+1) on [k D + r, (k+1) D). From exact discrete Laplace draws Y of scale t:
 * the step G = Y if Y >= 0, else -Y - 1 (P(G = k) proportional to b^k); the position j uniform below
 * D, kept outright below r and otherwise when a further draw's G' >= 1 (probability b); a sign
 * bit; (negative, 0) redrawn. VALUES[i] = grid (round(VALUES[i] / grid) (ADD) + y).
 */
export function discreteStaircaseSamples(first: f64, n: i32, flags: i32, scale: f64, grid: f64): void {
  tabulateLogUniform();
  const add = (flags & ADD) != 0;
  const inverseGrid = 1.0 / grid;
  laplaceT = NaN; // parameters cached from an earlier call are never reused
  for (let i = 0; i < n; i++) {
    const at = <usize>i << 3;
    const width = load<f64>(SCALES + at);
    value = gridValue(at, add, inverseGrid);
    let out = value;
    if (width > 0.0) {
      const t = load<f64>(EPSILONS + at);
      const high = load<f64>(SHAPES + at);
      if (t != laplaceT) setLaplace(t);
      beginCoordinate(<u64>first + <u64>i);
      let word = load<u64>(RANDOM + at);
      while (true) {
        const y = laplaceInside(word);
        const steps = y >= 0.0 ? y : -y - 1.0;
        const negative = nextWord() >>> 63;
        let j = 0.0;
        while (true) {
          j = <f64>uniformBelow(<u64>width);
          if (j < high) break;
          const further = laplaceInside(nextWord());
          if (further >= 1.0 || further <= -2.0) break; // G' >= 1
        }
        const m = steps * width + j; // exact: below 2^53 (checked by the caller)
        if (negative == 0 || m != 0.0) {
          out = value + (negative != 0 ? -m : m);
          break;
        }
        word = nextWord();
      }
    }
    store<f64>(VALUES + at, out * grid);
  }
}
