// The exact path of the discrete samplers (assembly/noise/discrete.ts): the same algorithms, with every
// comparison of a uniform against exp(-x) (x rational) decided in exact rational arithmetic. The
// WebAssembly fast path hands a draw over, in its current state, when double precision cannot
// decide a comparison (about one draw in 2^28); this module finishes it from the same words, so
// fast and exact are one function of the random words (docs/noise.md, "Exact discrete noise").
//
// A uniform is the binary fraction of its random words, read lazily: known as [A, A + 1) / 2^k,
// and extended by a word exactly when the threshold lies strictly inside that interval. The
// thresholds exp(-x), x > 0 rational, are irrational, so every comparison ends.

import type { WasmExports } from '../wasm/exports.js';
import { setExactPath } from '../wasm/host.js';

/** The next extra random word of the coordinate being drawn. */
export type NextWord = () => bigint;

/** A positive rational n / d. */
export interface Ratio {
  readonly n: bigint;
  readonly d: bigint;
}

const LOW_63 = (1n << 63n) - 1n;
/** Guard bits carried through the series, far more than the accumulated rounding. */
const GUARD = 64;

const bits = new DataView(new ArrayBuffer(8));

/** The exact value of a finite double x >= 0 (every double is a dyadic rational). */
export function ratioOf(x: number): Ratio {
  bits.setFloat64(0, x);
  const raw = bits.getBigUint64(0);
  const exponent = Number((raw >> 52n) & 0x7ffn);
  const fraction = raw & ((1n << 52n) - 1n);
  const mantissa = exponent === 0 ? fraction : fraction | (1n << 52n);
  const power = (exponent === 0 ? 1 : exponent) - 1075; // x = mantissa 2^power
  return power >= 0 ? { n: mantissa << BigInt(power), d: 1n } : { n: mantissa, d: 1n << BigInt(-power) };
}

const ceilShift = (x: bigint, shift: bigint) => -(-x >> shift);

/** Bounds [lo, hi] on 2^w exp(-r/d) for 0 <= r <= d, by the alternating Taylor series. */
function expFraction(r: bigint, d: bigint, w: bigint): [bigint, bigint] {
  const one = 1n << w;
  let term = one;
  let sum = one;
  let k = 1n;
  let negative = true;
  // Each floored term is low by at most k units and the tail after the first zero term is at most
  // k + 1 units (the terms decrease), so the sum is within (k + 2)^2 units.
  while (term > 0n) {
    term = (term * r) / (d * k);
    sum += negative ? -term : term;
    negative = !negative;
    k++;
  }
  const error = (k + 2n) ** 2n;
  return [sum - error < 0n ? 0n : sum - error, sum + error];
}

const inverseEs = new Map<bigint, [bigint, bigint]>();

/** Bounds on 2^w / e, computed once per precision. */
function inverseE(w: bigint): [bigint, bigint] {
  let bounds = inverseEs.get(w);
  if (!bounds) {
    bounds = expFraction(1n, 1n, w);
    inverseEs.set(w, bounds);
  }
  return bounds;
}

/** Bounds on 2^p exp(-x), x >= 0, with p fractional bits. */
function expBounds(x: Ratio, p: number): [bigint, bigint] {
  const w = BigInt(p + GUARD);
  const whole = x.n / x.d;
  if (whole >= w) return [0n, 1n]; // exp(-x) <= e^-w < 2^-w
  const [fl, fh] = expFraction(x.n - whole * x.d, x.d, w);
  let [il, ih] = [1n << w, 1n << w];
  if (whole > 0n) {
    // exp(-whole) = (1/e)^whole by squaring, each product rounded outwards.
    let [bl, bh] = inverseE(w);
    for (let e = whole; e > 0n; e >>= 1n) {
      if (e & 1n) [il, ih] = [(il * bl) >> w, ceilShift(ih * bh, w)];
      [bl, bh] = [(bl * bl) >> w, ceilShift(bh * bh, w)];
    }
  }
  const g = BigInt(GUARD);
  return [(fl * il) >> (w + g), ceilShift(fh * ih, w + g)];
}

const ONE: Ratio = { n: 1n, d: 1n };

/**
 * The sign of (A / 2^k) f - exp(-x), for a rational f > 0 (never 0 for x > 0: exp(-x) is
 * irrational; for x = 0, A / 2^k < 1 is all the callers ask).
 */
function compareExp(a: bigint, k: number, x: Ratio, f: Ratio = ONE): number {
  const scaled = a * f.n;
  if (x.n === 0n) {
    const one = f.d << BigInt(k);
    return scaled < one ? -1 : scaled > one ? 1 : 0;
  }
  for (let p = k + 64; ; p += 64) {
    const [lo, hi] = expBounds(x, p);
    const v = scaled << BigInt(p - k);
    if (v <= lo * f.d) return -1;
    if (v >= hi * f.d) return 1;
  }
}

/** The sign of r - exp(-x) for rationals r > 0 and x > 0 (tests: the cell tables' bounds). */
export function compareWithExp(r: Ratio, x: Ratio): number {
  return compareExp(r.n, 0, x, { n: 1n, d: r.d });
}

/** A uniform in [0, 1) read lazily from random words: known to lie in [A, A + 1) / 2^k. */
class LazyUniform {
  constructor(
    public a: bigint,
    public k: number,
    private readonly next: NextWord,
  ) {}
  extend(): void {
    this.a = (this.a << 64n) | this.next();
    this.k += 64;
  }
}

/** Whether U f < exp(-x) (f = 1 by default), extending U only while the threshold exp(-x) / f lies strictly inside its interval. */
function belowExp(u: LazyUniform, x: Ratio, f: Ratio = ONE): boolean {
  for (;;) {
    if (compareExp(u.a, u.k, x, f) >= 0) return false;
    if (compareExp(u.a + 1n, u.k, x, f) <= 0) return true;
    u.extend();
  }
}

/**
 * A coin that comes up true with probability exactly exp(-x), x >= 0 rational (or a function
 * giving it, called only when the exact comparison is needed): U < exp(-x) for a uniform U read
 * lazily from `next`'s words. `approximate`, when given, is x in double precision
 * within 2^-40 relative: the first word decides at once unless it lies within 2^-30 of the
 * threshold, where the exact comparison does (the same outcome either way: it only skips work).
 */
export function bernoulliExp(x: Ratio | (() => Ratio), next: NextWord, approximate?: number): boolean {
  const word = next();
  // Beyond x = 50 the threshold exp(-x) < 2^-72 lies below every word but 0 (by 2^-30 and more).
  if (approximate !== undefined && approximate > 50 && word !== 0n) return false;
  if (approximate !== undefined && approximate < 700) {
    const threshold = Math.exp(-approximate);
    const low = Number(word) * 2 ** -64 * (1 - 2 ** -50);
    const high = (Number(word) + 1) * 2 ** -64 * (1 + 2 ** -50);
    if (high < threshold * (1 - 2 ** -30)) return true;
    if (low > threshold * (1 + 2 ** -30)) return false;
  }
  return belowExp(new LazyUniform(word, 64, next), typeof x === 'function' ? x() : x);
}

/** Scales of the discrete Laplace kernel: t, and B = 2^b with t / B in [16, 32) when b > 0 (as in discrete.ts). */
interface LaplaceScale {
  t: Ratio;
  b: bigint;
}

function laplaceScale(t: number): LaplaceScale {
  bits.setFloat64(0, t);
  const exponent = Number((bits.getBigUint64(0) >> 52n) & 0x7ffn);
  return { t: ratioOf(t), b: BigInt(Math.max(0, exponent - 1027)) };
}

/** x = h B / t, the exponent of the threshold of H >= h. */
const blockExponent = ({ t, b }: LaplaceScale, h: bigint): Ratio => ({ n: (h * t.d) << b, d: t.n });

/** max {h >= 0 : v < exp(-h B / t)} for v = A / 2^k in (0, 1). */
function blocksBelow(a: bigint, k: number, scale: LaplaceScale): bigint {
  // A starting guess from doubles, then exact steps.
  const length = a.toString(2).length;
  const top = Number(a >> BigInt(Math.max(0, length - 53)));
  const logV = Math.log(top) + (Math.max(0, length - 53) - k) * Math.LN2;
  const tOverB = Number(scale.t.n) / Number(scale.t.d) / 2 ** Number(scale.b);
  let h = BigInt(Math.max(0, Math.floor(-logV * tOverB)));
  while (h > 0n && compareExp(a, k, blockExponent(scale, h)) > 0) h--;
  while (compareExp(a, k, blockExponent(scale, h + 1n)) < 0) h++;
  return h;
}

/** H = floor(-(t / B) ln U): the h with exp(-(h + 1) B / t) <= U < exp(-h B / t). */
function blocks(u: LazyUniform, scale: LaplaceScale): bigint {
  for (;;) {
    if (u.a > 0n) {
      const high = blocksBelow(u.a, u.k, scale);
      const upper = u.a + 1n;
      const low = upper === 1n << BigInt(u.k) ? 0n : blocksBelow(upper, u.k, scale);
      if (high === low) return high;
    }
    u.extend();
  }
}

/** L in [0, B), P(L = l) proportional to exp(-l / t): uniform l (top b bits) accepted when V < exp(-l / t). */
function remainder(scale: LaplaceScale, word: bigint, next: NextWord): bigint {
  const shift = 64n - scale.b;
  for (let w = word; ; w = next()) {
    const l = w >> shift;
    const v = new LazyUniform(w & ((1n << shift) - 1n), Number(shift), next);
    if (belowExp(v, { n: l * scale.t.d, d: scale.t.n })) return l;
  }
}

/** X = H B + L and the sign, redrawing (negative, 0); continues a trial whose H is known. */
function laplaceFrom(scale: LaplaceScale, negative: boolean, h: bigint, word: bigint | undefined, next: NextWord): bigint {
  for (;;) {
    const x = (h << scale.b) + (scale.b > 0n ? remainder(scale, word ?? next(), next) : 0n);
    if (!negative) return x;
    if (x !== 0n) return -x;
    const w = next();
    negative = w >> 63n === 1n;
    h = blocks(new LazyUniform(w & LOW_63, 63, next), scale);
    word = undefined;
  }
}

/** A discrete Laplace draw from its trial word. */
function laplaceTrial(scale: LaplaceScale, word: bigint, next: NextWord): bigint {
  const h = blocks(new LazyUniform(word & LOW_63, 63, next), scale);
  return laplaceFrom(scale, word >> 63n === 1n, h, undefined, next);
}

/** gamma = (|y| T - s)^2 / (2 s T^2) with s = n / d: (|y| T d - n)^2 / (2 n d T^2). */
function acceptanceExponent(y: bigint, s: Ratio, t: bigint): Ratio {
  const m = (y < 0n ? -y : y) * t * s.d - s.n;
  return { n: m * m, d: 2n * s.n * s.d * t * t };
}

/** Continues a discrete Gaussian draw whose proposal y awaits its acceptance word. */
function gaussianFrom(s: Ratio, scale: LaplaceScale, y: bigint, acceptWord: bigint, next: NextWord): bigint {
  const t = scale.t.n / scale.t.d; // T is an integer
  for (let word = acceptWord; ; word = next()) {
    if (belowExp(new LazyUniform(word, 64, next), acceptanceExponent(y, s, t))) return y;
    y = laplaceTrial(scale, next(), next);
  }
}

/** A table of the cell draws (assembly/noise/cells.ts), read from the module. */
export interface CellTable {
  /** Per column: threshold << 8 | alias. */
  splits: Int32Array;
  /** Per entry: its weight H_e (the cells, then the tail), adding up to 2^19. */
  weights: bigint[];
  /** S = H_0, the weight whose cell's bound is the law at 0. */
  size: bigint;
}

/** A cell table's entries: 127 cells and the tail, one per column of its alias table (7 bits of a trial's word). */
const CELL_ENTRIES = 128;
const CELL_TAIL = 127;

/** The discrete Gaussian's exponent at magnitude n, n^2 / (2 s). */
function cellExponent(n: bigint, s: Ratio): Ratio {
  return { n: n * n * s.d, d: 2n * s.n };
}

/**
 * A cell draw (docs/noise.md, "Cells") from its trial word after `hops` steps outwards, with cells
 * of 2^w integers; `extension`, when given, is the word that already extends the trial's V.
 */
function cellDraw(scale: number, table: CellTable, w: number, word: bigint, hops: number, extension: bigint | undefined, next: NextWord): bigint {
  const bits = 44 - w;
  const s = ratioOf(scale);
  for (;;) {
    const column = Number((word >> 56n) & 127n);
    const split = table.splits[column]!;
    const entry = Number((word >> 44n) & 0xfffn) < split >> 8 ? column : split & 0xff;
    if (entry === CELL_TAIL) {
      hops++;
      word = next();
      continue;
    }
    const offset = (word >> BigInt(bits)) & ((1n << BigInt(w)) - 1n);
    const n = (BigInt(hops * CELL_TAIL + entry) << BigInt(w)) | offset;
    const negative = word >> 63n === 1n;
    if (!negative || n !== 0n) {
      const v = new LazyUniform(word & ((1n << BigInt(bits)) - 1n), bits, next);
      if (extension !== undefined) {
        v.a = (v.a << 64n) | extension;
        v.k += 64;
      }
      // Kept when V < exp(-x) S / (H_entry (H_tail / 2^19)^hops).
      const f = { n: table.weights[entry]! * table.weights[CELL_TAIL]! ** BigInt(hops), d: table.size << BigInt(19 * hops) };
      if (belowExp(v, cellExponent(n, s), f)) return negative ? -n : n;
    }
    extension = undefined;
    hops = 0;
    word = next();
  }
}

/** The stages of discrete.ts and cells.ts at which a draw is handed over. */
export const STAGES = { laplaceTrial: 1, laplaceRemainder: 2, gaussianTrial: 3, gaussianRemainder: 4, gaussianAccept: 5, cellTrial: 6, cellAccept: 7 } as const;

/** The state discrete.ts writes before handing a draw over (its EXACT slots). */
export interface DrawState {
  /** t (Laplace) or s (Gaussian). */
  parameter: number;
  /** The discrete Laplace scale in use: t, or the Gaussian's T. */
  laplaceScale: number;
  /** The stage's random word. */
  word: bigint;
  negative: boolean;
  /** H of a trial in its remainder stage. */
  h: number;
  /** The Gaussian proposal awaiting acceptance. */
  y: number;
  /** The integer the noise is added to. */
  value: number;
}

/** Finishes a handed-over draw exactly and returns value + noise, rounded to a double once. */
export function finishDraw(stage: number, state: DrawState, next: NextWord): number {
  const scale = laplaceScale(state.laplaceScale);
  let noise: bigint;
  switch (stage) {
    case STAGES.laplaceTrial:
      noise = laplaceTrial(scale, state.word, next);
      break;
    case STAGES.laplaceRemainder:
      noise = laplaceFrom(scale, state.negative, BigInt(state.h), state.word, next);
      break;
    case STAGES.gaussianTrial:
      noise = gaussianFrom(ratioOf(state.parameter), scale, laplaceTrial(scale, state.word, next), next(), next);
      break;
    case STAGES.gaussianRemainder:
      noise = gaussianFrom(ratioOf(state.parameter), scale, laplaceFrom(scale, state.negative, BigInt(state.h), state.word, next), next(), next);
      break;
    case STAGES.gaussianAccept:
      noise = gaussianFrom(ratioOf(state.parameter), scale, BigInt(state.y), state.word, next);
      break;
    default:
      throw new Error(`dpnoise: internal error: unknown sampler stage ${stage}.`);
  }
  return Number(BigInt(state.value) + noise);
}

/** The state cells.ts writes before handing a cell draw over (its EXACT slots). */
export interface CellState {
  /** The variance parameter s. */
  scale: number;
  /** Steps outwards before the trial. */
  hops: number;
  /** The trial word. */
  word: bigint;
  /** The word already extending the trial's V (the acceptance stage), if any. */
  extension: bigint | undefined;
  /** The cells' width bits and table. */
  w: number;
  table: CellTable;
  /** The integer the noise is added to. */
  value: number;
}

/** Finishes a handed-over cell draw (stage cellTrial or cellAccept) exactly: value + noise, rounded once. */
export function finishCellDraw(stage: number, state: CellState, next: NextWord): number {
  if (stage !== STAGES.cellTrial && stage !== STAGES.cellAccept) throw new Error(`dpnoise: internal error: unknown sampler stage ${stage}.`);
  const noise = cellDraw(state.scale, state.table, state.w, state.word, state.hops, stage === STAGES.cellAccept ? state.extension : undefined, next);
  return Number(BigInt(state.value) + noise);
}

/** Cell table `index` of the module (a tier): the splits, and the weights from the factors S / H_e (H_e = S / factor, exactly: both below 2^20) and 2^19 / H_tail. */
export function cellTable(w: WasmExports, index: number): CellTable {
  const splits = new Int32Array(w.memory.buffer, w.cellSplitsPointer(index), CELL_ENTRIES).slice();
  const factors = new Float64Array(w.memory.buffer, w.cellFactorsPointer(index), CELL_ENTRIES);
  const size = w.cellSize(index);
  const weights = Array.from(factors, (f, e) => BigInt(Math.round((e === CELL_TAIL ? 2 ** 19 : size) / f)));
  if (weights.reduce((a, b) => a + b, 0n) !== 1n << 19n) throw new Error('dpnoise: internal error: a cell table does not add up.');
  return { splits, weights, size: BigInt(size) };
}

/** The state a discrete sampler hands to the exact path (EXACT, assembly/memory.ts), finished exactly. */
function exactDraw(w: WasmExports, stage: number): number {
  const slots = new Float64Array(w.memory.buffer, w.exactPointer(), 8);
  const words = new BigUint64Array(w.memory.buffer, w.exactPointer(), 8);
  const next = () => BigInt.asUintN(64, w.exactWord());
  if (stage >= STAGES.cellTrial) {
    const state = {
      scale: slots[0]!,
      hops: slots[1]!,
      word: words[2]!,
      extension: slots[3] === 1 ? words[4]! : undefined,
      w: slots[7]!,
      table: cellTable(w, slots[5]!),
      value: slots[6]!,
    };
    return finishCellDraw(stage, state, next);
  }
  const state = { parameter: slots[0]!, laplaceScale: slots[1]!, word: words[2]!, negative: slots[3] === 1, h: slots[4]!, y: slots[5]!, value: slots[6]! };
  return finishDraw(stage, state, next);
}

/** Installs the exact path in the module's host; the discrete draws call it before drawing. */
export function useExactPath(): void {
  setExactPath(exactDraw);
}
