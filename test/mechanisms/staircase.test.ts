// staircaseMechanism (src/mechanisms/staircase.ts): releases on the grid from the exact discrete
// staircase, with the calibration's error, its privacy object, the empirical audit at the box
// corner in grid steps, continuous mode, and what it refuses.
import { describe, expect, it } from 'vitest';
import { calibrateStaircase, createRng, staircaseMechanism } from '../../src/index.js';
import { staircaseMoment } from '../../src/calibrate/staircase.js';
import { estimateDelta } from '../audit.js';

describe('staircaseMechanism', () => {
  it('releases on the grid, leaves the query alone, and reports pure epsilon-DP', () => {
    const m = staircaseMechanism({ sensitivity: [0.15, 0.85, 0], epsilon: 5, errorPower: 1 });
    expect(m.mode).toBe('grid');
    expect(m.grid).toBe(2 ** -13); // the power of two at most 2^-10 of the smallest sensitivity
    const query = [10.3, 20.7, 5];
    const out = m.release(query, { rng: createRng({ seed: 1 }) });
    expect(query).toEqual([10.3, 20.7, 5]);
    expect(Array.from(out, (y) => Number.isInteger(y / m.grid!))).toEqual([true, true, true]);
    expect(out[2]).toBe(5); // sensitivity 0: no noise
    expect(m.privacy.kind).toBe('pure');
    expect(m.privacy.noise).toBe('staircase');
    expect(m.privacy.epsilon(0)).toBe(5);
    // The calibration is to the sensitivities rounded up to the grid.
    expect(Array.from(m.sensitivity)).toEqual([Math.ceil(0.15 / m.grid!) * m.grid!, Math.ceil(0.85 / m.grid!) * m.grid!, 0]);
    expect(m.gain).toBeCloseTo(calibrateStaircase({ sensitivity: m.sensitivity, epsilon: 5, errorPower: 1 }).gain, 12);
  });

  it("draws each coordinate's error as calibrated: mean |noise| within 5 standard errors of the staircase's E|X| (2e5 seeded releases)", () => {
    const m = staircaseMechanism({ sensitivity: [0.2, 1], epsilon: 6, errorPower: 1 });
    const releases = 200_000;
    const [sum, squares] = [new Float64Array(2), new Float64Array(2)];
    const rng = createRng({ seed: 'staircase error' });
    const query = [0, 0];
    for (let r = 0; r < releases; r++) {
      const out = m.release(query, { rng });
      for (let i = 0; i < 2; i++) {
        sum[i]! += Math.abs(out[i]!);
        squares[i]! += out[i]! ** 2;
      }
    }
    const [sensitivity, epsilons, gammas] = [m.sensitivity, m.epsilons, m.gammas];
    for (let i = 0; i < 2; i++) {
      const mean = sum[i]! / releases;
      const se = Math.sqrt((squares[i]! / releases - mean * mean) / releases);
      const expected = sensitivity[i]! * staircaseMoment(1, gammas[i]!, epsilons[i]!);
      expect(Math.abs(mean - expected), `coordinate ${i}: ${mean} against ${expected}`).toBeLessThan(5 * se);
    }
  });

  it('passes the empirical audit in grid steps at the box corner: no loss above epsilon, and the bound attained', () => {
    const epsilon = 4;
    const m = staircaseMechanism({ sensitivity: [0.5, 1], epsilon, errorPower: 1, grid: 2 ** -4 });
    const D = Array.from(m.sensitivity, (l) => l / m.grid!); // 8 and 16 steps
    const t = Array.from(m.epsilons, (e) => 1 / e); // as the kernel's budgets, up to the rounding up of 1/eps
    const r = Array.from(m.gammas, (g, i) => Math.min(D[i]!, Math.max(0, Math.round(g * D[i]!))));
    const phi = (y: number, i: number) => Math.floor(Math.abs(y) / D[i]!) + (Math.abs(y) % D[i]! >= r[i]! ? 1 : 0);
    const releases = 200_000;
    const rng = createRng({ seed: 'staircase audit' });
    const losses = new Float64Array(releases);
    for (let k = 0; k < releases; k++) {
      const steps = Array.from(m.release([0, 0], { rng }), (y) => y / m.grid!); // D' = D + lambda': every coordinate D_i steps up
      losses[k] = steps.reduce((L, y, i) => L + (phi(y - D[i]!, i) - phi(y, i)) / t[i]!, 0);
    }
    const worst = losses.reduce((a, L) => Math.max(a, L), -Infinity);
    expect(worst).toBeLessThanOrEqual(epsilon);
    expect(worst).toBeGreaterThan(epsilon * 0.999);
    expect(estimateDelta(losses, epsilon).delta).toBe(0);
  });

  it('in continuous mode adds floating-point staircase noise (not on a grid)', () => {
    const m = staircaseMechanism({ sensitivity: [1, 2], epsilon: 3, mode: 'continuous' });
    expect(m.grid).toBeUndefined();
    const out = m.release([0, 0], { rng: createRng({ seed: 2 }) });
    expect(out.some((y) => !Number.isInteger(y * 2 ** 20))).toBe(true);
  });

  it('refuses what it cannot release, before drawing anything', () => {
    expect(() => staircaseMechanism({ sensitivity: [1], epsilon: 1, errorPower: 9 })).toThrow(/`errorPower` must be a whole number from 1 to 8/);
    expect(() => staircaseMechanism({ sensitivity: [1], epsilon: 1, mode: 'continuous', grid: 1 })).toThrow(/`grid` applies to `mode: 'grid'` only/);
    expect(() => staircaseMechanism({ sensitivity: [1], epsilon: 1, delta: 1e-6 } as never)).toThrow(TypeError);
    expect(() => staircaseMechanism({ sensitivity: [1], epsilon: 1e-9, grid: 2 ** -30 })).toThrow(/above 2\^40; use a larger grid/);
    const m = staircaseMechanism({ sensitivity: [1, 1], epsilon: 1 });
    const rng = createRng({ seed: 'refused' });
    expect(() => m.release([1], { rng })).toThrow(/`query.length` must be 2/);
    expect(m.release([0, 0], { rng })).toEqual(m.release([0, 0], { rng: createRng({ seed: 'refused' }) }));
  });
});
