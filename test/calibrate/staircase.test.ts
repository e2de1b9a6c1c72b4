// The staircase's costs and calibration (src/calibrate/staircase.ts) against mpmath
// (test/fixtures/staircase.json, made by scripts/staircase_reference.py: the moments summed step
// by step from the density, independent of the closed forms here), the journal's Table V-4, and
// the optimality conditions of the allocation.
import { describe, expect, it } from 'vitest';
import { calibrateLaplace, calibrateStaircase } from '../../src/index.js';
import { staircaseCost, staircaseMoment, staircaseShape } from '../../src/calibrate/staircase.js';
import { expectClose, expectNear, fixture } from '../helpers.js';

interface Reference {
  moments: Array<{ p: number; gamma: number; epsilon: number; moment: number }>;
  shapes: Array<{ p: number; epsilon: number; gamma: number; cost: number; slope: number }>;
  splits: Array<{ p: 1; sensitivity: number[]; epsilon: number; epsilons: number[]; error: number }>;
  twoDimensional: Array<{ epsilon: number; shape: number; error: number }>;
}
const reference = fixture<Reference>('staircase.json');

/** The exact sum of doubles (each a multiple of 2^-1074), as a BigInt count of 2^-1074. */
function exactUnits(values: Iterable<number>): bigint {
  const view = new DataView(new ArrayBuffer(8));
  let total = 0n;
  for (const x of values) {
    view.setFloat64(0, x);
    const raw = view.getBigUint64(0);
    const exponent = Number((raw >> 52n) & 0x7ffn);
    const fraction = raw & ((1n << 52n) - 1n);
    total += (exponent === 0 ? fraction : fraction | (1n << 52n)) << BigInt(Math.max(0, exponent - 1));
  }
  return total;
}

describe('staircase costs', () => {
  it('E|X|^p in closed form equals the sum over the steps (mpmath), p = 1, 2, 3, 4 and 8, every shape', () => {
    for (const { p, gamma, epsilon, moment } of reference.moments) {
      expectClose(staircaseMoment(p, gamma, epsilon), moment, 1e-13, `p ${p}, gamma ${gamma}, eps ${epsilon}`);
    }
  });

  it('the best shape and its cost: 1/(1 + e^(eps/2)) and 1/(2 sinh(eps/2)) for p = 1, golden-section search for p = 2 to 8', () => {
    for (const { p, epsilon, gamma, cost } of reference.shapes) {
      // The minimum is flat (the cost moves with the square of the shape's error), so a search in
      // double precision places it to about 1e-6 at eps 0.05 (mpmath's to 1e-15); the cost is exact.
      expectNear(staircaseShape(p, epsilon), gamma, p === 1 ? 1e-13 : 1e-6, `shape, p ${p}, eps ${epsilon}`);
      expectClose(staircaseCost(p, epsilon), cost, 1e-13, `cost, p ${p}, eps ${epsilon}`);
    }
    expectClose(staircaseCost(1, 5), 0.0826418349, 1e-9, "V_1(5), the check value of the journal's formula");
  });

  it('E|X|^p has one minimum in gamma (so golden-section search finds it): its slope changes sign once on [0, 1], p = 2 to 8', () => {
    for (let p = 2; p <= 8; p++) {
      for (const epsilon of [0.01, 0.1, 1, 3, 10, 30]) {
        const values = Array.from({ length: 2001 }, (_, j) => staircaseMoment(p, j / 2000, epsilon));
        const signChanges = values.slice(2).filter((v, j) => Math.sign(v - values[j + 1]!) !== Math.sign(values[j + 1]! - values[j]!)).length;
        expect(signChanges, `p ${p}, eps ${epsilon}`).toBeLessThanOrEqual(1);
      }
    }
  });

  it('tends to Laplace for small epsilon (V_1 -> 1/eps, V_2 -> 2/eps^2) and falls like e^(-eps/2) for large', () => {
    expectClose(staircaseCost(1, 1e-4) * 1e-4, 1, 1e-8, 'V_1 eps');
    expectClose(staircaseCost(2, 1e-3) * 1e-6, 2, 1e-3, 'V_2 eps^2 / 2');
    expectClose(staircaseCost(1, 40) * Math.exp(20), 1, 1e-12, 'V_1 e^(eps/2)');
    // Laplace's E|X|^p = p! / eps^p: the staircase's best shape cannot be worse, and tends to it.
    for (const [p, factorial] of [
      [3, 6],
      [4, 24],
      [8, 40320],
    ] as const) {
      const ratio = (staircaseCost(p, 1e-3) * 1e-3 ** p) / factorial;
      expect(ratio, `p ${p}`).toBeLessThanOrEqual(1);
      expect(ratio, `p ${p}`).toBeGreaterThan(1 - 1e-2);
    }
  });
});

describe('calibrateStaircase', () => {
  it("splits the budget as mpmath does and reproduces the issue's figures (lambda = (0.15, 0.85), l1 error)", () => {
    for (const { sensitivity, epsilon, epsilons, error } of reference.splits) {
      const s = calibrateStaircase({ sensitivity, epsilon, errorPower: 1 });
      s.epsilons.forEach((e, i) => {
        expectClose(e, epsilons[i]!, 1e-5, `eps ${epsilon}, eps_${i}`);
      });
      expectClose(s.error, error, 1e-9, `eps ${epsilon}, error`);
    }
    const s3 = calibrateStaircase({ sensitivity: [0.15, 0.85], epsilon: 3, errorPower: 1 });
    expect(s3.error).toBeCloseTo(0.4996, 4);
    expect(calibrateLaplace({ sensitivity: [0.15, 0.85], epsilon: 3, errorPower: 1 }).error).toBeCloseTo(0.5714, 4);
    expect(s3.gain).toBeCloseTo(0.5714 / 0.4996, 3);
    expect(calibrateStaircase({ sensitivity: [0.15, 0.85], epsilon: 10, errorPower: 1 }).error).toBeCloseTo(0.0597, 4);
  });

  it.each([2, 3])('meets the optimality conditions (p = %i): equal marginal costs, and no shift of budget between two coordinates lowers the error', (p) => {
    const sensitivity = [0.05, 0.2, 0.5, 1, 3];
    const weights = [1, 2, 1, 0.5, 1];
    const s = calibrateStaircase({ sensitivity, weights, epsilon: 8, errorPower: p });
    expect(s.errorPower).toBe(p);
    const objective = (eps: number[]) => eps.reduce((sum, e, i) => sum + weights[i]! * sensitivity[i]! ** p * staircaseCost(p, e), 0);
    const marginal = Array.from(
      s.epsilons,
      (e, i) => (weights[i]! * sensitivity[i]! ** p * (staircaseCost(p, e * (1 - 1e-5)) - staircaseCost(p, e * (1 + 1e-5)))) / (2e-5 * e),
    );
    for (const m of marginal) expectClose(m, marginal[0]!, 1e-4, 'marginal cost');
    const base = objective(Array.from(s.epsilons));
    expectClose(s.error, base, 1e-12, 'reported error');
    for (const shift of [1e-3, 1e-2, 0.1]) {
      for (let i = 0; i < 5; i++) {
        for (let j = 0; j < 5; j++) {
          if (i === j || s.epsilons[j]! <= shift) continue;
          const moved = Array.from(s.epsilons);
          moved[i]! += shift;
          moved[j]! -= shift;
          expect(objective(moved), `move ${shift} from ${j} to ${i}`).toBeGreaterThan(base * (1 - 1e-12));
        }
      }
    }
  });

  it('calibrates long profiles chunk by chunk in WebAssembly: equal coordinates get equal figures across chunks, shapes within 1e-6 of the search and as good', () => {
    const K = 50_000; // three chunks of the kernels
    const sensitivity = Float64Array.from({ length: K }, (_, i) => 1 / (1 + (i % 97)));
    for (const p of [1, 2, 3]) {
      const s = calibrateStaircase({ sensitivity, epsilon: K / 3, errorPower: p });
      for (const i of [5, 97 * 200 + 5, 97 * 515 + 5]) {
        expect(s.epsilons[i], `p = ${p}, coordinate ${i}`).toBe(s.epsilons[5]);
        expect(s.gammas[i]).toBe(s.gammas[5]);
        // The table's shape, interpolated: its moment is within 1e-12 of the least (the error is second order in the shape's).
        expect(Math.abs(s.gammas[i]! - staircaseShape(p, s.epsilons[i]!))).toBeLessThan(1e-6);
        expect(staircaseMoment(p, s.gammas[i]!, s.epsilons[i]!)).toBeLessThanOrEqual(staircaseCost(p, s.epsilons[i]!) * (1 + 1e-12));
      }
    }
  });

  it('never spends more than epsilon: the exact sum of the budgets is at most epsilon', () => {
    for (const allocation of ['optimal', 'spr', 'iid'] as const) {
      for (const epsilon of [0.1, 1, 7.3, 50]) {
        const sensitivity = Array.from({ length: 37 }, (_, i) => 1 / (1 + (i % 7)) + (i === 3 ? 0 : 0.01));
        const s = calibrateStaircase({ sensitivity, epsilon, allocation, errorPower: 1 });
        expect(exactUnits(s.epsilons) <= exactUnits([epsilon]), `${allocation}, eps ${epsilon}`).toBe(true);
        expect(exactUnits(s.epsilons) * 1000n >= exactUnits([epsilon]) * 999n, `${allocation}, eps ${epsilon}: spends it`).toBe(true);
      }
    }
  });

  it('gives no coordinate more than 700 (where e^-eps underflows), whatever epsilon: every figure finite', () => {
    for (const allocation of ['optimal', 'spr', 'iid'] as const) {
      const s = calibrateStaircase({ sensitivity: [1, 2, 0.5], epsilon: 1e4, allocation, errorPower: 2 });
      expect(Math.max(...s.epsilons), allocation).toBeLessThanOrEqual(700);
      expect([s.error, s.gain, ...s.gammas].every(Number.isFinite), allocation).toBe(true);
    }
  });

  it('gives every coordinate of positive sensitivity a positive budget, even where w lambda^2 is below the smallest double', () => {
    const s = calibrateStaircase({ sensitivity: [2 ** -400, 1, 2 ** 400], weights: [2 ** -400, 1, 1], epsilon: 2, errorPower: 2 });
    expect(Array.from(s.epsilons).every((e) => e > 0)).toBe(true);
    expect(Number.isFinite(s.error)).toBe(true);
  });

  it('spr gives every coordinate eps / K and its own steps; iid the largest sensitivity everywhere; a coordinate of sensitivity 0 gets no budget', () => {
    const spr = calibrateStaircase({ sensitivity: [1, 0, 4], epsilon: 2, allocation: 'spr' });
    expect(Array.from(spr.epsilons)).toEqual([spr.epsilons[0], 0, spr.epsilons[0]]);
    expectClose(spr.epsilons[0]!, 1, 1e-14, 'eps / 2 for the two noised coordinates');
    expect(Array.from(spr.sensitivity)).toEqual([1, 0, 4]);
    const iid = calibrateStaircase({ sensitivity: [1, 2, 4], epsilon: 3, allocation: 'iid' });
    expect(Array.from(iid.sensitivity)).toEqual([4, 4, 4]);
    expect(new Set(iid.gammas).size).toBe(1);
    const optimal = calibrateStaircase({ sensitivity: [1, 0, 4], epsilon: 2 });
    expect(optimal.epsilons[1]).toBe(0);
    expect(optimal.error).toBeLessThan(spr.error);
  });

  it('gains more over Laplace as the budget per coordinate grows', () => {
    const gains = [0.5, 2, 5, 10, 20].map((epsilon) => calibrateStaircase({ sensitivity: [0.15, 0.85], epsilon, errorPower: 1 }).gain);
    gains.slice(1).forEach((g, i) => {
      expect(g).toBeGreaterThan(gains[i]!);
    });
    expect(gains[0]).toBeGreaterThan(1);
  });

  it('refuses what it cannot calibrate, with the name of the option', () => {
    expect(() => calibrateStaircase({ sensitivity: [1], epsilon: 1, errorPower: 1.5 })).toThrow(
      /`errorPower` must be a whole number from 1 to 8 for the staircase; got 1.5/,
    );
    expect(() => calibrateStaircase({ sensitivity: [1], epsilon: 1, errorPower: 9 })).toThrow(
      /`errorPower` must be a whole number from 1 to 8 for the staircase; got 9/,
    );
    expect(() => calibrateStaircase({ groups: { sizes: [2], sensitivity: [1] }, epsilon: 1 } as never)).toThrow(TypeError);
    expect(() => calibrateStaircase({ sensitivity: [1], epsilon: 0 })).toThrow(RangeError);
    expect(() => calibrateStaircase({ sensitivity: [1], epsilon: 1, delta: 1e-6 } as never)).toThrow(TypeError);
    expect(() => calibrateStaircase({ sensitivity: [-1], epsilon: 1 })).toThrow(/sensitivity\[0\]/);
  });

  it('returns frozen results', () => {
    const s = calibrateStaircase({ sensitivity: [1, 2], epsilon: 1 });
    expect(Object.isFrozen(s)).toBe(true);
    const before = Array.from(s.epsilons);
    s.epsilons.fill(9); // a copy: the calibration's own budgets stay
    expect(Array.from(s.epsilons)).toEqual(before);
  });
});
