// Shared test helpers: both WebAssembly builds, fixtures, error measures, a covariance check and
// the check that an error withholds a private value.
//
// Tolerances. A tolerance on a floating-point result compared with a reference (an mpmath
// fixture, a closed form) is written as k * EPS with a comment giving the reason for k: a
// documented error bound, or the roundings and round-ups between the two sides, and the error
// measured today. Statistical tolerances (standard errors, chi-square and KS critical values) are
// not machine-epsilon tolerances; each says what it is where it is used.
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { expect } from 'vitest';
import { embeddedBytes } from '../src/wasm/embedded-init.js';
import { useExactPath } from '../src/noise/discrete-exact.js';
import { instantiateSync, type WasmExports } from '../src/wasm/loader.js';

/**
 * Machine epsilon, 2^-52 = 2.22e-16: the spacing of doubles in [1, 2), so one ulp of a double is
 * at most EPS relative. (docs/README.md writes u = 2^-53 = EPS / 2 for the unit roundoff.)
 */
export const EPS = Number.EPSILON;

/**
 * The library's relative margin on every calibrated noise scale: scales are multiplied by
 * 1 + 2^-36 (src/core/domains.ts; docs/calibration.md, "Rounding safety"). 2^-36 = 2^16 EPS.
 */
export const SAFETY = 2 ** 16 * EPS;

/**
 * The accounting's round-up: sums, distances and epsilons are multiplied by 1 + 2^-50
 * (src/accounting/privacy.ts; docs/accounting.md, "Accounting"). 2^-50 = 4 EPS.
 */
export const ROUND_UP = 4 * EPS;

/**
 * The root searches of gaussianMu and gaussianEpsilon stop within 1e-12 relative
 * (docs/accounting.md, "Calibration"): 1e-12 = 4503.6 EPS, rounded down.
 */
export const SEARCH = 4503 * EPS;

useExactPath(); // the tests below call the discrete kernels of these instances directly

/** The scalar and the SIMD build, each in its own instance, for parity tests. */
export const builds: ReadonlyArray<readonly [string, WasmExports]> = [
  ['scalar', instantiateSync(embeddedBytes(false))],
  ['simd', instantiateSync(embeddedBytes(true))],
];

export function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as T;
}

/** |actual - expected| / |expected| (absolute when expected is 0). */
export function relativeError(actual: number, expected: number): number {
  if (expected === 0) return Math.abs(actual);
  return Math.abs(actual - expected) / Math.abs(expected);
}

/** Neumaier-compensated sum, independent of the library's own. */
export function exactSum(values: Iterable<number>): number {
  let sum = 0;
  let c = 0;
  for (const x of values) {
    const t = sum + x;
    c += Math.abs(sum) >= Math.abs(x) ? sum - t + x : x - t + sum;
    sum = t;
  }
  return sum + c;
}

/** Asserts relative error within tol and reports the failing point in full (errors also in EPS). */
export function expectClose(actual: number, expected: number, tol: number, where: string): void {
  const err = relativeError(actual, expected);
  if (!(err <= tol)) {
    throw new Error(
      `${where}: expected ${expected}, got ${actual}; relative error ${err.toExponential(3)} (${(err / EPS).toFixed(2)} EPS) > tolerance ${tol} (${(tol / EPS).toFixed(2)} EPS)`,
    );
  }
}

/** Asserts |actual - expected| <= tol (an absolute tolerance) and reports the failing point in full. */
export function expectNear(actual: number, expected: number, tol: number, where: string): void {
  const err = Math.abs(actual - expected);
  if (!(err <= tol)) {
    throw new Error(
      `${where}: expected ${expected}, got ${actual}; absolute error ${err.toExponential(3)} (${(err / EPS).toFixed(2)} EPS) > tolerance ${tol} (${(tol / EPS).toFixed(2)} EPS)`,
    );
  }
}

/** Every entry of zero-mean Gaussian noise's empirical covariance within 5 standard errors of the design. */
export function expectCovariance(empirical: (i: number, j: number) => number, design: number[][], releases: number): void {
  design.forEach((row, i) => {
    row.forEach((cov, j) => {
      const se = Math.sqrt((design[i]![i]! * design[j]![j]! + cov ** 2) / releases);
      expect(Math.abs(empirical(i, j) - cov), `cov(${i}, ${j})`).toBeLessThan(5 * se);
    });
  });
}

/** A small deterministic generator of uniforms in [0, 1) for test inputs (a 32-bit LCG; never for noise). */
export function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * The error `call` throws (or rejects with) for a private value: of type `ErrorType`, naming
 * `names` (the argument, an index or a line), and holding none of `secrets` (the value's text)
 * anywhere a caller could print it: message, properties, cause.
 */
export async function expectWithheld(
  call: () => unknown,
  ErrorType: new (...args: never[]) => Error,
  names: readonly string[],
  secrets: readonly string[],
): Promise<void> {
  let thrown: unknown;
  try {
    await call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ErrorType);
  for (const name of names) expect((thrown as Error).message).toContain(name);
  const printed = inspect(thrown, { depth: 5 });
  for (const secret of secrets) expect(printed).not.toContain(secret);
}

/** An array of `values` whose entries count their reads in `counter.reads`: to show that a call read none of them. */
export function watchedArray(values: readonly number[], counter: { reads: number }): number[] {
  const array = new Array<number>(values.length);
  values.forEach((value, i) => {
    Object.defineProperty(array, i, {
      get: () => {
        counter.reads++;
        return value;
      },
    });
  });
  return array;
}
