// Exact discrete Gaussian noise at large scales, about one random word per draw (docs/noise.md,
// "Cells"). The magnitude's half-line is cut into cells of 2^w integers; a word picks a cell from
// a table whose weights bound the law from above (an alias table: exact integer weights), an
// offset in the cell, a sign and a uniform V, and the draw is kept when V < (law at the
// magnitude) / (the cell's bound). The last entry of a table, the tail, moves the draw 127 cells
// outwards (7.9 standard deviations at least) and picks again from the next word. Each table
// serves one tier of scales: the tier fixes the bound's shape, w its width.
//
// Every decision is a comparison of V with exp(-x) times a rational; it is decided in double
// precision when V's bits lie farther from the threshold than a proven bound on the rounding
// (RELATIVE_MARGIN), else by the exact path (src/noise/discrete-exact.ts), which finishes the draw from
// the same words. The one-by-one draws here and the two-at-a-time lanes (cell-lanes.ts) make
// the same decisions on the same words.
import { nextWord } from "./random";
import { EXACT, SCALES } from "../memory";

/** Tables, one per tier of scales. */
const TIERS: i32 = 16;
/**
 * Entries per table, 127 cells and then the tail (TAIL): one per column of the alias table, each
 * column holding 2^12 weight units (2^19 in all). The word's 19 bits after its sign pick the
 * entry: 7 name the column, 12 are a uniform compared with the column's threshold.
 */
export const ENTRIES: i32 = 128;
export const TAIL: i32 = 127;
const CAPACITY_BITS: i32 = 12;
/** 2^19, the weight of a table (the tail's factor is 2^19 / H_tail per step outwards). */
const TOTAL_F: f64 = 524288.0;
/** The widest cells: 2^40 integers, so that V keeps at least 4 bits of the word. */
const MOST_WIDTH_BITS: i32 = 40;
/** Steps outwards the double-precision draw follows; beyond (probability below 2^-200) the exact path does. */
export const MOST_HOPS: i32 = 16;
/** 2^-30, relative: far above every rounding error the decisions bound (2^-34.9 relative; docs/noise.md, "Cells"). */
export const RELATIVE_MARGIN: f64 = 9.313225746154785e-10;

// Per tier: the columns' splits (threshold << 8 | alias: entry c when the word's
// u < threshold, else the alias), the entries' factors S / H_e (the tail's: 2^19 / H_tail), and
// S = H_0 (doubles; the exact path reads them back, H_e = round(S / factor)).
const SPLITS: usize = memory.data(TIERS * ENTRIES * 4, 16);
const FACTORS: usize = memory.data(TIERS * ENTRIES * 8, 16);
const SIZES: usize = memory.data(TIERS * 8, 16);
/** Vose's work lists, while tabulating. */
const WEIGHTS: usize = memory.data(ENTRIES * 4, 16);
const SMALL: usize = memory.data(ENTRIES * 4, 16);
const LARGE: usize = memory.data(ENTRIES * 4, 16);
let tabulated = false;

/** A table (a tier) to the first byte of its splits and factors. */
// @ts-ignore: decorator
@inline export function splitsOf(table: i32): usize {
  return SPLITS + (<usize>table << 9);
}
// @ts-ignore: decorator
@inline export function factorsOf(table: i32): usize {
  return FACTORS + (<usize>table << 10);
}

/**
 * The exponent of the bound on cell k of a table, -ln of its height relative to cell 0: k^2 / (2 R)
 * for the top R of the tier's r^2 = s / 4^w, in [2^(6 + b) (1 + m/8), 2^(6 + b) (1 + (m + 1)/8)),
 * tier = 8 b + m.
 */
function boundExponent(tier: i32, k: f64): f64 {
  const top = <f64>(1 << (6 + (tier >> 3))) * (1.0 + <f64>((tier & 7) + 1) / 8.0);
  return (k * k) / (2.0 * top);
}

/**
 * Fills the tables once: for cell k, a weight H_k >= S exp(-bound exponent), H_0 = S, and the
 * tail's weight H_tail = 2^19 - sum H_k, at least what stepping outwards needs (docs/noise.md,
 * "Cells"); then Vose's alias construction in integers.
 */
export function tabulateCells(): void {
  if (tabulated) return;
  for (let table = 0; table < TIERS; table++) {
    // Stepping TAIL cells out must shrink the law by at least H_tail / 2^19 (a reserve above it).
    const reserve = Math.floor(TOTAL_F * Math.exp(-boundExponent(table, <f64>TAIL)) * (1.0 + 1e-9)) + 2.0;
    let sum = 0.0;
    for (let k = 0; k < TAIL; k++) sum += Math.exp(-boundExponent(table, <f64>k));
    const size = Math.floor((TOTAL_F - reserve - <f64>TAIL) / (sum * (1.0 + 1e-9)));
    let used = 0.0;
    for (let k = 0; k < TAIL; k++) {
      // exp is within an ulp, so the product scaled by 1 + 2^-40 is above S exp(-x), and the floor plus 1 above that.
      const h = k == 0 ? size : Math.floor(size * Math.exp(-boundExponent(table, <f64>k)) * (1.0 + 9.094947017729282e-13)) + 1.0;
      store<i32>(WEIGHTS + (<usize>k << 2), <i32>h);
      store<f64>(factorsOf(table) + (<usize>k << 3), size / h);
      used += h;
    }
    const rest = TOTAL_F - used;
    store<i32>(WEIGHTS + (<usize>TAIL << 2), <i32>rest);
    store<f64>(factorsOf(table) + (<usize>TAIL << 3), TOTAL_F / rest);
    store<f64>(SIZES + (<usize>table << 3), size);
    alias(splitsOf(table));
  }
  tabulated = true;
}

/** Appends e to the list at `list`, which held `count`; returns the new count. */
// @ts-ignore: decorator
@inline function pushed(list: usize, count: i32, e: i32): i32 {
  store<i32>(list + (<usize>count << 2), e);
  return count + 1;
}

/** Vose's alias method on the integer weights in WEIGHTS (adding up to ENTRIES columns of 2^12). */
function alias(splits: usize): void {
  const capacity: i32 = 1 << CAPACITY_BITS;
  let small = 0;
  let large = 0;
  for (let e = 0; e < ENTRIES; e++) {
    if (load<i32>(WEIGHTS + (<usize>e << 2)) < capacity) small = pushed(SMALL, small, e);
    else large = pushed(LARGE, large, e);
  }
  while (small > 0 && large > 0) {
    small--;
    const s = load<i32>(SMALL + (<usize>small << 2));
    const l = load<i32>(LARGE + (<usize>(large - 1) << 2));
    const weight = load<i32>(WEIGHTS + (<usize>s << 2));
    store<i32>(splits + (<usize>s << 2), (weight << 8) | l);
    const left = load<i32>(WEIGHTS + (<usize>l << 2)) - (capacity - weight);
    store<i32>(WEIGHTS + (<usize>l << 2), left);
    if (left < capacity) {
      large--;
      small = pushed(SMALL, small, l);
    }
  }
  // What is left holds exactly one column's capacity each (the integer weights add up exactly).
  while (large > 0) {
    large--;
    const l = load<i32>(LARGE + (<usize>large << 2));
    store<i32>(splits + (<usize>l << 2), (capacity << 8) | l);
  }
  while (small > 0) {
    small--;
    const s = load<i32>(SMALL + (<usize>small << 2));
    store<i32>(splits + (<usize>s << 2), (capacity << 8) | s);
  }
}

/**
 * The cell width's bits w of a variance parameter s, or -1 when s is below the cells' range
 * (s < 64: drawn by discrete.ts's sampler) or beyond it (w > 40): w = floor((e - 6) / 2) for s in
 * [2^e, 2^(e + 1)), so that s / 4^w is in [64, 256).
 */
// @ts-ignore: decorator
@inline export function widthBits(s: f64): i32 {
  const w = (<i32>(reinterpret<u64>(s) >>> 52) - 1029) >> 1; // s > 0: its sign bit is 0
  return w >= 0 && w <= MOST_WIDTH_BITS ? w : -1;
}

/** The table (tier) of s in the cells' range with width bits w: the binade of s / 4^w (e - 6 - 2w, 0 or 1) and 3 bits of its mantissa. */
// @ts-ignore: decorator
@inline export function tableOf(s: f64, w: i32): i32 {
  const bits = reinterpret<u64>(s);
  return ((<i32>(bits >>> 52) - 1029 - 2 * w) << 3) | <i32>((bits >>> 49) & 7);
}

/** x = -ln of the law at magnitude n relative to n = 0, n^2 c with c = 1 / (2 s): within 2^-51.4 relative (docs/noise.md, "Cells"). */
// @ts-ignore: decorator
@inline function exponentAt(n: f64, c: f64): f64 {
  return n * n * c;
}

/** The entry a word picks: its bits 62 to 56 name a column, bits 55 to 44 are compared with its threshold. */
// @ts-ignore: decorator
@inline export function entryOf(table: i32, word: u64): i32 {
  const column = <i32>((word >>> 56) & 127);
  const split = load<i32>(splitsOf(table) + (<usize>column << 2));
  return <i32>((word >>> 44) & 0xFFF) < (split >> 8) ? column : split & 0xFF;
}

/** The magnitude of a cell trial: hops stretches of TAIL cells out, cell `entry`, and the offset in the word's bits 43 to 44 - w. */
// @ts-ignore: decorator
@inline export function magnitudeOf(word: u64, entry: i32, hops: i32, w: i32): f64 {
  const offset = (word << 20) >>> <u64>(64 - w); // w = 0: 64-bit shifts keep all bits, so mask instead
  return <f64><i64>((<u64>(hops * TAIL + entry) << <u64>w) | (w == 0 ? 0 : offset));
}

/** below()'s answers besides 1 (V < a) and 0 (V >= a): a lies strictly inside V's interval (more bits decide), or too close to an end to tell. */
const INSIDE: i32 = 2;
const CLOSE: i32 = -1;

/** The factor S / H_e of an entry after `hops` steps outwards, times (2^19 / H_tail)^hops. */
// @ts-ignore: decorator
@inline export function factorOf(table: i32, entry: i32, hops: i32): f64 {
  let factor = load<f64>(factorsOf(table) + (<usize>entry << 3));
  if (hops > 0) {
    const tail = load<f64>(factorsOf(table) + (<usize>TAIL << 3));
    for (let j = 0; j < hops; j++) factor *= tail;
  }
  return factor;
}

/**
 * Where V in [v, v + 1) 2^-bits lies against a < 1, given a' within 2^-34.9 of a relative: 1
 * (V < a), 0 (V >= a), INSIDE (a strictly between the ends: the exact decision needs V's next
 * bits; at the top end 1, a < 1 is known exactly), or CLOSE (a within RELATIVE_MARGIN of an end).
 * The ends are exact; a' (1 -+ RELATIVE_MARGIN) rounds by 2^-53 relative.
 */
// @ts-ignore: decorator
@inline function below(v: f64, bits: i32, a: f64): i32 {
  const unit = reinterpret<f64>(<u64>(1023 - bits) << 52);
  const low = v * unit;
  const high = (v + 1.0) * unit;
  const under = a * (1.0 - RELATIVE_MARGIN);
  const over = a * (1.0 + RELATIVE_MARGIN);
  if (high <= under) return 1;
  if (low >= over) return 0;
  return low < under && (over < high || high == 1.0) ? INSIDE : CLOSE;
}

@external("env", "exactDraw")
declare function exactDraw(stage: i32): f64;

/** The exact path's stages for cell draws (src/noise/discrete-exact.ts): a trial from its word, or its acceptance with V extended by a word. */
export const CELL_TRIAL: i32 = 6;
export const CELL_ACCEPT: i32 = 7;

/**
 * Hands a cell draw to the exact path (EXACT's slots: scale, hops, trial word, whether V was
 * extended, the word extending it, table, value, width bits): at the trial (CELL_TRIAL) or at its
 * acceptance, V already extended by `extension` if `extended` (CELL_ACCEPT). Returns the value
 * plus the noise it finishes with.
 */
function handOver(stage: i32, scale: f64, w: i32, word: u64, hops: i32, extended: i32, extension: u64, value: f64): f64 {
  store<f64>(EXACT, scale);
  store<f64>(EXACT, <f64>hops, 8);
  store<u64>(EXACT, word, 16);
  store<f64>(EXACT, <f64>extended, 24);
  store<u64>(EXACT, extension, 32);
  store<f64>(EXACT, <f64>tableOf(scale, w), 40);
  store<f64>(EXACT, value, 48);
  store<f64>(EXACT, <f64>w, 56);
  return exactDraw(stage);
}

/**
 * A draw at a variance parameter in the cells' range (widthBits w >= 0), one by one: from the
 * trial word `word` after `hops` steps outwards, further words from nextWord (the coordinate's
 * words must be set up). Returns value + noise (one rounding), finished by the exact path when
 * double precision cannot decide (or always, with `exactOnly`).
 */
export function cellDraw(scale: f64, w: i32, word: u64, hops: i32, value: f64, exactOnly: bool): f64 {
  const table = tableOf(scale, w);
  const coefficient = 0.5 / scale;
  const bits = 44 - w;
  let trial = word;
  let steps = hops;
  while (true) {
    if (exactOnly || steps >= MOST_HOPS) return handOver(CELL_TRIAL, scale, w, trial, steps, 0, 0, value);
    const entry = entryOf(table, trial);
    if (entry == TAIL) {
      steps++;
      trial = nextWord();
      continue;
    }
    const n = magnitudeOf(trial, entry, steps, w);
    const negative = trial >>> 63;
    // n = 0 (cell 0, no step) has a = 1 exactly, and V < 1: kept, unless drawn with a negative sign (redrawn).
    if (n == 0.0 && negative == 0) return value;
    if (n != 0.0) {
      const a = Math.exp(-min(exponentAt(n, coefficient), 700.0)) * factorOf(table, entry, steps);
      const low = trial & ((<u64>1 << <u64>bits) - 1);
      let accept = below(<f64><i64>low, bits, a);
      if (accept == CLOSE) return handOver(CELL_ACCEPT, scale, w, trial, steps, 0, 0, value);
      if (accept == INSIDE) {
        // As the exact path does: V's bits go on in the next word; its top 53 bits decide here.
        const extension = nextWord();
        accept = below(<f64><i64>((low << <u64>(53 - bits)) | (extension >>> <u64>(11 + bits))), 53, a);
        if (accept > 1 || accept < 0) return handOver(CELL_ACCEPT, scale, w, trial, steps, 1, extension, value);
      }
      if (accept > 0) return value + (negative != 0 ? -n : n);
    }
    steps = 0;
    trial = nextWord();
  }
}

/** Where warmTables leaves what it read, so that no optimiser drops the reads. */
const WARMED: usize = memory.data(8, 16);

/** Calls with at most this many coordinates read their tables whole first (warmTables). */
const FEW: i32 = 256;

/**
 * Reads every cache line of the tables the n scales of a short call use (SCALES, or `scale` for
 * all), so that each draw then finds its table's entries in the cache whichever cell it picks:
 * which entry a draw reads tells its magnitude, and a miss on a line read rarely (far cells) takes
 * longer. A long call's time sums thousands of draws, and its own draws keep the lines it reads
 * warm; scanning its scales would cost 5% of its time, so it is left out.
 */
export function warmTables(n: i32, perCoordinate: bool, scale: f64): void {
  let used: u32 = 0; // one bit per tier
  if (perCoordinate) {
    if (n > FEW) return;
    // widthBits and tableOf from the scales' bits, without a branch: w in [0, 40] for a biased
    // exponent in [1029, 1110].
    for (let p = SCALES, end = SCALES + (<usize>n << 3); p < end; p += 8) {
      const bits = load<u64>(p);
      const e = bits >>> 52;
      const tier = (((e - 1029) & 1) << 3) | ((bits >>> 49) & 7);
      used |= <u32>(e - 1029 <= 81) << <u32>tier; // unsigned: an exponent below 1029 wraps past 81
    }
  } else {
    const w = scale > 0.0 ? widthBits(scale) : -1;
    if (w >= 0) used = <u32>1 << <u32>tableOf(scale, w);
  }
  let sum: i64 = 0;
  for (let table = 0; table < TIERS; table++) {
    if ((used & (<u32>1 << <u32>table)) == 0) continue;
    for (let p = splitsOf(table), end = p + (<usize>ENTRIES << 2); p < end; p += 64) sum += load<i32>(p);
    for (let p = factorsOf(table), end = p + (<usize>ENTRIES << 3); p < end; p += 64) sum += load<i64>(p);
  }
  store<i64>(WARMED, sum);
}

/** The table of a variance parameter, or -1 outside the cells' range (exact path, tests). */
export function cellTableOf(scale: f64): i32 {
  const w = scale > 0.0 ? widthBits(scale) : -1;
  return w < 0 ? -1 : tableOf(scale, w);
}

/** A table's splits (ENTRIES i32) and factors (ENTRIES f64), and its S (exact path, tests). */
export function cellSplitsPointer(table: i32): usize {
  tabulateCells();
  return splitsOf(table);
}
export function cellFactorsPointer(table: i32): usize {
  tabulateCells();
  return factorsOf(table);
}
export function cellSize(table: i32): f64 {
  tabulateCells();
  return load<f64>(SIZES + (<usize>table << 3));
}
