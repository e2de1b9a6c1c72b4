// Staircase noise (src/noise/staircase.ts, assembly/noise/staircase.ts) against its exact law:
// each draw mapped through its own coordinate's CDF is uniform (Kolmogorov-Smirnov, seeded, with
// power against a wrong shape and a wrong budget), its tail steps have the geometric masses, and
// its noise depends only on the seed and the coordinate.
import { describe, expect, it } from 'vitest';
import { calibrateStaircase, createRng, staircaseNoise } from '../../src/index.js';
import { estimateDelta, staircaseLosses } from '../audit.js';
import { builds } from '../helpers.js';

/** P(|X| <= t Delta) for the staircase of budget eps and shape gamma (docs/staircase.md, "The staircase"). */
function cdfOfMagnitude(t: number, epsilon: number, gamma: number): number {
  const b = Math.exp(-epsilon);
  const a = (1 - b) / (gamma + b * (1 - gamma)); // twice the density's height at 0, times Delta
  const k = Math.floor(t);
  const f = t - k;
  const whole = ((1 - b ** k) / (1 - b)) * (gamma + b * (1 - gamma));
  const part = f < gamma ? b ** k * f : b ** k * gamma + b ** (k + 1) * (f - gamma);
  return a * (whole + part);
}

/** The Kolmogorov-Smirnov distance of values from the uniform law on [0, 1]. */
function ksUniform(values: number[]): number {
  const sorted = values.slice().sort((x, y) => x - y);
  const n = sorted.length;
  return sorted.reduce((d, u, i) => Math.max(d, u - i / n, (i + 1) / n - u), 0);
}

const K = 100_000;
/** A profile of step widths, budgets and shapes that changes from coordinate to coordinate. */
const shape = {
  sensitivity: Float64Array.from({ length: K }, (_, i) => 0.5 + (i % 7)),
  epsilons: Float64Array.from({ length: K }, (_, i) => [0.3, 1, 2.5, 6][i % 4]!),
  gammas: Float64Array.from({ length: K }, (_, i) => [0.05, 0.3, 0.5, 0.9, 1, 0][i % 6]!),
};

describe('staircaseNoise', () => {
  it('follows the exact law coordinate by coordinate (KS on the probability transforms), and rejects a wrong shape or budget (power)', () => {
    const noise = staircaseNoise(shape, { rng: createRng({ seed: 'staircase law' }) });
    const transformed = (dGamma: number, epsilonFactor: number) =>
      Array.from(noise, (x, i) =>
        cdfOfMagnitude(Math.abs(x) / shape.sensitivity[i]!, shape.epsilons[i]! * epsilonFactor, Math.min(1, Math.max(0, shape.gammas[i]! + dGamma))),
      );
    const critical = 1.95 / Math.sqrt(K); // level 0.001
    expect(ksUniform(transformed(0, 1))).toBeLessThan(critical);
    expect(ksUniform(transformed(0.05, 1))).toBeGreaterThan(critical);
    expect(ksUniform(transformed(0, 1.05))).toBeGreaterThan(critical);
    // The sign is a fair coin: within 5 standard errors of half.
    expect(Math.abs(noise.filter((x) => x < 0).length - K / 2)).toBeLessThan(5 * Math.sqrt(K / 4));
  });

  it('has the geometric tail, step after step, far out (no step cut off)', () => {
    const n = 400_000;
    const epsilon = 0.5;
    const noise = staircaseNoise(
      { sensitivity: new Float64Array(n).fill(1), epsilons: new Float64Array(n).fill(epsilon), gammas: new Float64Array(n).fill(0.4) },
      { rng: createRng({ seed: 'tail' }) },
    );
    for (const k of [5, 10, 15, 20]) {
      const expected = n * Math.exp(-k * epsilon); // P(|X| >= k Delta) = b^k
      const seen = noise.filter((x) => Math.abs(x) >= k).length;
      expect(Math.abs(seen - expected), `k = ${k}`).toBeLessThan(5 * Math.sqrt(expected));
    }
  });

  it('depends only on the seed and the coordinate: chunks, lengths and both builds give the same noise', () => {
    const long = staircaseNoise(shape, { rng: createRng({ seed: 9 }) });
    const short = staircaseNoise(
      { sensitivity: shape.sensitivity.subarray(0, 100), epsilons: shape.epsilons.subarray(0, 100), gammas: shape.gammas.subarray(0, 100) },
      { rng: createRng({ seed: 9 }) },
    );
    expect(Array.from(long.subarray(0, 100))).toEqual(Array.from(short));
    const rng = createRng({ seed: 9 });
    staircaseNoise(shape, { rng });
    expect(staircaseNoise(shape, { rng })[0]).not.toBe(long[0]); // a second call draws afresh
    // The kernel itself, on the same words, in the scalar and the SIMD build.
    const outputs = builds.map(([, w]) => {
      const n = 64;
      new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set([0x5354n, 0x9e3779b97f4a7c15n]);
      w.useSeededExtras();
      w.seededWords(0, n);
      new Float64Array(w.memory.buffer, w.scalesPointer(), n).set(shape.sensitivity.subarray(0, n));
      new Float64Array(w.memory.buffer, w.epsilonsPointer(), n).set(shape.epsilons.subarray(0, n));
      new Float64Array(w.memory.buffer, w.shapesPointer(), n).set(shape.gammas.subarray(0, n));
      w.staircaseSamples(0, n, 0);
      return Array.from(new Float64Array(w.memory.buffer, w.valuesPointer(), n));
    });
    expect(outputs[0]).toEqual(outputs[1]);
  });

  it('passes the empirical audit at the box corner: no privacy loss above epsilon, the bound attained, and budgets 5% too large caught', () => {
    const sensitivity = [0.1, 0.5, 1, 2];
    const epsilon = 6;
    const s = calibrateStaircase({ sensitivity, epsilon, errorPower: 1 });
    const releases = 300_000;
    /** `releases` releases of the calibration, its budgets multiplied by `factor`, and their exact losses against D' = D + lambda. */
    const audit = (factor: number) => {
      const shape = { widths: s.sensitivity, epsilons: s.epsilons.map((e) => e * factor), gammas: s.gammas };
      const tiledShape = {
        sensitivity: Float64Array.from({ length: releases * 4 }, (_, j) => shape.widths[j % 4]!),
        epsilons: Float64Array.from({ length: releases * 4 }, (_, j) => shape.epsilons[j % 4]!),
        gammas: Float64Array.from({ length: releases * 4 }, (_, j) => shape.gammas[j % 4]!),
      };
      return staircaseLosses(staircaseNoise(tiledShape, { rng: createRng({ seed: 'audit-staircase' }) }), shape, sensitivity);
    };
    const losses = audit(1);
    const worst = losses.reduce((m, L) => Math.max(m, L), -Infinity);
    expect(worst).toBeLessThanOrEqual(epsilon);
    expect(worst).toBeGreaterThan(epsilon * 0.999); // every coordinate at its worst step at once: seen in 3e5 releases
    expect(estimateDelta(losses, epsilon).delta).toBe(0);
    // Power: budgets 5% too large (less noise than calibrated) give losses above epsilon.
    expect(estimateDelta(audit(1.05), epsilon).delta).toBeGreaterThan(0.001);
  });

  it('draws from a calibration, gives no noise where the sensitivity is 0, and refuses bad parameters before drawing anything', () => {
    const s = calibrateStaircase({ sensitivity: [1, 0, 2], epsilon: 4, errorPower: 1 });
    const noise = staircaseNoise(s, { rng: createRng({ seed: 1 }) });
    expect(noise[1]).toBe(0);
    expect(noise[0]).not.toBe(0);
    const bad: Array<[object, RegExp]> = [
      [{ ...shape, gammas: [...shape.gammas.subarray(0, K - 1), 1.5] }, /`gammas\[99999\]` must be a number in \[0, 1\]; got 1\.5/],
      [{ sensitivity: [1], epsilons: [0], gammas: [0.5] }, /`epsilons\[0\]` must be above 0/],
      [{ sensitivity: [1, 2], epsilons: [1], gammas: [0.5, 0.5] }, /`epsilons.length` must be 2/],
      [{ sensitivity: [1], epsilons: [1], gammas: [0.5], extra: 1 }, /extra/],
    ];
    for (const [args, message] of bad) {
      const rng = createRng({ seed: 'refused' });
      expect(() => staircaseNoise(args as never, { rng })).toThrow(message);
      // Nothing was drawn: the generator's next call is its first.
      expect(staircaseNoise({ sensitivity: [1], epsilons: [1], gammas: [0.5] }, { rng })).toEqual(
        staircaseNoise({ sensitivity: [1], epsilons: [1], gammas: [0.5] }, { rng: createRng({ seed: 'refused' }) }),
      );
    }
  });
});
