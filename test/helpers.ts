// Shared test helpers: both WebAssembly builds, fixtures, error measures and a covariance check.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { embeddedBytes, instantiateSync, type WasmExports } from '../src/wasm/loader.js';

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

/** Asserts relative error within tol and reports the failing point in full. */
export function expectClose(actual: number, expected: number, tol: number, where: string): void {
  const err = relativeError(actual, expected);
  if (!(err <= tol)) {
    throw new Error(`${where}: expected ${expected}, got ${actual}; relative error ${err.toExponential(3)} > tolerance ${tol}`);
  }
}

/** Every entry of zero-mean Gaussian noise's empirical covariance within 5 standard errors of the design. */
export function expectCovariance(empirical: (i: number, j: number) => number, design: number[][], releases: number): void {
  design.forEach((row, i) => row.forEach((cov, j) => {
    const se = Math.sqrt((design[i]![i]! * design[j]![j]! + cov ** 2) / releases);
    expect(Math.abs(empirical(i, j) - cov), `cov(${i}, ${j})`).toBeLessThan(5 * se);
  }));
}
