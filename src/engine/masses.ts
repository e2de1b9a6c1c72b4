// The algebra of discretized privacy-loss distributions (docs/accounting.md, "Composition by FFT",
// "Powers in the frequency domain" and "Products in the frequency domain"): masses on a grid of
// losses composed by FFT convolution (assembly/accounting/fft.ts), a release repeated k times by
// one power and different releases by one product in the frequency domain,
// the tails cut pessimistically (the left tail up to the lowest kept loss, the right tail to the
// infinite loss), and bounds on every rounding error carried along. pld.ts builds the
// distributions of events from their pairs; allocation.ts those of random allocation.
import { wasm } from '../wasm/loader.js';
import { roundUp } from '../core/rounding.js';
import { f64, inArena, twiddleTable } from './arena.js';
import { sumTails, WINDOW_TAIL } from './tails.js';

/** The two directions of add/remove neighbours: remove (the first law has the record) and add. */
export type Direction = 0 | 1;
export const REMOVE: Direction = 0;
export const ADD: Direction = 1;

/**
 * A discretized privacy-loss distribution: P-mass probs[i] at loss (lower + i) h, mass at
 * infinity, and bounds on the l2 and the l1 norm of the masses' rounding errors.
 */
export interface Pmf {
  readonly lower: number;
  readonly probs: Float64Array;
  readonly infinity: number;
  readonly error: number;
  readonly error1: number;
}

/**
 * The tail mass cut after each convolution, on each side: the left tail moves up to the lowest
 * kept loss, the right tail to infinity. 1e-16, or the FFT's noise floor over the result if more
 * (its entries far from the mass are rounding noise of about u times the largest mass), so that the
 * noise of a convolution does not keep the support growing.
 */
function tailBudget(probs: Float64Array): number {
  let largest = 0;
  for (const p of probs) largest = Math.max(largest, p);
  return Math.max(1e-16, 8 * U * largest * probs.length);
}
/** The longest distribution the accountant builds: beyond, a call throws instead of running for minutes. */
export const MAX_LENGTH = 2 ** 24;

/**
 * The most grid points of work one distribution's build may take, over all its arrays and
 * transforms (about half a second here): the accountant builds each under this allowance
 * (`allowed`), and a build past it is refused as one too long is. Points, not time, so that every
 * figure is the same on every machine.
 */
export const MAX_WORK = 2 ** 22;

/** The unit roundoff 2^-53. */
export const U = 2 ** -53;

/** The accountant's refusal of a distribution too long to build (its callers answer Infinity: no privacy they can certify). */
export class TooLong extends RangeError {}

export function tooLong(n: number): RangeError {
  return new TooLong(
    `dpnoise: the privacy-loss distribution would need ${n} grid points, more than its build may take: the releases lose far more privacy than any epsilon worth reporting, or the discretization is too fine.`,
  );
}

/**
 * The build in progress under `allowed`: per grid level (eventPmfLevels builds several at once),
 * what is left of its allowance and what it has cost, as if built alone; `level` is the level
 * being composed. Outside `allowed`, only MAX_LENGTH holds.
 */
let left: number[] | undefined;
let spent: number[] = [];
let level = 0;

function chargeLevel(l: number, n: number): void {
  if (left === undefined) return;
  if (!(n <= left[l]!)) throw tooLong(n);
  left[l]! -= n;
  spent[l]! += n;
}

/** Charges an array or a transform of n points to the level being built: refused past MAX_LENGTH, or past what is left of its allowance. */
export function charge(n: number): void {
  if (!(n <= MAX_LENGTH)) throw tooLong(n); // NaN too: a range that overflowed
  chargeLevel(level, n);
}

/** Charges n points shared by the levels (one curve evaluated on the finest grid for all): each level as its own `alone[l]` points. */
export function chargeShared(n: number, alone: readonly number[]): void {
  if (!(n <= MAX_LENGTH)) throw tooLong(n); // NaN too: a range that overflowed
  alone.forEach((m, l) => {
    chargeLevel(l, m);
  });
}

/** `compose` charged to grid level l. */
export function atLevel<T>(l: number, compose: () => T): T {
  const outer = level;
  level = l;
  try {
    return compose();
  } finally {
    level = outer;
  }
}

/**
 * `build` of `levels` grid levels, each under an allowance of MAX_WORK points (charge), and what
 * each level cost: exactly what a build of that level alone charges, so that a question can count
 * a distribution the same whether built now, before, or with another level. A build refused
 * (TooLong) gives no value, and the work it took.
 */
export function allowed<T>(levels: number, build: () => T): { value?: T; costs: number[] } {
  const outer = { left, spent, level };
  left = new Array<number>(levels).fill(MAX_WORK);
  spent = new Array<number>(levels).fill(0);
  level = 0;
  try {
    return { value: build(), costs: spent };
  } catch (error) {
    if (!(error instanceof TooLong)) throw error;
    return { costs: spent };
  } finally {
    ({ left, spent, level } = outer);
  }
}

// The norms in plain loops: on the accountant's long arrays, reduce with a callback costs as much as the FFT.
export function l1(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return s;
}
function l2(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * a[i]!;
  return Math.sqrt(s);
}
/**
 * A bound on the l2 norm of the rounding error of c = a * b computed by FFT of size 2^bits
 * (docs/accounting.md, "Composition by FFT"): 32 u log2(N) (|a|_2 max(1, |b|_1) + |b|_2 max(1, |a|_1) + |c|_2).
 */
function fftError(bits: number, a: Float64Array, b: Float64Array, c: Float64Array): number {
  return 32 * U * bits * (l2(a) * Math.max(1, l1(b)) + l2(b) * Math.max(1, l1(a)) + l2(c));
}

/** The smallest power of two >= n (and its log2), by doubling: exact on every engine. */
export function pow2(n: number): [number, number] {
  let p = 2;
  let bits = 1;
  for (; p < n; bits++) p *= 2;
  return [p, bits];
}

/**
 * The error bound of a convolution x * y whose own rounding is within `fft`, from the inputs' error
 * bounds ex and ey and norms nx and ny: (x + dx) * (y + dy) - x * y = dx * y + x * dy + dx * dy,
 * and by Young's inequality |u * v| <= |u|_1 |v| in l1 and in l2.
 */
export const convolutionError = (fft: number, ex: number, nx: number, ey: number, ny: number) => fft + ex * ny + ey * nx + ex * ey;

/**
 * The error bound carried through a T-fold self-convolution of x (l1 norm `whole`, error e1) by an
 * input error e: (x + dx)^*T - x^*T is within T |dx| (|x|_1 + |dx|_1)^(T - 1).
 */
export const carriedError = (times: number, whole: number, e1: number, e: number) => (e === 0 ? 0 : times * (whole + e1) ** (times - 1) * e);

/**
 * The composition of two distributions (the convolution of their masses), with the tails cut
 * (see tailBudget): the left tail moves up to the lowest kept loss, the right tail to infinity.
 * The error bound: the FFT's (fftError), plus each input's error times the other's l1 norm.
 */
export function convolve(a: Pmf, b: Pmf | undefined): Pmf {
  const { masses: probs, fft, N } = convolveMasses(a.probs, b?.probs);
  const other = b ?? a;
  // l1 norms with the infinite loss's mass: the errors of the whole distributions propagate.
  const [na1, nb1] = [l1(a.probs) + a.infinity, l1(other.probs) + other.infinity];
  // Young's inequality: |x * y|_2 <= |x|_1 |y|_2 and |x * y|_1 <= |x|_1 |y|_1; an l2 error over N entries is at most sqrt(N) times that in l1.
  const error = convolutionError(fft, a.error, na1, other.error, nb1);
  const error1 = convolutionError(Math.sqrt(N) * fft, a.error1, na1, other.error1, nb1);
  const infinity = a.infinity + other.infinity - a.infinity * other.infinity;
  return cut({ lower: a.lower + other.lower, probs, infinity, error, error1 });
}

/** The distribution with its tails cut (see convolve). */
export function cut(pmf: Pmf): Pmf {
  const { probs } = pmf;
  const budget = tailBudget(probs);
  let left = 0;
  let mass = 0;
  while (left < probs.length - 1 && mass + probs[left]! <= budget) mass += probs[left++]!;
  let right = probs.length;
  let tail = 0;
  while (right - 1 > left && tail + probs[right - 1]! <= budget) tail += probs[--right]!;
  if (left === 0 && right === probs.length) return pmf;
  const kept = probs.slice(left, right);
  kept[0]! += mass;
  // The cut masses are computed ones; what their errors may hide stays within error1, which every delta adds.
  return { ...pmf, lower: pmf.lower + left, probs: kept, infinity: Math.min(1, pmf.infinity + tail) };
}

/**
 * The composition of several distributions in a balanced tree of pairs: n distributions of
 * length m cost about n m log(n) log(nm) instead of the n^2 m of composing them one by one.
 */
export function inTree<T>(items: T[], compose: (a: T, b: T) => T): T {
  if (items.length === 0) throw new Error('dpnoise: internal error: a composition of no releases.');
  let level = items;
  while (level.length > 1) {
    const next: T[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? compose(level[i]!, level[i + 1]!) : level[i]!);
    level = next;
  }
  return level[0]!;
}

/**
 * `times` compositions of a distribution with itself in one transform (docs/accounting.md, "Powers
 * in the frequency domain"): the inverse transform of X^times on a circle of N points, with N
 * covering the window where all but 2^-60 of each tail lies (tails.ts). Mass below the window
 * wraps around to higher losses (only raising delta); mass at or above lo + N would wrap to lower
 * ones, so its Chernoff bound goes to infinity. The error bound follows each frequency: the
 * forward transform errs by at most 32 u log2(N) |x|_1 in every X_k, which the power multiplies by
 * at most times m_k^(times - 1), m_k = |X_k| + that.
 */
export function selfCompose(x: Pmf, times: number): Pmf {
  if (times === 1) return x;
  const { lo, probs, above, fft } = windowPower(x.probs, times, x.error1);
  const N = probs.length;
  // The input's errors carried through (carriedError), with the mass at infinity in |x|_1.
  const whole = l1(x.probs) + x.infinity;
  const error = roundUp(fft / Math.sqrt(N) + carriedError(times, whole, x.error1, x.error));
  const error1 = roundUp(fft + carriedError(times, whole, x.error1, x.error1));
  const infinity = Math.min(1, roundUp(-Math.expm1(times * Math.log1p(-x.infinity))) + above);
  return cut({ lower: times * x.lower + lo, probs, infinity, error, error1 });
}

/**
 * The times-fold self-convolution of the masses x (l1 error at most e1) on the window of indices
 * lo .. lo + N - 1 (above times * x's first index) where all but 2^-60 of each tail lies
 * (tails.ts): probs[i] is the mass at lo + i, plus what wrapped around the circle of N points: at
 * most 2^-60 from below the window, `above` (a Chernoff bound) from above it. `fft`: powerMasses' bound.
 */
export function windowPower(x: Float64Array, times: number, e1: number): { lo: number; probs: Float64Array; above: number; fft: number } {
  const tails = sumTails([{ x, times, e1 }]);
  const { lo, hi } = tails.window(WINDOW_TAIL);
  const [N] = pow2(Math.max(hi - lo + 1, x.length));
  const { circle, fft } = powerMasses(x, times, N);
  return { lo, probs: rotated(circle, lo), above: tails.above(lo + N), fft };
}

/**
 * The times-fold circular self-convolution of the masses x, period N (a power of two >= x's
 * length), negative results set to 0, and a bound on the l1 norm of its rounding error (l2: that
 * over sqrt(N)): |dY|_2 + 32 u log2(N) |Y|_2 with |dY_k| <= times s m_k^(times - 1) + rho m_k^times,
 * s = 32 u log2(N) |x|_1 the forward transform's error in each X_k, m_k = |X_k| + s, and
 * rho = (1 + 4u)^times - 1 the powering's (docs/accounting.md, "Powers in the frequency domain").
 */
export function powerMasses(x: Float64Array, times: number, N: number): { circle: Float64Array; fft: number } {
  const w = wasm();
  const n = x.length;
  charge(N);
  const [, bits] = pow2(N);
  const mass = l1(x);
  if (mass === 0) return { circle: new Float64Array(N), fft: 0 }; // nothing finite: the power is 0, exactly
  const slack = 32 * U * bits * mass;
  const [tw, table] = twiddleTable(w, N);
  const { circle, sums } = inArena(w, 8 * (n + N + 2 * N + 2), (at) => {
    const input = at;
    const out = input + 8 * n;
    const work = out + 8 * N;
    const sumsAt = work + 16 * N;
    f64(w, input, n).set(x);
    w.power(input, n, times, out, N, work, N, tw, table, slack, sumsAt);
    return { circle: f64(w, out, N).slice(), sums: f64(w, sumsAt, 2).slice() };
  });
  for (let i = 0; i < N; i++) if (circle[i]! < 0) circle[i] = 0;
  const rho = Math.expm1(4 * U * times);
  // 2^-400 covers the powers taken as 0 and the bases whose squares would underflow (assembly/accounting/fft.ts).
  const fft = times * slack * Math.sqrt(sums[0]!) + (rho + 32 * U * bits * (1 + rho)) * Math.sqrt(sums[1]!) + 2 ** -400;
  return { circle, fft: fft >= 0 ? roundUp(fft) : Infinity }; // never NaN: an unusable bound is no bound
}

/**
 * The composition of several distributions in one transform (docs/accounting.md, "Products in the
 * frequency domain"): the inverse transform of the product of their transforms on a circle of N
 * points, N covering the window where all but 2^-60 of each tail of the sum lies (tails.ts), as
 * selfCompose does for one distribution. The inputs' errors carry through the product:
 * (x_1 + d_1) * ... * (x_J + d_J) - x_1 * ... * x_J is the sum over j of d_j times the others
 * (the ones before j exact, those after with their errors), so within
 * sum_j |d_j| prod_{i != j} (|x_i|_1 + |d_i|_1), in l1 and (Young) in l2 with |d_j|_2.
 */
export function composeAll(pmfs: readonly Pmf[]): Pmf {
  if (pmfs.length === 1) return pmfs[0]!;
  const tails = sumTails(pmfs.map((p) => ({ x: p.probs, times: 1, e1: p.error1 })));
  const { lo, hi } = tails.window(WINDOW_TAIL);
  const [N] = pow2(pmfs.reduce((most, p) => Math.max(most, p.probs.length), hi - lo + 1));
  const { circle, fft, norms } = productMasses(
    pmfs.map((p) => p.probs),
    N,
  );
  const probs = rotated(circle, lo);
  // prod_{i != j} (|x_i|_1 + e1_i) from the products before and after j; the bound's own
  // roundings (2 J products and sums) within a relative (4 J + 4) u, added.
  const whole = pmfs.map((p, j) => norms[j]! + p.infinity + p.error1);
  const before = [1];
  for (const w of whole) before.push(before[before.length - 1]! * w);
  let after = 1;
  let carried = 0;
  let carried1 = 0;
  for (let j = pmfs.length - 1; j >= 0; j--) {
    const others = before[j]! * after;
    carried += pmfs[j]!.error * others;
    carried1 += pmfs[j]!.error1 * others;
    after *= whole[j]!;
  }
  const grow = 1 + (4 * pmfs.length + 4) * U;
  const error = roundUp((fft / Math.sqrt(N) + carried) * grow);
  const error1 = roundUp((fft + carried1) * grow);
  let kept = 0; // ln of the probability that no release's loss is infinite
  for (const p of pmfs) kept += Math.log1p(-p.infinity);
  const infinity = Math.min(1, roundUp(-Math.expm1(kept) * grow) + tails.above(lo + N));
  return cut({ lower: pmfs.reduce((sum, p) => sum + p.lower, 0) + lo, probs, infinity, error, error1 });
}

/** The circle's values from index lo on (the window lo .. lo + N - 1 sits on the circle at index mod N). */
function rotated(circle: Float64Array, lo: number): Float64Array {
  const N = circle.length;
  const start = lo % N;
  const probs = new Float64Array(N);
  probs.set(circle.subarray(start));
  probs.set(circle.subarray(0, start), N - start);
  return probs;
}

/**
 * The circular convolution of the mass arrays xs, period N (a power of two >= each length),
 * negative results set to 0, and a bound on the l1 norm of its rounding error: with s_j =
 * 32 u log2(N) |x_j|_1 each transform's error at every frequency and m_jk = |X_jk| + s_j, the
 * product at frequency k errs by at most M_k (S_k + rho), M_k = prod_j m_jk, S_k = sum_j s_j / m_jk,
 * rho = (1 + 4u)^J - 1 the J products' rounding; over the N frequencies in l2,
 * sqrt(sum (M_k S_k)^2) + rho sqrt(sum M_k^2), plus the inverse transform's 32 u log2(N) |Y|_2.
 * `norms`: each array's l1 norm, as the bound used it.
 */
export function productMasses(xs: readonly Float64Array[], N: number): { circle: Float64Array; fft: number; norms: Float64Array } {
  const w = wasm();
  charge(N);
  const [, bits] = pow2(N);
  const longest = xs.reduce((most, x) => Math.max(most, x.length), 0); // no spread: there may be 1e5 arrays
  const h = N / 2;
  const [tw, table] = twiddleTable(w, N);
  const norms = Float64Array.from(xs, l1);
  const { circle, sums } = inArena(w, 8 * (longest + N + 4 * (h + 1) + 2), (at) => {
    const input = at;
    const work = input + 8 * longest;
    const spectrum = work + 8 * N;
    const moduli = spectrum + 16 * (h + 1);
    const slopes = moduli + 8 * (h + 1);
    const sumsAt = slopes + 8 * (h + 1);
    w.productStart(spectrum, moduli, slopes, N);
    xs.forEach((x, j) => {
      f64(w, input, x.length).set(x);
      w.productStep(input, x.length, N, work, tw, table, 32 * U * bits * norms[j]!, spectrum, moduli, slopes);
    });
    w.productEnd(spectrum, moduli, slopes, work, N, work, tw, table, sumsAt);
    return { circle: f64(w, work, N).slice(), sums: f64(w, sumsAt, 2).slice() };
  });
  for (let i = 0; i < N; i++) if (circle[i]! < 0) circle[i] = 0;
  const rho = Math.expm1(4 * U * xs.length);
  // 2^-400 covers the products taken as 0 (below 2^-600 at each of N frequencies).
  const fft = Math.sqrt(sums[0]!) + (rho + 32 * U * bits * (1 + rho)) * Math.sqrt(sums[1]!) + 2 ** -400;
  return { circle, fft: fft >= 0 ? roundUp(fft) : Infinity, norms };
}

/**
 * For the lower bound (docs/accounting.md, "The certified range"): the P- and the Q-masses of the
 * loss rounded down to the grid, composed bin by bin; with bounds on the l1 norm of their errors.
 */
export interface FloorPair {
  readonly lower: number;
  readonly p: Float64Array;
  /** Q-masses tilted by e^(loss + tilt). */
  readonly q: Float64Array;
  readonly tilt: number;
  readonly errorP: number;
  readonly errorQ: number;
  /** Where each mass is within this relative error of the true one (a base pair's bins; errorP and errorQ then that times the l1 norms). */
  readonly relative?: number;
}

/**
 * The convolution of two mass arrays (b undefined: a with itself) by FFT of size N, with negative
 * results set to 0 (the true masses are >= 0: only closer to them), and the bound on the l2 norm
 * of its rounding error (fftError, of the unclamped result).
 */
export function convolveMasses(a: Float64Array, b: Float64Array | undefined): { masses: Float64Array; fft: number; N: number } {
  const w = wasm();
  const na = a.length;
  const other = b ?? a;
  const nb = other.length;
  const length = na + nb - 1;
  if (!(length <= MAX_LENGTH)) throw tooLong(length);
  const [N, bits] = pow2(length);
  charge(N);
  const [tw, table] = twiddleTable(w, N);
  const masses = inArena(w, 8 * (na + nb + length + 2 * N), (at) => {
    const pa = at;
    const pb = pa + 8 * na;
    const result = pb + 8 * nb;
    const work = result + 8 * length;
    f64(w, pa, na).set(a);
    if (b) {
      f64(w, pb, nb).set(b);
      w.convolve(pa, na, pb, nb, result, work, N, tw, table);
    } else w.square(pa, na, result, work, N, tw, table);
    return f64(w, result, length).slice();
  });
  const fft = fftError(bits, a, other, masses);
  for (let i = 0; i < length; i++) if (masses[i]! < 0) masses[i] = 0;
  return { masses, fft, N };
}

/**
 * `times` compositions of a floor pair with itself, each law in one transform as selfCompose does
 * (docs/accounting.md, "The certified range"), on one circle of N points covering both sums'
 * windows, so that the P- and Q-masses keep one index. Wrapping around the circle lowers the floor
 * except in two directions, whose bounds go to the errors: P-mass below the window (at most 2^-60,
 * the window's tail) lands at larger losses, and Q-mass at or above lo + N (its Chernoff bound)
 * at smaller ones. P-mass wrapping down and Q-mass wrapping up only lower the floor.
 */
export function powerFloor(x: FloorPair, times: number): FloorPair {
  if (times === 1) return x;
  const tailsP = sumTails([{ x: x.p, times, e1: x.errorP }]);
  const tailsQ = sumTails([{ x: x.q, times, e1: x.errorQ }]);
  const [p, q] = [tailsP.window(WINDOW_TAIL), tailsQ.window(WINDOW_TAIL)];
  const lo = Math.min(p.lo, q.lo);
  const [N] = pow2(Math.max(Math.max(p.hi, q.hi) - lo + 1, x.p.length));
  const powerP = powerMasses(x.p, times, N);
  const powerQ = powerMasses(x.q, times, N);
  return {
    lower: times * x.lower + lo,
    p: rotated(powerP.circle, lo),
    q: rotated(powerQ.circle, lo),
    tilt: times * x.tilt,
    errorP: roundUp(powerP.fft + carriedError(times, l1(x.p), x.errorP, x.errorP) + WINDOW_TAIL),
    errorQ: roundUp(powerQ.fft + carriedError(times, l1(x.q), x.errorQ, x.errorQ) + tailsQ.above(lo + N)),
  };
}

/** Two floor pairs composed; the outcomes in the far tails of both masses are left out of every test set (which keeps the bound valid). */
export function convolveFloor(a: FloorPair, b: FloorPair | undefined): FloorPair {
  const other = b ?? a;
  const { masses: p, fft: fftP, N } = convolveMasses(a.p, b?.p);
  const { masses: q, fft: fftQ } = convolveMasses(a.q, b?.q);
  // l1 bounds: sqrt(N) times the l2 ones (N entries).
  const errorP = convolutionError(Math.sqrt(N) * fftP, a.errorP, l1(a.p), other.errorP, l1(other.p));
  const errorQ = convolutionError(Math.sqrt(N) * fftQ, a.errorQ, l1(a.q), other.errorQ, l1(other.q));
  // Keep the entries where either law has more than the budget of mass beyond them.
  const budget = Math.max(tailBudget(p), tailBudget(q));
  let left = 0;
  let mp = 0;
  let mq = 0;
  while (left < p.length - 1 && mp + p[left]! <= budget && mq + q[left]! <= budget) {
    mp += p[left]!;
    mq += q[left++]!;
  }
  let right = p.length;
  mp = 0;
  mq = 0;
  while (right - 1 > left && mp + p[right - 1]! <= budget && mq + q[right - 1]! <= budget) {
    mp += p[--right]!;
    mq += q[right]!;
  }
  return { lower: a.lower + other.lower + left, p: p.slice(left, right), q: q.slice(left, right), tilt: a.tilt + other.tilt, errorP, errorQ };
}
