// The staircase's calibration over long profiles (docs/staircase.md, "Moments", "Splitting the
// budget"): its moments E|X|^p, and, chunk by chunk, the budgets eps_i of the optimal split for a
// multiplier nu (read off a log-log table of -V_p' that the host fills), then each coordinate's
// shape and moment.
import { PROFILE, WEIGHTS } from "../memory";

/** The largest errorPower (src/calibrate/staircase.ts, STAIRCASE_POWERS). */
const POWERS: i32 = 8;
/**
 * The table's points (src/calibrate/staircase.ts fills them): at log eps = first + t step,
 * log(-V_p'(eps)) (descending) and the best shape.
 */
const TABLE_POINTS: i32 = 14337;
let first: f64 = 0.0;
let step: f64 = 0.0;
const LOG_SLOPE: usize = memory.data(TABLE_POINTS << 3, 16);
const SHAPE: usize = memory.data(TABLE_POINTS << 3, 16);
/** Eulerian numbers A(j, m) (row j, m < j; A(0, 0) = 1) and binomials C(n, k), n <= POWERS + 1, in rows of POWERS + 2. */
const ROW: i32 = POWERS + 2;
const EULERIAN: usize = memory.data(ROW * ROW * 8, 16);
const BINOMIAL: usize = memory.data(ROW * ROW * 8, 16);
/** C(p + 1, j) S_j for j <= p, of the moment in hand. */
const TERMS: usize = memory.data(ROW * 8, 16);
let filled = false;

// @ts-ignore: decorator
@inline function at(base: usize, i: i32): f64 {
  return load<f64>(base + (<usize>i << 3));
}
// @ts-ignore: decorator
@inline function put(base: usize, i: i32, x: f64): void {
  store<f64>(base + (<usize>i << 3), x);
}

/**
 * Fills the Eulerian numbers, A(j, m) = (m + 1) A(j-1, m) + (j - m) A(j-1, m-1), and Pascal's
 * triangle, once; exact in doubles. Entries past a row's end are the memory's zeros.
 */
function fillCoefficients(): void {
  if (filled) return;
  put(EULERIAN, 0, 1.0);
  put(BINOMIAL, 0, 1.0);
  for (let j = 1; j <= POWERS + 1; j++) {
    const previous = (j - 1) * ROW;
    for (let m = 0; m < j && j <= POWERS; m++) {
      put(EULERIAN, j * ROW + m, <f64>(m + 1) * at(EULERIAN, previous + m) + (m > 0 ? <f64>(j - m) * at(EULERIAN, previous + m - 1) : 0.0));
    }
    put(BINOMIAL, j * ROW, 1.0);
    for (let k = 1; k <= j; k++) put(BINOMIAL, j * ROW + k, at(BINOMIAL, previous + k - 1) + at(BINOMIAL, previous + k));
  }
  filled = true;
}

/**
 * E|X|^p of the staircase of sensitivity 1, budget epsilon and shape gamma, for a whole p from 1
 * to 8 (docs/staircase.md, "Moments"): with b = e^-epsilon and S_j = sum over k >= 0 of k^j b^k
 * (the Eulerian numbers over (1 - b)^(j+1)),
 *   E|X|^p = (1 - b) / ((p + 1) (gamma + b (1 - gamma))) sum_{j <= p} C(p + 1, j) (gamma^(p+1-j) + b (1 - gamma^(p+1-j))) S_j,
 * every term positive, so no cancellation.
 */
export function staircaseMoment(p: i32, gamma: f64, epsilon: f64): f64 {
  fillCoefficients();
  const b = Math.exp(-epsilon);
  const ob = -Math.expm1(-epsilon); // 1 - b without cancellation
  let over = 1.0 / ob; // 1 / (1 - b)^(j+1)
  for (let j = 0; j <= p; j++) {
    // S_j (1 - b)^(j+1) = sum_m A(j, m) b^(m+1) by Horner's rule (1 for j = 0)
    let s = 0.0;
    for (let m = max(j - 1, 0); m >= 0; m--) s = s * b + at(EULERIAN, j * ROW + m);
    put(TERMS, j, at(BINOMIAL, (p + 1) * ROW + j) * (j > 0 ? s * b : s) * over);
    over /= ob;
  }
  let sum = 0.0;
  let g = gamma; // gamma^(p+1-j), from j = p down (so a tiny gamma's own power is never lost to underflow)
  for (let j = p; j >= 0; j--) {
    sum += at(TERMS, j) * (g + b * (1.0 - g));
    g *= gamma;
  }
  return ((ob / <f64>(p + 1)) * sum) / (gamma + b * (1.0 - gamma));
}

/** The table's budgets, log eps = first + t step for t < TABLE_POINTS, and its columns for the host to fill: log(-V_p'(eps)) and the best shape. */
export function staircaseTableGrid(logFirst: f64, logStep: f64): void {
  first = logFirst;
  step = logStep;
}
export function staircaseSlopePointer(): usize {
  return LOG_SLOPE;
}
export function staircaseShapePointer(): usize {
  return SHAPE;
}

/** The table position (lo + f, f in [0, 1]) of log(-V_p') = y, clamped to the table, by bisection. */
let fraction: f64 = 0.0;
function locate(y: f64): i32 {
  if (y >= at(LOG_SLOPE, 0)) {
    fraction = 0.0;
    return 0;
  }
  if (y <= at(LOG_SLOPE, TABLE_POINTS - 1)) {
    fraction = 1.0;
    return TABLE_POINTS - 2;
  }
  let lo = 0;
  let hi = TABLE_POINTS - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (at(LOG_SLOPE, mid) > y) lo = mid;
    else hi = mid;
  }
  fraction = (y - at(LOG_SLOPE, lo)) / (at(LOG_SLOPE, hi) - at(LOG_SLOPE, lo));
  return lo;
}

/**
 * The split for multiplier nu over a chunk: PROFILE holds n log weights log c_i (NaN where the
 * sensitivity is 0), and eps_i solves c_i (-V_p'(eps_i)) = nu, read off the table linearly in
 * log-log; writes eps_i into WEIGHTS (0 where NaN) when `write`, and returns their sum.
 */
export function staircaseSplit(n: i32, logNu: f64, write: bool): f64 {
  let sum = 0.0;
  for (let i = 0; i < n; i++) {
    const lc = at(PROFILE, i);
    let e = 0.0;
    if (!isNaN(lc)) {
      const lo = locate(logNu - lc);
      e = Math.exp(first + (<f64>lo + fraction) * step);
    }
    sum += e;
    if (write) put(WEIGHTS, i, e);
  }
  return sum;
}

/**
 * Each coordinate's shape and moment for the budgets eps_i in PROFILE (n of them; 0 for none):
 * the shape of least E|X|^p (1 / (1 + e^(eps/2)) for p = 1; else the table's, interpolated in log
 * eps, whose error is second order in the shape's) into WEIGHTS, and E|X|^p at it in place of
 * eps_i (0 for none; the shape 0.5).
 */
export function staircaseShapes(n: i32, p: i32): void {
  for (let i = 0; i < n; i++) {
    const e = at(PROFILE, i);
    if (!(e > 0.0)) {
      put(WEIGHTS, i, 0.5);
      put(PROFILE, i, 0.0);
      continue;
    }
    let gamma: f64;
    if (p == 1) {
      gamma = 1.0 / (1.0 + Math.exp(0.5 * e));
    } else {
      const t = Math.min(<f64>(TABLE_POINTS - 1), Math.max(0.0, (Math.log(e) - first) / step));
      const k = min(<i32>t, TABLE_POINTS - 2);
      const f = t - <f64>k;
      gamma = at(SHAPE, k) + f * (at(SHAPE, k + 1) - at(SHAPE, k));
    }
    put(WEIGHTS, i, gamma);
    put(PROFILE, i, staircaseMoment(p, gamma, e));
  }
}
