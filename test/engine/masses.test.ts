import { describe, expect, it } from 'vitest';
import { composeAll, convolveMasses, powerMasses, productMasses } from '../../src/engine/masses.js';
import { gaussianDelta } from '../../src/index.js';
import { eventPmf, pmfDelta, pmfEpsilon } from '../../src/engine/pld.js';
import { lcg } from '../helpers.js';

/** Masses that are multiples of 2^-20 below 1: products and sums of up to 2^12 of them are exact doubles. */
function masses(n: number, random: () => number, sparse = false): Float64Array {
  return Float64Array.from({ length: n }, () => (sparse && random() < 0.9 ? 0 : Math.floor(random() * 2 ** 20) * 2 ** -20));
}

/** The exact convolution (every product and partial sum is exact, see masses). */
function exact(a: Float64Array, b: Float64Array): Float64Array {
  const c = new Float64Array(a.length + b.length - 1);
  for (let i = 0; i < a.length; i++) for (let j = 0; j < b.length; j++) c[i + j]! += a[i]! * b[j]!;
  return c;
}

describe('convolution by FFT (docs/accounting.md, "Composition by FFT")', () => {
  it('convolve and square are within the stated l2 bound of the exact convolution, and not far from it', () => {
    const random = lcg(2026);
    const worst = { convolve: 0, square: 0 };
    for (const [na, nb] of [
      [1, 1],
      [3, 5],
      [100, 1],
      [257, 255],
      [1000, 3000],
      [2048, 2048],
    ] as const) {
      for (const sparse of [false, true]) {
        const a = masses(na, random, sparse);
        const b = masses(nb, random, sparse);
        for (const [x, y] of [
          [a, b],
          [a, undefined],
        ] as const) {
          const { masses: c, fft } = convolveMasses(x, y);
          const want = exact(x, y ?? x);
          expect(c.length).toBe(want.length);
          let l2 = 0;
          for (let k = 0; k < c.length; k++) l2 += (Math.max(0, want[k]!) - c[k]!) ** 2; // negatives are set to 0, as the true masses are >= 0
          const error = Math.sqrt(l2);
          expect(error, `${na} x ${y ? nb : 'itself'}`).toBeLessThanOrEqual(fft);
          const which = y ? 'convolve' : 'square';
          if (fft > 0) worst[which] = Math.max(worst[which], error / fft);
        }
      }
    }
    // The bound is about four times the estimate it rests on: measured errors are far below it.
    for (const ratio of Object.values(worst)) {
      expect(ratio).toBeLessThan(0.05); // measured 0.0075 (convolve) and 0.0027 (square)
      expect(ratio).toBeGreaterThan(0); // the comparison sees rounding at all
    }
  });
});

/** The exact times-fold circular self-convolution, period N, of masses that are multiples of 2^-bits (in BigInt). */
const exactPower = (x: Float64Array, times: number, N: number, bits: number): Float64Array => exactProduct(new Array(times).fill(x), N, bits);

describe('powers in the frequency domain (docs/accounting.md, "Powers in the frequency domain")', () => {
  it('powerMasses is within its l1 bound of the exact circular power, aliasing included, and not far from it', () => {
    const random = lcg(2027);
    let worst = 0;
    for (const [n, times, N, bits] of [
      [1, 3, 2, 20],
      [5, 2, 16, 20],
      [8, 7, 64, 20],
      [16, 25, 128, 20], // the linear result (376 masses) wraps around a circle of 128
      [3, 200, 512, 4],
      [40, 12, 256, 20],
    ] as const) {
      const raw = masses(n, random);
      const total = raw.reduce((a, b) => a + b, 0);
      // Masses summing to at most 1, as a distribution's do (the bound uses |X_k| <= 1).
      const x = total > 1 ? raw.map((v) => Math.floor((v / total) * 2 ** bits) * 2 ** -bits) : raw.map((v) => Math.floor(v * 2 ** bits) * 2 ** -bits);
      const { circle, fft } = powerMasses(x, times, N);
      const want = exactPower(x, times, N, bits);
      let l1 = 0;
      for (let k = 0; k < N; k++) l1 += Math.abs(want[k]! - circle[k]!);
      expect(l1, `${n} masses, ${times} times, period ${N}`).toBeLessThanOrEqual(fft);
      worst = Math.max(worst, l1 / fft);
    }
    expect(worst).toBeLessThan(0.05); // measured 0.0055
    expect(worst).toBeGreaterThan(0); // the comparison sees rounding at all
  });

  it('an empty input powers to 0 with no error, and the bound is never NaN', () => {
    const { circle, fft } = powerMasses(new Float64Array(5), 7, 16);
    expect(Array.from(circle)).toEqual(new Array(16).fill(0));
    expect(fft).toBe(0);
    // Masses above 1 (never a distribution's) make the bound overflow: Infinity, not NaN.
    expect(powerMasses(Float64Array.of(0.6, 0.6), 5000, 16).fft).toBe(Infinity);
  });
});

/** The exact circular convolution, period N, of mass arrays whose masses are multiples of 2^-bits (in BigInt). */
function exactProduct(xs: Float64Array[], N: number, bits: number): Float64Array {
  let result = [1n];
  for (const x of xs) {
    const integers = Array.from(x, (v) => BigInt(v * 2 ** bits));
    const next = new Array<bigint>(result.length + integers.length - 1).fill(0n);
    for (let i = 0; i < result.length; i++) for (let j = 0; j < integers.length; j++) next[i + j]! += result[i]! * integers[j]!;
    result = next;
  }
  const circle = new Array<bigint>(N).fill(0n);
  result.forEach((c, k) => {
    circle[k % N]! += c;
  });
  const scale = 2 ** -(bits * xs.length);
  return Float64Array.from(circle, (c) => Number(c) * scale);
}

describe('products in the frequency domain (docs/accounting.md, "Products in the frequency domain")', () => {
  it('productMasses is within its l1 bound of the exact circular convolution of distinct arrays, aliasing included, and not far from it', () => {
    const random = lcg(2028);
    let worst = 0;
    for (const [count, n, N, bits] of [
      [1, 5, 8, 20],
      [2, 1, 2, 20],
      [3, 7, 16, 20],
      [12, 16, 64, 12], // the linear result (181 masses) wraps around a circle of 64
      [40, 9, 512, 6],
    ] as const) {
      const xs = Array.from({ length: count }, (_, j) => {
        const raw = masses(n + (j % 3), random);
        const total = raw.reduce((a, b) => a + b, 0);
        return raw.map((v) => Math.floor((v / Math.max(1, total)) * 2 ** bits) * 2 ** -bits);
      });
      const { circle, fft } = productMasses(xs, N);
      const want = exactProduct(xs, N, bits);
      let l1 = 0;
      for (let k = 0; k < N; k++) l1 += Math.abs(want[k]! - circle[k]!);
      expect(l1, `${count} arrays of about ${n} masses, period ${N}`).toBeLessThanOrEqual(fft);
      worst = Math.max(worst, l1 / fft);
    }
    expect(worst).toBeLessThan(0.05);
    expect(worst).toBeGreaterThan(0); // the comparison sees rounding at all
  });

  it('composeAll takes 10^5 different releases (no argument list that long), their epsilons adding up', () => {
    const h = 2 ** -8;
    const epsilons = Array.from({ length: 1e5 }, (_, j) => 1e-6 * (1 + (j % 997) / 997));
    const pmf = composeAll(epsilons.map((epsilon) => eventPmf({ type: 'pure', epsilon }, h, 0)));
    const total = epsilons.reduce((sum, e) => sum + e, 0); // 0.15: basic composition, an upper bound on every delta-epsilon
    expect(pmfDelta(pmf, h, 0)).toBeGreaterThan(0);
    expect(pmfDelta(pmf, h, total)).toBeGreaterThanOrEqual(0);
    expect(pmfEpsilon(pmf, h, 1e-6)).toBeLessThan(Number.POSITIVE_INFINITY);
  });

  it('composeAll of distinct Gaussian releases is an upper bound on their closed form (mu = sqrt(sum mu_j^2)), close to it', () => {
    const h = 1e-3;
    const mus = Array.from({ length: 30 }, (_, j) => 0.1 + 0.01 * j);
    const pmf = composeAll(mus.map((mu) => eventPmf({ type: 'gaussian', mu }, h, 0)));
    const mu = Math.sqrt(mus.reduce((sum, m) => sum + m * m, 0));
    for (const eps of [0, 0.5, 1, 2]) {
      const exact = gaussianDelta(mu, eps);
      const bound = pmfDelta(pmf, h, eps);
      expect(bound).toBeGreaterThanOrEqual(exact);
      expect(bound).toBeLessThan(exact * 1.001 + 1e-14);
    }
  });
});
