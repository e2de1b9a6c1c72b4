// Tilted composition (docs/accounting.md, "Tilted composition") against the exact composition of
// masses that are multiples of 2^-20 (in BigInt): every delta it certifies is at least the exact
// one, deep in the tail too, where the untilted composition's rounding bound swamps the answer.
import { describe, expect, it } from 'vitest';
import { composeAll, convolveFloor, type FloorPair, inTree, type Pmf, powerFloor, selfCompose } from '../../src/engine/masses.js';
import { floorDelta, pmfDelta } from '../../src/engine/pld.js';
import { testStart, tiltedComposition, tiltedFloorComposition } from '../../src/engine/tilt.js';
import { lcg } from '../helpers.js';

const BITS = 20;
const h = 2 ** -3;

/**
 * A loss distribution shaped like a subsampled release's (most mass at small losses, a thin tail up
 * to `n` grid steps), its masses multiples of 2^-20, and `infinity` (a multiple of 2^-20) at the infinite loss.
 */
function release(n: number, lower: number, random: () => number, infinity = 0): Pmf {
  const weights = Array.from({ length: n }, (_, i) => Math.exp(-i / 2) * (0.5 + random()));
  const total = weights.reduce((a, b) => a + b, 0);
  const probs = Float64Array.from(weights, (w) => Math.floor((w / total) * (2 ** BITS - 2)) * 2 ** -BITS);
  return { lower, probs, infinity, error: 0, error1: 0 };
}

/** The exact composition of the parts: its masses from its lowest loss up, and its mass at infinity. */
function exactComposition(parts: ReadonlyArray<{ x: Pmf; times: number }>): { lower: number; masses: number[]; infinity: number } {
  let result = [1n];
  let lower = 0;
  let finite = 1n; // the denominator's share with no infinite loss, as an integer over 2^(BITS * releases)
  let releases = 0;
  for (const { x, times } of parts) {
    const integers = Array.from(x.probs, (v) => BigInt(v * 2 ** BITS));
    const kept = 2n ** BigInt(BITS) - BigInt(x.infinity * 2 ** BITS);
    for (let t = 0; t < times; t++) {
      const next = new Array<bigint>(result.length + integers.length - 1).fill(0n);
      for (let i = 0; i < result.length; i++) for (let j = 0; j < integers.length; j++) next[i + j]! += result[i]! * integers[j]!;
      result = next;
      finite *= kept;
      lower += x.lower;
      releases++;
    }
  }
  const scale = 2n ** BigInt(BITS * releases);
  const masses = result.map((v) => ratio(v, scale));
  return { lower, masses, infinity: ratio(scale - finite, scale) };
}

/** v / scale as a double, scale a power of two below 2^1024: within an ulp. */
function ratio(v: bigint, scale: bigint): number {
  if (v === 0n) return 0;
  const shift = scale.toString(2).length - 1;
  return Number(v) * 2 ** -shift;
}

/** delta(eps) of the exact composition. */
function exactDelta(c: { lower: number; masses: number[]; infinity: number }, eps: number): number {
  let delta = c.infinity;
  c.masses.forEach((p, i) => {
    const loss = (c.lower + i) * h;
    if (loss > eps) delta += -Math.expm1(eps - loss) * p;
  });
  return delta;
}

describe('tilted composition (docs/accounting.md, "Tilted composition")', () => {
  const random = lcg(41);
  const one = release(24, -2, random);
  const other = release(16, -1, random);
  const withInfinity = release(12, 0, random, 2 ** -BITS);
  const cases: Record<string, Array<{ x: Pmf; times: number }>> = {
    'one release 40 times': [{ x: one, times: 40 }],
    'two releases 20 times each': [
      { x: one, times: 20 },
      { x: other, times: 20 },
    ],
  };

  for (const [name, parts] of Object.entries(cases)) {
    it(`${name}: every delta at least the exact one, within 0.1% of it where the untilted bound is a million times larger`, () => {
      const exact = exactComposition(parts);
      const untilted = composeAll(parts.map(({ x, times }) => selfCompose(x, times)));
      let beyond = 0; // points where the untilted bound cannot come near the exact delta
      for (let eps = 1; eps <= 24; eps += 0.5) {
        const want = exactDelta(exact, eps);
        const got = pmfDelta(tiltedComposition(parts, h, eps).pmf!, h, eps);
        expect(got).toBeGreaterThanOrEqual(want * (1 - 1e-12));
        expect(got).toBeLessThanOrEqual(want * (1 + 1e-6));
        // A cutoff below eps (the accountant's, for epsilon(delta)) certifies it too, and a delta
        // below the cutoff, where the mass below it counts.
        const below = tiltedComposition(parts, h, eps * 0.9).pmf!;
        expect(pmfDelta(below, h, eps)).toBeGreaterThanOrEqual(want * (1 - 1e-12));
        expect(pmfDelta(below, h, eps * 0.7)).toBeGreaterThanOrEqual(exactDelta(exact, eps * 0.7) * (1 - 1e-12));
        if (pmfDelta(untilted, h, eps) > 1e6 * want) beyond++;
      }
      expect(beyond).toBeGreaterThan(10);
    });
  }

  it('keeps the infinite loss: a part with mass there composes to at least the exact delta', () => {
    const parts = [
      { x: one, times: 10 },
      { x: withInfinity, times: 10 },
    ];
    const exact = exactComposition(parts);
    expect(exact.infinity).toBeGreaterThan(0);
    let tilted = 0;
    for (let eps = 0.5; eps <= 12; eps += 0.5) {
      const { pmf } = tiltedComposition(parts, h, eps);
      if (!pmf) continue; // no tilt helps at the smallest targets
      tilted++;
      expect(pmfDelta(pmf, h, eps)).toBeGreaterThanOrEqual(exactDelta(exact, eps) * (1 - 1e-12));
    }
    expect(tilted).toBeGreaterThan(15);
  });

  it('is absent where no tilt helps: at a target of 0 or below the losses', () => {
    expect(tiltedComposition([{ x: one, times: 40 }], h, 0).pmf).toBeUndefined();
    expect(tiltedComposition([{ x: one, times: 40 }], h, Number.POSITIVE_INFINITY).pmf).toBeUndefined();
  });
});

/** The exact times-fold compositions of a floor pair's P-masses and stored (tilted) Q-masses, both multiples of 2^-20 (in BigInt). */
function exactFloor(parts: ReadonlyArray<{ x: FloorPair; times: number }>): { lower: number; p: number[]; q: number[]; tilt: number } {
  let [p, q] = [[1n], [1n]];
  let [lower, tilt, releases] = [0, 0, 0];
  const times = (a: bigint[], b: bigint[]) => {
    const next = new Array<bigint>(a.length + b.length - 1).fill(0n);
    for (let i = 0; i < a.length; i++) for (let j = 0; j < b.length; j++) next[i + j]! += a[i]! * b[j]!;
    return next;
  };
  for (const { x, times: t } of parts) {
    const [ip, iq] = [Array.from(x.p, (v) => BigInt(v * 2 ** BITS)), Array.from(x.q, (v) => BigInt(v * 2 ** BITS))];
    for (let k = 0; k < t; k++) {
      [p, q] = [times(p, ip), times(q, iq)];
      [lower, tilt, releases] = [lower + x.lower, tilt + x.tilt, releases + 1];
    }
  }
  const scale = 2n ** BigInt(BITS * releases);
  return { lower, p: p.map((v) => ratio(v, scale)), q: q.map((v) => ratio(v, scale)), tilt };
}

/** The best test's exact P(S_K) - e^eps Q(S_K) over thresholds K (S_K: the outcomes whose binned losses sum to at least bin K). */
function exactBestTest(f: { lower: number; p: number[]; q: number[]; tilt: number }, eps: number): number {
  let [p, q, best] = [0, 0, 0];
  for (let k = f.p.length - 1; k >= 0; k--) {
    p += f.p[k]!;
    q += f.q[k]! * Math.exp(-(f.lower + k) * h - f.tilt);
    best = Math.max(best, p - Math.exp(eps) * q);
  }
  return best;
}

/** A floor pair whose stored Q-masses (Q e^(loss + tilt)) are 0.9 of its P-masses: multiples of 2^-20 both. */
function floorOf(x: Pmf): FloorPair {
  const q = Float64Array.from(x.probs, (v) => Math.floor(0.9 * v * 2 ** BITS) * 2 ** -BITS);
  return { lower: x.lower, p: x.probs, q, tilt: 0, errorP: 0, errorQ: 0, relative: 0 };
}

describe('tilted floors (docs/accounting.md, "Tilted composition")', () => {
  const random = lcg(45);
  const cases: Record<string, Array<{ x: FloorPair; times: number }>> = {
    'one pair 40 times': [{ x: floorOf(release(24, -2, random)), times: 40 }],
    'two pairs 20 times each': [
      { x: floorOf(release(24, -2, random)), times: 20 },
      { x: floorOf(release(16, -1, random)), times: 20 },
    ],
  };
  for (const [name, parts] of Object.entries(cases)) {
    it(`${name}: every lower delta at most the exact best test, within 0.1% of it down to 1e-15, where the untilted floor certifies nothing`, () => {
      const exact = exactFloor(parts);
      const untilted = inTree(
        parts.map(({ x, times }) => powerFloor(x, times)),
        convolveFloor,
      );
      let beyond = 0; // where the untilted floor certifies nothing
      for (let eps = 1; eps <= 24; eps += 0.5) {
        const want = exactBestTest(exact, eps);
        if (!(want > 0)) continue;
        const { pair } = tiltedFloorComposition(parts, h, testStart(untilted, h, eps) - h);
        if (!pair) continue; // no tilt helps where the test starts low
        const got = floorDelta(pair, h, eps);
        expect(got).toBeLessThanOrEqual(want * (1 + 1e-12));
        // Below 1e-15 the untilted floor no longer finds where the best test starts (the target): 2.7% below at 3.7e-16.
        if (want > 1e-15) expect(got).toBeGreaterThanOrEqual(want * (1 - 1e-3));
        if (floorDelta(untilted, h, eps) < 1e-3 * want) beyond++;
      }
      expect(beyond).toBeGreaterThan(5);
    });
  }
});
