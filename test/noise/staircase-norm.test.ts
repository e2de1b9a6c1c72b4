// Joint staircase noise (src/noise/staircase-norm.ts, assembly/noise/staircase.ts's radius kernel)
// against its exact law: the radius ||X|| / Delta through its exact CDF is uniform (Kolmogorov-Smirnov,
// seeded, with power against a wrong shape and a wrong budget), the direction is uniform on the
// sphere (checked through coordinates whose law is known: uniform on [-1, 1] for l2 in three
// dimensions, |U_1| uniform on [0, 1] for l1 in two), and the noise depends only on the seed.
import { describe, expect, it } from 'vitest';
import { createRng, staircaseNormNoise } from '../../src/index.js';
import { builds } from '../helpers.js';

/** The Kolmogorov-Smirnov distance of values from the uniform law on [0, 1]. */
function ksUniform(values: number[]): number {
  const sorted = values.slice().sort((x, y) => x - y);
  const n = sorted.length;
  return sorted.reduce((d, u, i) => Math.max(d, u - i / n, (i + 1) / n - u), 0);
}

/**
 * P(R <= r) for the radius R of density proportional to b^phi(r) r^(d-1) (docs/staircase.md, "The
 * joint staircase"): the pieces [k, k + gamma) at height b^k and [k + gamma, k + 1) at b^(k+1),
 * each contributing height (c^d - a^d) / d up to r; summed to 400 steps (the rest is below 1e-60
 * for the budgets here).
 */
function radiusCdf(d: number, epsilon: number, gamma: number): (r: number) => number {
  const b = Math.exp(-epsilon);
  const pieces: Array<[number, number, number]> = [];
  for (let k = 0; k < 400; k++) pieces.push([k, k + gamma, b ** k], [k + gamma, k + 1, b ** (k + 1)]);
  const mass = (r: number) => pieces.reduce((s, [a, c, h]) => (r <= a ? s : s + h * (Math.min(r, c) ** d - a ** d)), 0);
  const total = mass(Infinity);
  return (r) => mass(r) / total;
}

const norms = { l1: (x: Float64Array) => x.reduce((s, v) => s + Math.abs(v), 0), l2: (x: Float64Array) => Math.hypot(...x) };

/** n draws of the joint staircase. */
function draws(shape: Parameters<typeof staircaseNormNoise>[0], n: number, seed: string): Float64Array[] {
  const rng = createRng({ seed });
  return Array.from({ length: n }, () => staircaseNormNoise(shape, { rng }));
}

describe('staircaseNormNoise', () => {
  const N = 20_000;
  const critical = 1.95 / Math.sqrt(N); // level 0.001

  it.each([
    ['l1', 2, 3, 0.4],
    ['l2', 5, 1, 0.8],
    ['l1', 10, 2, 0.2],
    ['l2', 3, 8, 0.05],
  ] as const)(
    'draws the radius of the %s staircase in %i dimensions at epsilon %d by its exact law, and rejects a wrong shape or budget (power)',
    (norm, d, epsilon, gamma) => {
      const width = 2.5;
      const x = draws({ norm, dimension: d, normSensitivity: width, epsilon, gamma }, N, `radius ${norm} ${d}`);
      const radii = x.map((v) => norms[norm](v) / width);
      const ks = (g: number, e: number) => ksUniform(radii.map(radiusCdf(d, e, g)));
      expect(ks(gamma, epsilon)).toBeLessThan(critical);
      expect(ks(gamma < 0.5 ? gamma + 0.5 : gamma - 0.5, epsilon)).toBeGreaterThan(critical); // at small epsilon the shape matters little
      expect(ks(gamma, epsilon * 1.1)).toBeGreaterThan(critical);
    },
  );

  it('draws the direction uniformly on the sphere: l2 in 3 dimensions has U_1 uniform on [-1, 1], l1 in 2 has |U_1| uniform on [0, 1]; each fails the other test (power)', () => {
    const l2 = draws({ norm: 'l2', dimension: 3, normSensitivity: 1, epsilon: 2, gamma: 0.3 }, N, 'direction l2');
    const l1 = draws({ norm: 'l1', dimension: 2, normSensitivity: 1, epsilon: 2, gamma: 0.3 }, N, 'direction l1');
    const l1In3 = draws({ norm: 'l1', dimension: 3, normSensitivity: 1, epsilon: 2, gamma: 0.3 }, N, 'direction l1 in 3');
    const archimedes = (x: Float64Array[]) => ksUniform(x.map((v) => (v[0]! / norms.l2(v) + 1) / 2));
    const simplex = (x: Float64Array[]) => ksUniform(x.map((v) => Math.abs(v[0]!) / norms.l1(v)));
    expect(archimedes(l2)).toBeLessThan(critical);
    expect(simplex(l1)).toBeLessThan(critical);
    // Power: the l1 direction seen through the l2 test, and the l2 direction (in 2 dimensions) through the l1 test.
    expect(archimedes(l1In3)).toBeGreaterThan(critical);
    const l2In2 = draws({ norm: 'l2', dimension: 2, normSensitivity: 1, epsilon: 2, gamma: 0.3 }, N, 'direction l2 in 2');
    expect(simplex(l2In2)).toBeGreaterThan(critical);
    // The signs are fair coins: within 5 standard errors of half.
    expect(Math.abs(l1.filter((v) => v[1]! < 0).length - N / 2)).toBeLessThan(5 * Math.sqrt(N / 4));
  });

  it('is finite at the ends of its parameters: epsilon 700 and 1e-3, shapes 0 and 1, a thousand dimensions', () => {
    const rng = createRng({ seed: 'ends' });
    for (const [dimension, epsilon, gamma] of [
      [1, 700, 0],
      [4, 700, 1],
      [1000, 1e-3, 0.5],
      [1000, 700, 0],
      [3, 0.01, 0],
    ] as const) {
      for (const norm of ['l1', 'l2'] as const) {
        const x = staircaseNormNoise({ norm, dimension, normSensitivity: 1, epsilon, gamma }, { rng });
        expect(x.length).toBe(dimension);
        expect(x.every(Number.isFinite)).toBe(true);
        // With gamma 0 and b = e^-700 the radius is U^(1/d) in (0, 1]: the first step, [0, 1), holds all the mass.
        if (epsilon === 700 && gamma === 0) expect(norms[norm](x)).toBeLessThanOrEqual(1 + 1e-12);
      }
    }
  });

  it('depends only on the seed: a second call draws afresh, and both builds give the same radius on the same words', () => {
    const shape = { norm: 'l2', dimension: 4, normSensitivity: 1, epsilon: 1, gamma: 0.5 } as const;
    const rng = createRng({ seed: 3 });
    const first = staircaseNormNoise(shape, { rng });
    expect(staircaseNormNoise(shape, { rng })).not.toEqual(first);
    expect(staircaseNormNoise(shape, { rng: createRng({ seed: 3 }) })).toEqual(first);
    const outputs = builds.map(([, w]) => {
      const n = 64;
      new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set([0x5354n, 0x9e3779b97f4a7c15n]);
      w.useSeededExtras();
      w.seededWords(0, n);
      new Float64Array(w.memory.buffer, w.epsilonsPointer(), n).set(Array.from({ length: n }, (_, i) => [0.5, 2, 9][i % 3]!));
      new Float64Array(w.memory.buffer, w.shapesPointer(), n).set(Array.from({ length: n }, (_, i) => (i % 5) / 4));
      w.staircaseRadiusSamples(0, n, 0, 7);
      return Array.from(new Float64Array(w.memory.buffer, w.valuesPointer(), n));
    });
    expect(outputs[0]).toEqual(outputs[1]);
  });

  it('refuses bad parameters before drawing anything', () => {
    const good = { norm: 'l1', dimension: 2, normSensitivity: 1, epsilon: 1, gamma: 0.5 } as const;
    const bad: Array<[object, RegExp]> = [
      [{ ...good, norm: 'linf' }, /`norm` must be one of 'l1', 'l2'; got "linf"/],
      [{ ...good, dimension: 1001 }, /`dimension` must be a number >= 1 and <= 1000; got 1001/],
      [{ ...good, dimension: 2.5 }, /`dimension` must be an integer/],
      [{ ...good, epsilon: 0 }, /`epsilon` must be a number > 0 and <= 700; got 0/],
      [{ ...good, normSensitivity: 0 }, /`normSensitivity` must be a number > 0/],
      [{ ...good, normSensitivity: 1e150, epsilon: 1e-3 }, /`normSensitivity` must be at most 1e\+150 epsilon/],
      [{ ...good, gamma: 1.5 }, /`gamma` must be a number >= 0 and <= 1; got 1\.5/],
      [{ ...good, extra: 1 }, /extra/],
    ];
    for (const [args, message] of bad) {
      const rng = createRng({ seed: 'refused' });
      expect(() => staircaseNormNoise(args as never, { rng })).toThrow(message);
      // Nothing was drawn: the generator's next call is its first.
      expect(staircaseNormNoise(good, { rng })).toEqual(staircaseNormNoise(good, { rng: createRng({ seed: 'refused' }) }));
    }
  });
});
