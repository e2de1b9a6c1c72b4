// Exact discrete Laplace and discrete Gaussian noise for grid mode, at close to the cost of
// continuous noise (docs/noise.md, "Exact discrete noise").
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
import { BATCH, EPSILONS, EXACT, PENDING, PENDING_NEXT, PLANE, RANDOM, SCALES, SHAPES, STASH, UNDECIDED, VALUES } from "../memory";
import { ADD, exactDouble, PER_COORDINATE } from "./samplers";
import { LANE_ONE, LANE_ZERO, minusLogUniform, tabulateLogUniform } from "./log-uniform";
import { acceptedLanes, laplaceMagnitudes, LOW_63, MARGIN, REJECTED_LANES, releasedPair, signed } from "./discrete-lanes";

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

/** floor(x + 1/2), exactly: the test x - floor(x) >= 1/2 is exact for every double (docs/mechanisms.md, "Floating-point safety"). */
// @ts-ignore: decorator
@inline export function roundHalfUp(x: f64): f64 {
  const f = Math.floor(x);
  return select<f64>(f + 1.0, f, x - f >= 0.5);
}

/**
 * The value of coordinate i on the grid: VALUES[i] / grid rounded half up (ADD), else 0; then the
 * noise of `noise` added and the sum scaled back by the grid. The sum of the two integers is
 * rounded to a double only once, so the output is a function of the exact integer release.
 */
// @ts-ignore: decorator
@inline function gridValue(at: usize, add: bool, inverseGrid: f64): f64 {
  // Exact: the grid is a power of two. + 0.0 makes -0 +0, so a -0 and a 0 query give the same output.
  return add ? roundHalfUp(load<f64>(VALUES + at) * inverseGrid) + 0.0 : 0.0;
}

/**
 * For coordinates [0, n) of the chunk starting at coordinate `first`: VALUES[i] = grid *
 * (round(VALUES[i] / grid) + Y_i) with ADD, else grid * Y_i, where Y_i is discrete Laplace noise of
 * scale t = (PER_COORDINATE ? SCALES[i] : scale) in grid units (0: no noise). Every acceptance
 * computes its exp, so no draw takes a shortcut whose use depends on its noise. The SIMD build
 * first draws two coordinates at a time where it is sure (laplacePairs), then the others one by
 * one from the same words, BATCH coordinates at a time.
 */
export function discreteLaplaceSamples(first: f64, n: i32, flags: i32, scale: f64, grid: f64): void {
  tabulateLogUniform();
  const perCoordinate = (flags & PER_COORDINATE) != 0;
  const add = (flags & ADD) != 0;
  const inverseGrid = 1.0 / grid;
  laplaceT = NaN; // parameters cached from an earlier call (of either kernel) are never reused
  if (!perCoordinate && scale > 0.0) setLaplace(scale);
  if (!ASC_FEATURE_SIMD || exactOnly) {
    for (let i = 0; i < n; i++) drawOne(false, first, i, perCoordinate ? load<f64>(SCALES + (<usize>i << 3)) : scale, RANDOM + (<usize>i << 3), 0, 0, 0, add, inverseGrid, grid);
    return;
  }
  for (let b = 0; b < n; b += BATCH) {
    const m = min(BATCH, n - b);
    extraWordsInto(STASH, first + <f64>b, 0, m, 0);
    const count = laplacePairs(b, m, perCoordinate, add, scale, inverseGrid, grid);
    for (let p = 0; p < count; p++) {
      const i = load<i32>(PENDING + (<usize>p << 2));
      drawOne(false, first, i, perCoordinate ? load<f64>(SCALES + (<usize>i << 3)) : scale, RANDOM + (<usize>i << 3), 0, STASH + (<usize>(i - b) << 3), 1, add, inverseGrid, grid);
    }
  }
}

/** Appends coordinate i to the list at `list`, which held `count`; returns the new count. */
// @ts-ignore: decorator
@inline function listed(list: usize, count: i32, i: i32): i32 {
  store<i32>(list + (<usize>count << 2), i);
  return count + 1;
}

/**
 * The discrete Laplace draws of coordinates [b, b + m) that end at their first trial for sure,
 * two at a time (laplaceMagnitudes; L's word of coordinate i is STASH plane 0 at slot i - b):
 * writes their outputs, lists the other coordinates in PENDING, and returns how many it listed.
 */
function laplacePairs(b: i32, m: i32, perCoordinate: bool, add: bool, scale: f64, inverseGrid: f64, grid: f64): i32 {
  const scales = f64x2.splat(scale);
  const inverseGrids = f64x2.splat(inverseGrid);
  const grids = f64x2.splat(grid);
  let pending = 0;
  const end = b + m;
  for (let i = b; i + 1 < end; i += 2) {
    const at = <usize>i << 3;
    const t = perCoordinate ? v128.load(SCALES + at) : scales;
    const w = v128.load(RANDOM + at);
    const noise = signed(laplaceMagnitudes(t, w, v128.load(STASH + (<usize>(i - b) << 3)), false), w);
    const query = v128.load(VALUES + at);
    const noisy = f64x2.gt(t, v128.load(LANE_ZERO));
    const out = releasedPair(query, noise, noisy, add, inverseGrids, grids);
    const missed = v128.andnot(noisy, f64x2.eq(noise, noise)); // noise drawn, and not here
    v128.store(VALUES + at, v128.bitselect(query, out, missed));
    const lanes = i64x2.bitmask(missed);
    if (lanes != 0) {
      if (lanes & 1) pending = listed(PENDING, pending, i);
      if (lanes & 2) pending = listed(PENDING, pending, i + 1);
    }
  }
  return m & 1 ? listed(PENDING, pending, end - 1) : pending;
}

/**
 * As discreteLaplaceSamples, with discrete Gaussian noise of variance parameter
 * s = (PER_COORDINATE ? SCALES[i] : scale) in grid units squared (0: no noise). The SIMD build
 * takes the trials two at a time (gaussianRounds), BATCH coordinates at a time.
 */
export function discreteGaussianSamples(first: f64, n: i32, flags: i32, scale: f64, grid: f64): void {
  tabulateLogUniform();
  const perCoordinate = (flags & PER_COORDINATE) != 0;
  const add = (flags & ADD) != 0;
  const inverseGrid = 1.0 / grid;
  variance = NaN; // parameters cached from an earlier call (of either kernel) are never reused
  if (!perCoordinate && scale > 0.0) setGaussian(scale);
  if (ASC_FEATURE_SIMD && !exactOnly) {
    for (let b = 0; b < n; b += BATCH) gaussianRounds(first, b, min(BATCH, n - b), perCoordinate, add, scale, inverseGrid, grid);
    return;
  }
  for (let i = 0; i < n; i++) {
    const at = <usize>i << 3;
    drawOne(true, first, i, perCoordinate ? load<f64>(SCALES + at) : scale, RANDOM + at, 0, 0, 0, add, inverseGrid, grid);
  }
}

/**
 * Draws coordinate i's discrete Gaussian (`gaussianNoise`) or Laplace noise of parameter `scale`
 * one by one, from a trial whose primary word is at `primary` (or, if 0, the next extra word),
 * after `before` extra words, the next `replayed` of them kept at `replayAt` (one per STASH plane).
 */
function drawOne(gaussianNoise: bool, first: f64, i: i32, scale: f64, primary: usize, before: i32, replayAt: usize, replayed: i32, add: bool, inverseGrid: f64, grid: f64): void {
  const at = <usize>i << 3;
  value = gridValue(at, add, inverseGrid);
  let out = value;
  if (scale > 0.0) {
    if (gaussianNoise) {
      if (scale != variance) setGaussian(scale);
    } else if (scale != laplaceT) setLaplace(scale);
    finished = false;
    replayCoordinate(<u64>first + <u64>i, before, replayAt, replayed);
    const word = primary != 0 ? load<u64>(primary) : nextWord();
    if (exactOnly) handOver(gaussianNoise ? GAUSSIAN_TRIAL : LAPLACE_TRIAL, word, 0, 0.0, 0.0, gaussianNoise ? scale : 0.0);
    else out = value + (gaussianNoise ? gaussian(word) : laplace(word, LAPLACE_TRIAL, 0.0));
    if (finished) out = finishedOutput;
  }
  store<f64>(VALUES + at, out * grid);
}

/** When this many coordinates or fewer are left, gaussianRounds finishes them one by one. */
const LAST_FEW: i32 = 4;

/**
 * The discrete Gaussian draws of coordinates [b, b + m), their trials taken two at a time in
 * rounds (gaussianRound): round 1 on every coordinate, each later one on those the last surely
 * rejected. Round 1's words are the primary word and extra words 0 and 1 (L's and the
 * acceptance word); a later round's are the next three extra words. Slot j of a round keeps its
 * primary word at RANDOM + 8 (b + j) (round 1: the coordinate's own) and the others in STASH
 * planes 0 and 1 at 8 j. Once LAST_FEW or fewer coordinates are left, they are drawn one by one.
 * Every coordinate reads the words it would read alone.
 */
function gaussianRounds(first: f64, b: i32, m: i32, perCoordinate: bool, add: bool, scale: f64, inverseGrid: f64, grid: f64): void {
  for (let j = 0; j < m; j++) store<i32>(PENDING + (<usize>j << 2), b + j);
  extraWordsInto(STASH, first + <f64>b, 0, m, 0);
  extraWordsInto(STASH + PLANE, first + <f64>b, 0, m, 1);
  let list = PENDING;
  let next = PENDING_NEXT;
  let left = gaussianRound(first, b, m, list, next, 0, perCoordinate, add, scale, inverseGrid, grid);
  let before = 2; // the extra words each coordinate left has read
  while (left > LAST_FEW) {
    const kept = list;
    list = next;
    next = kept;
    extraWordsInto(RANDOM + (<usize>b << 3), first, list, left, before);
    extraWordsInto(STASH, first, list, left, before + 1);
    extraWordsInto(STASH + PLANE, first, list, left, before + 2);
    left = gaussianRound(first, b, left, list, next, before + 1, perCoordinate, add, scale, inverseGrid, grid);
    before += 3;
  }
  for (let j = 0; j < left; j++) {
    const i = load<i32>(next + (<usize>j << 2));
    drawOne(true, first, i, perCoordinate ? load<f64>(SCALES + (<usize>i << 3)) : scale, 0, before, 0, 0, add, inverseGrid, grid);
  }
}

/**
 * One round of discrete Gaussian trials on the m coordinates listed at `list` (slot j:
 * coordinate list[j], its words as gaussianRounds says), two slots at a time: releases those
 * accepted for sure, lists at `next` those rejected for sure and returns how many, and draws the
 * others one by one from the start of the trial (after `before` extra words, the primary word
 * not counted). The slots' scales and values are gathered into EPSILONS and SHAPES, which only
 * the staircase kernel uses otherwise.
 */
function gaussianRound(first: f64, b: i32, m: i32, list: usize, next: usize, before: i32, perCoordinate: bool, add: bool, scale: f64, inverseGrid: f64, grid: f64): i32 {
  for (let j = 0; j < m; j++) {
    const at = <usize>load<i32>(list + (<usize>j << 2)) << 3;
    store<f64>(EPSILONS + (<usize>j << 3), perCoordinate ? load<f64>(SCALES + at) : scale);
    store<f64>(SHAPES + (<usize>j << 3), load<f64>(VALUES + at));
  }
  const primaries = RANDOM + (<usize>b << 3);
  const inverseGrids = f64x2.splat(inverseGrid);
  const grids = f64x2.splat(grid);
  let rejected = 0;
  let undecided = 0;
  for (let j = 0; j + 1 < m; j += 2) {
    const at = <usize>j << 3;
    const s = v128.load(EPSILONS + at);
    const t = f64x2.add(f64x2.floor(f64x2.sqrt(s)), v128.load(LANE_ONE)); // T, as setGaussian
    const w = v128.load(primaries + at);
    const y = signed(laplaceMagnitudes(t, w, v128.load(STASH + at), true), w);
    const accepted = acceptedLanes(y, v128.load(STASH + PLANE + at), s, f64x2.div(s, t));
    const query = v128.load(SHAPES + at);
    const noisy = f64x2.gt(s, v128.load(LANE_ZERO));
    const out = v128.bitselect(releasedPair(query, y, noisy, add, inverseGrids, grids), query, v128.or(accepted, v128.not(noisy)));
    const sure = i64x2.bitmask(v128.or(v128.or(accepted, v128.not(noisy)), v128.load(REJECTED_LANES)));
    const rejects = i64x2.bitmask(v128.load(REJECTED_LANES));
    const i0 = load<i32>(list + (<usize>j << 2));
    const i1 = load<i32>(list + (<usize>j << 2), 4);
    // Branch-free: every lane's value is stored (unchanged unless released), every list gets an entry that counts or not.
    store<f64>(VALUES + (<usize>i0 << 3), f64x2.extract_lane(out, 0));
    store<f64>(VALUES + (<usize>i1 << 3), f64x2.extract_lane(out, 1));
    store<i32>(next + (<usize>rejected << 2), i0);
    rejected += rejects & 1;
    store<i32>(next + (<usize>rejected << 2), i1);
    rejected += rejects >> 1;
    store<i32>(UNDECIDED + (<usize>undecided << 2), j);
    undecided += ~sure & 1;
    store<i32>(UNDECIDED + (<usize>undecided << 2), j + 1);
    undecided += (~sure >> 1) & 1;
  }
  if (m & 1) undecided = listed(UNDECIDED, undecided, m - 1);
  for (let k = 0; k < undecided; k++) {
    const j = load<i32>(UNDECIDED + (<usize>k << 2));
    const at = <usize>j << 3;
    drawOne(true, first, load<i32>(list + (<usize>j << 2)), load<f64>(EPSILONS + at), primaries + at, before, STASH + at, 2, add, inverseGrid, grid);
  }
  return rejected;
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
