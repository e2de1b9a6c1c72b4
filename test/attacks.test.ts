// The adversarial review's attacks, one class per block: what a careless or hostile caller does to
// objects handed out, options and arrays handed in, and what an observer learns from low bits.
import { afterEach, describe, expect, it } from 'vitest';
import {
  compose,
  correlatedSum,
  createRng,
  gaussianMechanism,
  gaussianNoise,
  gaussianPrivacy,
  laplaceMechanism,
  laplacePrivacy,
  type Rng,
} from '../src/index.js';
import { built } from './built.js'; // workers load dist/noise/worker.js
import { EPS, expectClose, lcg } from './helpers.js';

const { addGaussianNoiseParallel, createRng: createDistRng } = built;

const seeded = (seed: number) => ({ rng: createRng({ seed }) });

describe('a mechanism cannot be changed after it is built', () => {
  it('sorting or zeroing the scales and sensitivities it shows changes neither its privacy nor its release', () => {
    for (const mode of ['grid', 'continuous'] as const) {
      const m = laplaceMechanism({ sensitivity: [1, 0.01, 0.5], epsilon: 1, mode });
      const before = m.release([0, 0, 0], seeded(1));
      const epsilon = m.privacy.epsilonPure;
      m.scales.sort();
      m.scales.fill(0);
      m.sensitivity.fill(0);
      expect(m.release([0, 0, 0], seeded(1)), mode).toEqual(before);
      expect(
        m.release([0, 0, 0]).some((x) => x !== 0),
        `${mode}: still noisy`,
      ).toBe(true);
      expect(m.privacy.epsilonPure).toBe(epsilon);
    }
  });

  it('is frozen, and so is its privacy object', () => {
    const m = gaussianMechanism({ sensitivity: [1, 2], epsilon: 1, delta: 1e-6 });
    expect(Object.isFrozen(m)).toBe(true);
    expect(Object.isFrozen(m.privacy)).toBe(true);
    expect(() => {
      (m as { scales: unknown }).scales = new Float64Array(2);
    }).toThrow(TypeError);
    expect(() => {
      (m as { release: unknown }).release = () => new Float64Array(2);
    }).toThrow(TypeError);
    expect(() => {
      (m.privacy as { delta: unknown }).delta = () => 0;
    }).toThrow(TypeError);
    const c = correlatedSum({ dimension: 3, epsilon: 1, delta: 1e-6 });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("copies the arrays it is built from: reusing the caller's sizes, sensitivity or weights buffers changes nothing", () => {
    const sizes = Float64Array.from([3, 2]);
    const sensitivity = Float64Array.from([1, 0.2]);
    const m = gaussianMechanism({ groups: { sizes, sensitivity }, epsilon: 1, delta: 1e-6 });
    const before = m.release(new Float64Array(5), seeded(2));
    sizes.set([1, 4]);
    sensitivity.set([1e-9, 1e-9]);
    expect(m.release(new Float64Array(5), seeded(2))).toEqual(before);
    const weights = Float64Array.from([1, 1]);
    const w = laplaceMechanism({ sensitivity: [1, 1], weights, epsilon: 1 });
    const withWeights = w.release([0, 0], seeded(3));
    weights.set([1e-100, 1e100]);
    expect(w.release([0, 0], seeded(3))).toEqual(withWeights);
  });

  it("reads every option once, from the caller's own properties: a getter cannot change a value between the check and the use", () => {
    let reads = 0;
    const options = {
      sensitivity: [1],
      get epsilon() {
        reads++;
        return reads === 1 ? 1 : 1e6; // valid when checked, huge afterwards
      },
    };
    const m = laplaceMechanism(options);
    expect(reads).toBe(1);
    expect(m.privacy.epsilonPure).toBeLessThanOrEqual(1);
    let rhoReads = 0;
    const c = correlatedSum({
      dimension: 4,
      get rho() {
        rhoReads++;
        return rhoReads === 1 ? 0.5 : 1e9;
      },
    } as never);
    expect(rhoReads).toBe(1);
    expect(c.privacy!.rho).toBeLessThanOrEqual(0.5);
  });
});

describe('a polluted Object.prototype is never read', () => {
  const prototype = Object.prototype as Record<string, unknown>;
  afterEach(() => {
    delete prototype.rng;
    delete prototype.mode;
    delete prototype.grid;
  });

  it('an inherited `rng` does not make release(q, {}) use a predictable generator', () => {
    const m = laplaceMechanism({ sensitivity: [1, 1, 1, 1], epsilon: 1 });
    prototype.rng = createRng({ seed: 'attacker' }) as Rng;
    const a = m.release([0, 0, 0, 0], {});
    const b = m.release([0, 0, 0, 0], {});
    expect(a).not.toEqual(b); // the CSPRNG, not a seeded generator
    delete prototype.rng;
    expect(a).not.toEqual(m.release([0, 0, 0, 0], { rng: createRng({ seed: 'attacker' }) }));
  });

  it('an inherited `mode` or `grid` does not switch a mechanism to floating-point noise', () => {
    prototype.mode = 'continuous';
    prototype.grid = 2 ** 100;
    const m = gaussianMechanism({ sensitivity: [1], epsilon: 1, delta: 1e-6 });
    expect(m.mode).toBe('grid');
    expect(m.grid).toBeLessThan(1);
  });
});

describe('caller arrays are read through intrinsics, never through their own methods', () => {
  class Hostile extends Float64Array {
    calls = 0;
    override subarray(begin?: number, end?: number): Float64Array<ArrayBuffer> {
      this.calls++;
      gaussianNoise(8, 1); // re-entering the library mid-draw must not happen at all
      return super.subarray(begin, end);
    }
    override get length(): number {
      this.calls++;
      return 2; // lies about its length
    }
  }

  it('a Float64Array subclass overriding subarray and length is never called, and two calls never share noise', () => {
    const scales = new Hostile(16).fill(1);
    const first = gaussianNoise(16, scales);
    const second = gaussianNoise(16, scales);
    expect(scales.calls).toBe(0);
    expect(first.length).toBe(16);
    expect(first.some((x, i) => x === second[i])).toBe(false);
    const values = new Hostile(16);
    const m = laplaceMechanism({ sensitivity: new Hostile(16).fill(1), epsilon: 1 });
    expect(m.release(values).length).toBe(16);
    expect(values.calls).toBe(0);
  });
});

describe('the parallel samplers read their inputs when called, before anything asynchronous', () => {
  // One thread (below the split) and two: the noise is drawn from the inputs as they were when
  // called. The calling thread's range is in `values` when the call returns (all of it on one
  // thread), the workers' ranges are written there once they are drawn, over whatever the caller
  // wrote meanwhile (the thread gate may still choose one thread on busy cores).
  it.each([20_000, 2 * 98_304 + 7])(
    'values and scales changed right after the call (in the same tick or a microtask) change nothing drawn (%i coordinates)',
    async (n) => {
      const values = new Float64Array(n).fill(1);
      const scales = new Float64Array(n).fill(2);
      const expected = await addGaussianNoiseParallel(Float64Array.from(values), Float64Array.from(scales), { rng: createDistRng({ seed: 5 }), threads: 2 });
      const pending = addGaussianNoiseParallel(values, scales, { rng: createDistRng({ seed: 5 }), threads: 2 });
      const atReturn = Float64Array.from(values);
      values.fill(NaN);
      scales.fill(0);
      await Promise.resolve().then(() => values.fill(-1));
      const result = await pending;
      expect(result).toBe(values);
      const drawnAtReturn = atReturn.every((x, i) => x === expected[i]);
      if (n < 2 * 98_304) expect(drawnAtReturn).toBe(true);
      // Split, the calling thread draws [0, n/2) (src/noise/parallel.ts, ranges) and a worker the rest.
      const mine = drawnAtReturn ? n : Math.floor(n / 2);
      const same = (a: Float64Array, b: Float64Array) => a.every((x, i) => x === b[i]); // a toEqual that fails on 2e5 entries takes a minute to print
      expect(same(atReturn.subarray(0, mine), expected.subarray(0, mine))).toBe(true);
      expect(same(result.subarray(mine), expected.subarray(mine))).toBe(true);
    },
  );
});

describe('floating-point low bits (Mironov 2012): no output one neighbour can give and the other cannot', () => {
  /** How many of n releases of one coordinate land in S. */
  function hits(release: (x: number) => number, x: number, S: (y: number) => boolean, n: number): number {
    let count = 0;
    for (let i = 0; i < n; i++) if (S(release(x))) count++;
    return count;
  }

  const lowBits = (lo: number, hi: number, bits: number) => (y: number) => y > lo && y < hi && !Number.isInteger(y * 2 ** bits);
  const sets: Array<[string, (y: number) => boolean]> = [
    ['0 < y < 0.5, y 2^53 not an integer', lowBits(0, 0.5, 53)],
    ['-0.5 < y < 0, y 2^53 not an integer', lowBits(-0.5, 0, 53)],
    ['1 < y < 2, y 2^52 not an integer', lowBits(1, 2, 52)],
    ['-4 < y < -2, y 2^51 not an integer', lowBits(-4, -2, 51)],
  ];

  it('the distinguisher separates neighbours under continuous noise (the test has power) and never under the default', () => {
    for (const sensitivity of [1, 0.3]) {
      const neighbours = [0, sensitivity];
      const mechanisms = [
        ['Laplace', (mode: 'grid' | 'continuous') => laplaceMechanism({ sensitivity: [sensitivity], epsilon: 1, mode })],
        ['Gaussian', (mode: 'grid' | 'continuous') => gaussianMechanism({ sensitivity: [sensitivity], epsilon: 1, delta: 1e-6, mode })],
      ] as const;
      for (const [name, build] of mechanisms) {
        const continuous = build('continuous');
        const safe = build('grid');
        const [S] = sets[0]!;
        const [, inS] = sets[0]!;
        const rng = createRng({ seed: `low bits ${name} ${sensitivity}` }); // seeded: the power check must not depend on luck
        const gap =
          hits((x) => continuous.release([x], { rng })[0]!, neighbours[0]!, inS, 20_000) -
          hits((x) => continuous.release([x], { rng })[0]!, neighbours[1]!, inS, 20_000);
        expect(gap, `${name}, continuous, ${S}`).toBeGreaterThan(100);
        for (const [label, set] of sets) {
          for (const x of neighbours) {
            expect(
              hits((v) => safe.release([v])[0]!, x, set, 20_000),
              `${name}, default, x = ${x}, ${label}`,
            ).toBe(0);
          }
        }
      }
    }
  });

  it('correlated sums: the default release never lands in the low-bit sets either', () => {
    const c = correlatedSum({ dimension: 2, epsilon: 1, delta: 1e-6 });
    for (const [label, set] of sets) {
      for (const sums of [
        [0, 0],
        [1, 0],
      ]) {
        let count = 0;
        for (let i = 0; i < 5000; i++) {
          const { sums: out, count: n } = c.release(sums, 3);
          count += out.filter(set).length + (set(n!) ? 1 : 0);
        }
        expect(count, `${label}, sums ${sums}`).toBe(0);
      }
    }
  });

  it('over random inputs, every default output is an exact multiple of the grid, and the grid is at least 2^-40 of the noise scale', () => {
    const random = lcg(7);
    for (let trial = 0; trial < 300; trial++) {
      const K = 1 + Math.floor(random() * 6);
      const sensitivity = Array.from({ length: K }, () => (random() < 0.2 ? 0 : 10 ** (random() * 8 - 4)));
      const epsilon = 10 ** (random() * 4 - 2);
      const query = Array.from({ length: K }, () => (random() - 0.5) * 10 ** (random() * 12 - 4));
      const ms = [laplaceMechanism({ sensitivity, epsilon }), gaussianMechanism({ sensitivity, epsilon, delta: 1e-6 })];
      for (const m of ms) {
        const g = m.grid!;
        expect(g, 'grid').toBe(2 ** Math.round(Math.log2(g)));
        expect(g).toBeGreaterThanOrEqual(m.scales.reduce((a, s) => Math.max(a, s), 0) * 2 ** -40);
        for (const y of m.release(query)) expect(Number.isInteger(y / g), `${y} on grid ${g}`).toBe(true);
      }
      const d = 1 + Math.floor(random() * 5);
      const bound = 10 ** (random() * 6 - 3);
      const c = correlatedSum({ dimension: d, epsilon, delta: 1e-6, bound });
      const { sums, count } = c.release(
        Array.from({ length: d }, () => random() * bound * 10),
        10,
      );
      for (const y of sums) expect(Number.isInteger(y / c.grid!)).toBe(true);
      expect(Number.isInteger(count! * 2 ** 30)).toBe(true);
    }
  });
});

describe('the last fail-open corners', () => {
  it('a positive privacy loss never rounds to zero, however small', () => {
    const g = gaussianPrivacy({ scales: [1e50], sensitivity: [1e-120] }); // ratio 1e-170: its square underflows
    expect(g.mu).toBeGreaterThan(0);
    // The sum's round-up (4 EPS, halved by the square root), the root's (4 EPS) and the division's rounding: 8 EPS (measured 6.6).
    expectClose(g.mu, 1e-170, 8 * EPS, 'mu');
    expect(g.rho).toBeGreaterThan(0);
    expect(g.epsilon(1e-6)).toBeGreaterThanOrEqual(0);
    const l = laplacePrivacy({ scales: [1e300], sensitivity: [2 ** -400] }); // ratio 2.6e-421: below the smallest double
    expect(l.epsilonPure).toBeGreaterThan(0);
    expect(l.epsilonPure).toBeLessThan(1e-300);
    expect(compose([g, g]).kind).toBe('gdp');
    expect((compose([g, g]) as { mu: number }).mu).toBeGreaterThan(g.mu);
    const tiny = gaussianPrivacy({ scales: [1e300], sensitivity: [2 ** -400] });
    expect(tiny.mu).toBeGreaterThan(0);
    // Composed, the loss stays positive: at delta 0 the composition is never free (at delta 1e-6 its
    // epsilon may well be 0, which is the truth for a loss this small).
    const composed = compose([tiny, laplacePrivacy({ scales: [1e300], sensitivity: [2 ** -400] })]);
    expect(composed.epsilon(0)).toBeGreaterThan(0);
    expect(composed.epsilon(1e-6)).toBeGreaterThanOrEqual(0);
  });

  it('the arrays a mechanism shows are fresh copies on every read: writing one falsifies nothing for other holders', () => {
    const m = gaussianMechanism({ sensitivity: [1, 2], epsilon: 1, delta: 1e-6 });
    const scales = Array.from(m.scales);
    m.scales.fill(1e-9);
    m.sensitivity.fill(0);
    expect(m.scales).not.toBe(m.scales);
    expect(Array.from(m.scales)).toEqual(scales);
    expect(Array.from(m.sensitivity).every((s) => s > 0)).toBe(true);
  });

  it('-0 and 0 give the same release through a zero-sensitivity coordinate', () => {
    for (const mode of ['grid', 'continuous'] as const) {
      const m = laplaceMechanism({ sensitivity: [0, 1], epsilon: 1, mode });
      expect(Object.is(m.release([-0, 0])[0], 0), mode).toBe(true);
      const g = gaussianMechanism({ sensitivity: [0, 1], epsilon: 1, delta: 1e-6, mode });
      expect(Object.is(g.release([-0, 0])[0], 0), mode).toBe(true);
    }
  });

  it('correlatedSum in grid mode refuses sums beyond 2^1000 grid steps before drawing any noise', () => {
    const c = correlatedSum({ dimension: 2, epsilon: 1, delta: 1e-6 });
    const rng = createRng({ seed: 'range' });
    expect(() => c.release([Number.MAX_VALUE, 0], 3, { rng })).toThrow(RangeError);
    expect(() => c.release([Number.MAX_VALUE, 0], 3, { rng })).toThrow(/^dpnoise: `sums\[0\]` must be a finite number of magnitude at most/);
    expect(c.release([1, 0], 3, { rng })).toEqual(c.release([1, 0], 3, { rng: createRng({ seed: 'range' }) })); // nothing was drawn
  });

  it('the default grid is the power of two documented, also just below a power of two', () => {
    // fine = 1024 (1 - 2^-53): the grid is 2^floor(log2(fine / 1024)) = 1/2, not 1.
    const justBelow = 1 - 2 ** -53;
    const m = laplaceMechanism({ sensitivity: [1024 * justBelow], epsilon: 1e6 });
    expect(m.grid).toBe(0.5);
  });
});
