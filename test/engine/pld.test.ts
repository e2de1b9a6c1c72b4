import { describe, expect, it } from 'vitest';
import type { Event } from '../../src/engine/events.js';
import { eventFloors, eventPmf, eventPmfLevels, eventPmfs, floorDelta, floorEpsilon, pldSupports, pmfDelta, pmfEpsilon } from '../../src/engine/pld.js';
import { convolveFloor, type FloorPair } from '../../src/engine/masses.js';
import { privacyOfEvent } from '../../src/accounting/reconstruct.js';
import { gaussianDelta, normalSf } from '../../src/index.js';
import { wasm } from '../../src/wasm/loader.js';
import { fixture } from '../helpers.js';

/** delta(eps) of a Gaussian at distance mu on a Poisson batch of rate q, both directions, in closed form (the loss is monotone in x). */
function subsampledGaussianDelta(mu: number, q: number, eps: number): [number, number] {
  const Phi = (x: number) => normalSf(-x);
  // Remove: P = (1 - q) N(0, 1) + q N(mu, 1) against Q = N(0, 1); P/Q > e^eps beyond x.
  const x = (Math.log((Math.expm1(eps) + q) / q) + (mu * mu) / 2) / mu;
  const remove = (1 - q) * normalSf(x) + q * normalSf(x - mu) - Math.exp(eps) * normalSf(x);
  // Add: N(0, 1) against (1 - q) N(0, 1) + q N(mu, 1); the ratio exceeds e^eps below y (if e^-eps > 1 - q).
  const a = Math.exp(-eps) - 1 + q;
  const y = (Math.log(a / q) + (mu * mu) / 2) / mu;
  const add = a <= 0 ? 0 : Phi(y) - Math.exp(eps) * ((1 - q) * Phi(y) + q * Phi(y - mu));
  return [remove, add];
}

const gaussian: Event = { type: 'gaussian', mu: 1 };

describe('eventPmfs: every delta an upper bound, close to the exact one on a fine grid', () => {
  it('a Gaussian release: gaussianDelta(mu, eps) <= pmfDelta <= it plus O(h^2)', () => {
    for (const h of [1e-2, 1e-3]) {
      const [pmf] = eventPmfs(gaussian, h);
      for (const eps of [0, 0.5, 1, 2, 4]) {
        const exact = gaussianDelta(1, eps);
        const bound = pmfDelta(pmf!, h, eps);
        expect(bound).toBeGreaterThanOrEqual(exact);
        expect(bound - exact).toBeLessThan(20 * h * h + 1e-14); // measured: about h^2 / 8
      }
    }
  });

  it('a Poisson-subsampled Gaussian: both directions above their closed forms, within 1% at h = 1e-3', () => {
    const h = 1e-3;
    const pmfs = eventPmfs({ type: 'poisson', rate: 0.05, event: gaussian }, h);
    expect(pmfs.length).toBe(2); // the directions differ
    for (const eps of [0.01, 0.05, 0.1, 0.3]) {
      const exact = subsampledGaussianDelta(1, 0.05, eps);
      const bounds = pmfs.map((pmf) => pmfDelta(pmf, h, eps));
      for (const d of [0, 1]) {
        expect(bounds[d]).toBeGreaterThanOrEqual(exact[d]!);
        expect(bounds[d]!).toBeLessThan(exact[d]! * 1.01 + 1e-12);
      }
    }
  });

  it("connect the dots meets each pair's curve at every grid point, with masses >= 0 of total 1 and Q-mass at most 1", () => {
    const w = wasm();
    const h = 1e-2;
    // [event, its wasm kind, parameter and extra (hockeyDelta's), rate]
    const pairs: [Event, number, number, number, number][] = [
      [gaussian, 0, 1, 0, 1],
      [{ type: 'poisson', rate: 0.05, event: gaussian }, 0, 1, 0, 0.05],
      [{ type: 'laplace', epsilon: 0.5 }, 1, 0.5, 0, 1],
      [{ type: 'pure', epsilon: 1 }, 2, 1, 0, 1],
      [{ type: 'poisson', rate: 0.2, event: { type: 'discrete-laplace', scale: 3, sensitivity: 2 } }, 3, 3, 2, 0.2],
      [{ type: 'discrete-gaussian', variance: 4, sensitivity: 1 }, 4, 4, 1, 1],
    ];
    for (const [event, kind, parameter, extra, rate] of pairs) {
      eventPmfs(event, h).forEach((pmf, direction) => {
        const where = `${JSON.stringify(event)} direction ${direction}`;
        let total = pmf.infinity;
        let qMass = 0;
        pmf.probs.forEach((p, i) => {
          expect(p, where).toBeGreaterThanOrEqual(0);
          total += p;
          qMass += p * Math.exp(-(pmf.lower + i) * h);
        });
        expect(Math.abs(total - 1), where).toBeLessThan(1e-12);
        expect(qMass, where).toBeLessThanOrEqual(1 + 1e-12);
        for (let i = 0; i < pmf.probs.length; i++) {
          const loss = (pmf.lower + i) * h;
          const curve = w.hockeyDelta(kind, parameter, extra, rate, direction, loss);
          const own = pmfDelta(pmf, h, loss);
          expect(own, `${where} at ${loss}`).toBeGreaterThanOrEqual(curve);
          // The check's margin moves about 1e-14 to infinity (the curve's error bound at the lowest loss).
          expect(own - curve, `${where} at ${loss}`).toBeLessThan(4e-14 + 1e-9 * curve);
        }
      });
    }
  });

  it("a grid allowed to leave tau above its top is shorter and leaves at most tau there (by default only the check's margin, about 1e-15)", () => {
    const step: Event = { type: 'poisson', rate: 0.01, event: gaussian };
    for (const direction of [0, 1] as const) {
      const full = eventPmf(step, 1e-3, direction);
      expect(full.infinity).toBeLessThan(1e-14);
      for (const tail of [2 ** -40, 2 ** -20]) {
        const short = eventPmf(step, 1e-3, direction, tail);
        expect(short.infinity, `tail ${tail}`).toBeLessThanOrEqual(tail + 1e-14);
        expect(short.probs.length).toBeLessThan(full.probs.length);
        for (const eps of [0.01, 0.1, 1]) expect(pmfDelta(short, 1e-3, eps)).toBeGreaterThanOrEqual(pmfDelta(full, 1e-3, eps) - 1e-14);
      }
    }
  });

  it('the distributions on grids h, h/2 and h/4 built at once are those built one by one, bit for bit', () => {
    const events: Event[] = [
      { type: 'composed', events: [0.5, 0.7, 1.3].map((mu) => [{ type: 'poisson', rate: 0.02, event: { type: 'gaussian', mu } }, 3] as const) },
      { type: 'poisson', rate: 0.1, event: { type: 'discrete-gaussian', variance: 9, sensitivity: 2 } },
      {
        type: 'composed',
        events: [
          [{ type: 'laplace', epsilon: 0.3 }, 2],
          [{ type: 'allocation', steps: 2, event: { type: 'gaussian', mu: 0.5 } }, 1],
        ],
      },
    ];
    for (const event of events) {
      for (const direction of [0, 1] as const) {
        const levels = eventPmfLevels(event, 2 ** -6, direction, 2 ** -30, 3);
        levels.forEach((pmf, l) => {
          const alone = eventPmf(event, 2 ** -(6 + l), direction, 2 ** -30);
          const where = `${JSON.stringify(event)} direction ${direction} level ${l}`;
          expect([pmf.lower, pmf.infinity, pmf.error, pmf.error1], where).toEqual([alone.lower, alone.infinity, alone.error, alone.error1]);
          expect(Array.from(pmf.probs), where).toEqual(Array.from(alone.probs));
        });
      }
    }
  });

  it('pmfEpsilon is the smallest epsilon whose pmfDelta meets delta', () => {
    const h = 1e-3;
    const [pmf] = eventPmfs({ type: 'composed', events: [[gaussian, 9]] }, h);
    for (const delta of [1e-3, 1e-6, 1e-10]) {
      const eps = pmfEpsilon(pmf!, h, delta);
      expect(pmfDelta(pmf!, h, eps)).toBeLessThanOrEqual(delta);
      expect(pmfDelta(pmf!, h, eps * (1 - 1e-9))).toBeGreaterThan(delta * (1 - 1e-6));
    }
  });

  it('composition keeps the mass: what the tails lose goes to the infinite loss', () => {
    const [pmf] = eventPmfs({ type: 'composed', events: [[{ type: 'laplace', epsilon: 0.5 }, 37]] }, 1e-2);
    let sum = pmf!.infinity;
    for (const p of pmf!.probs) sum += p;
    expect(Math.abs(sum - 1)).toBeLessThan(1e-12);
  });
});

describe('eventFloors: lower bounds on delta', () => {
  it('never above the exact delta of composed Gaussians (mu sqrt(T)), and close to it on a fine grid', () => {
    const h = 1e-3;
    const [floor] = eventFloors({ type: 'composed', events: [[gaussian, 16]] }, h);
    for (const eps of [1, 4, 8, 12]) {
      const exact = gaussianDelta(4, eps);
      const lower = floorDelta(floor!, h, eps);
      expect(lower).toBeLessThanOrEqual(exact);
      expect(lower).toBeGreaterThan(exact * 0.97 - 1e-15);
    }
  });

  it('both directions of a subsampled Gaussian, each below its closed form', () => {
    const h = 1e-3;
    const floors = eventFloors({ type: 'poisson', rate: 0.05, event: gaussian }, h);
    for (const eps of [0.01, 0.1, 0.3]) {
      const exact = subsampledGaussianDelta(1, 0.05, eps);
      for (const [d, floor] of floors.entries()) expect(floorDelta(floor, h, eps)).toBeLessThanOrEqual(exact[d]!);
    }
  });

  it('composes a release with itself in one transform per law, as repeated squaring does (its floor within 1e-6 of it, or of the error bounds of the squarings)', () => {
    const h = 1e-3;
    const square = (x: FloorPair, times: number): FloorPair => {
      let result: FloorPair | undefined;
      let power = x;
      for (let k = times; k > 0; k = Math.floor(k / 2)) {
        if (k % 2 === 1) result = result ? convolveFloor(result, power) : power;
        if (k > 1) power = convolveFloor(power, undefined);
      }
      return result!;
    };
    for (const times of [7, 100, 1000]) {
      const sampled: Event = { type: 'poisson', rate: 0.05, event: gaussian };
      const [base] = eventFloors(sampled, h);
      const [powered] = eventFloors({ type: 'composed', events: [[sampled, times]] }, h);
      const reference = square(base!, times);
      for (const eps of [0.1, 0.5, 1, 2]) {
        const [a, b] = [floorDelta(powered!, h, eps), floorDelta(reference, h, eps)];
        expect(Math.abs(a - b), `${times} releases at eps ${eps}`).toBeLessThan(1e-6 * b + 1e-10);
      }
    }
  });

  it('floorEpsilon, in one pass, agrees with floorDelta: below the exact epsilon, and at least every eps whose floor exceeds delta', () => {
    const h = 1e-3;
    const [floor] = eventFloors({ type: 'composed', events: [[gaussian, 16]] }, h);
    for (const eps of [1, 4, 8, 12]) {
      const delta = gaussianDelta(4, eps);
      expect(floorEpsilon(floor!, h, delta)).toBeLessThanOrEqual(eps);
      const below = floorDelta(floor!, h, eps) * (1 - 1e-9);
      expect(floorEpsilon(floor!, h, below)).toBeGreaterThanOrEqual(eps * (1 - 1e-12));
    }
    expect(floorEpsilon(floor!, h, 1)).toBe(-Infinity); // no threshold's P-mass exceeds delta 1
  });
});

describe('pldSupports', () => {
  it('takes Gaussian, Laplace and pure releases, Poisson-subsampled ones and their compositions, all finite', () => {
    expect(
      pldSupports({
        type: 'composed',
        events: [
          [{ type: 'poisson', rate: 0.1, event: gaussian }, 5],
          [{ type: 'laplace', epsilon: 1 }, 2],
        ],
      }),
    ).toBe(true);
    expect(pldSupports({ type: 'gaussian', mu: Infinity })).toBe(false);
    expect(pldSupports({ type: 'poisson', rate: 0.1, event: { type: 'pure', epsilon: Infinity } })).toBe(false);
    expect(pldSupports({ type: 'zcdp', rho: 1 })).toBe(false);
    expect(pldSupports({ type: 'without-replacement', size: 1, population: 10, event: gaussian })).toBe(false);
    expect(pldSupports({ type: 'discrete-gaussian', variance: 4, sensitivity: 1 })).toBe(true);
    // Its atoms are summed one by one: beyond 2^20 of them (sigma 13797), the Renyi route.
    expect(pldSupports({ type: 'discrete-gaussian', variance: 13797 ** 2, sensitivity: 1 })).toBe(true);
    expect(pldSupports({ type: 'discrete-gaussian', variance: 13798 ** 2, sensitivity: 1 })).toBe(false);
  });
});

describe('the discrete Gaussian pair (any integer sensitivity)', () => {
  const reference = fixture('discrete-gaussian.json') as { exact: { sigma: number; sensitivity: number; epsilon: number; delta: number }[] };

  it('delta(eps) is never below the exact value (mpmath sums) and within 0.2% of it', () => {
    for (const { sigma, sensitivity, epsilon, delta } of reference.exact) {
      const where = `sigma ${sigma} d ${sensitivity} eps ${epsilon}`;
      const value = privacyOfEvent({ type: 'discrete-gaussian', variance: sigma * sigma, sensitivity }).delta(epsilon);
      expect(value, where).toBeGreaterThanOrEqual(delta);
      expect(value, where).toBeLessThanOrEqual(delta * 1.002);
    }
  });

  it('Poisson-subsampled and composed: the certified range holds the connect-the-dots figure of dp_accounting (interval 1e-5), within 0.1%', () => {
    const { cases } = fixture('discrete-gaussian-pld.json') as {
      cases: { sigma: number; sensitivity: number; rate: number; steps: number; delta: number; epsilon: number }[];
    };
    for (const c of cases) {
      const step: Event = { type: 'poisson', rate: c.rate, event: { type: 'discrete-gaussian', variance: c.sigma ** 2, sensitivity: c.sensitivity } };
      const run = privacyOfEvent({ type: 'composed', events: [[step, c.steps]] });
      const where = `sigma ${c.sigma} d ${c.sensitivity} q ${c.rate} T ${c.steps}`;
      const { lower, upper } = run.bounds(c.delta);
      expect(lower, where).toBeLessThanOrEqual(c.epsilon);
      expect(upper, where).toBeGreaterThanOrEqual(c.epsilon);
      expect(Math.abs(run.epsilon(c.delta) / c.epsilon - 1), where).toBeLessThan(1e-3);
    }
  });

  it('the curve at the grid points, in one sweep, is the pointwise sum raised by its error bound, never below mpmath', () => {
    const w = wasm();
    for (const { sigma, sensitivity, epsilon, delta } of reference.exact) {
      const variance = sigma * sigma;
      const single = w.hockeyDelta(4, variance, sensitivity, 1, 0, epsilon);
      expect(single, `sigma ${sigma} eps ${epsilon}`).toBeGreaterThanOrEqual(delta);
      expect(single).toBeLessThanOrEqual(delta * (1 + 1e-9) + 1e-300);
      const swept = w.arena(24);
      w.subsampledGrid(1, 0, epsilon, 1, 1, swept, swept + 8, swept + 16); // the grid {epsilon}: lower = epsilon, h = 1
      w.gridDeltas(4, variance, sensitivity, swept, swept + 8, swept + 16, 1, swept);
      const value = new Float64Array(w.memory.buffer, swept, 1)[0]!;
      expect(value).toBeGreaterThanOrEqual(delta);
      expect(value).toBeLessThanOrEqual(delta * (1 + 1e-9) + 1e-300);
    }
  });
});

describe('the discrete Laplace pair (any integer sensitivity)', () => {
  const reference = fixture('discrete-laplace.json') as {
    exact: { scale: number; sensitivity: number; epsilon: number; delta: number }[];
  };

  it('its delta(eps) is at least the exact one (mpmath sums), above it by at most its stated margin', () => {
    const w = wasm();
    const U = 2 ** -53;
    for (const { scale, sensitivity, epsilon, delta } of reference.exact) {
      const ours = w.hockeyDelta(3, scale, sensitivity, 1, 0, epsilon);
      expect(ours, `t ${scale} d ${sensitivity} eps ${epsilon}`).toBeGreaterThanOrEqual(delta);
      // The margin added, 32 u (|eps| + d/t) + 16 u, and a few ulp of rounding (the closed form has no cancellation).
      expect(ours - delta).toBeLessThanOrEqual(32 * U * (Math.abs(epsilon) + sensitivity / scale) + 16 * U + 1e-13 * delta);
    }
  });
});
