import { describe, expect, it } from 'vitest';
import { erfc, normalIsf, normalLogSf, normalSf } from '../../src/index.js';
import { builds, EPS, expectClose, fixture } from '../helpers.js';

type Regions = Record<string, Array<[number, number]>>;
const { functions } = fixture<{ functions: Record<'erfc' | 'normalSf' | 'normalLogSf' | 'normalIsf', Regions> }>('special.json');

/**
 * Relative error against the mpmath fixtures (each value rounded once to the nearest double),
 * where the value is a normal double. Measured: erfc 1.40 EPS, Q 2.78 EPS (at x = 28.2),
 * log Q 1.54 EPS, Q^-1 1.79 EPS.
 */
const tolerance = {
  // musl's erfc is below 1 ulp (docs/math.md, "erfc"), at most 1 EPS relative; the fixture's own
  // rounding adds half an ulp: 1.5 EPS, so 2.
  erfc: 2 * EPS,
  // docs/math.md, "Accuracy targets": at most 1e-15 = 4.5 EPS, rounded down.
  normalSf: 4 * EPS,
  normalLogSf: 4 * EPS,
  // docs/math.md, "Accuracy targets": at most 1e-14 for Q^-1 = 45.04 EPS, rounded down.
  normalIsf: 45 * EPS,
};

describe.each(builds)('special functions against mpmath, %s build', (_, w) => {
  for (const [name, regions] of Object.entries(functions) as Array<[keyof typeof tolerance, Regions]>) {
    for (const [region, rows] of Object.entries(regions)) {
      it(`${name}, region ${region} (${rows.length} points)`, () => {
        expect(rows.length).toBeGreaterThan(0);
        for (const [x, expected] of rows) expectClose(w[name](x), expected, tolerance[name], `${name}(${x})`);
      });
    }
  }
});

describe('the public functions', () => {
  it('agree with the module and check their argument', () => {
    expect(erfc(0.5)).toBe(builds[1]![1].erfc(0.5));
    // Q(-3) = erfc(-3 / sqrt 2) / 2 against its correctly rounded value (mpmath): erfc's bound of
    // 2 EPS above (the earlier toBeCloseTo(_, 15) allowed 2.25 EPS); measured exact.
    expectClose(normalSf(-3), 0.9986501019683699, 2 * EPS, 'normalSf(-3)');
    // log Q(1e10) = -5e19 - 23.9...; doubles near 5e19 are 8192 apart, so the answer is exactly the
    // correctly rounded -5e19 (0 EPS, as the earlier toBeCloseTo(_, 0), |error| < 0.5, required).
    expectClose(normalLogSf(1e10), -5e19, 0, 'normalLogSf(1e10)');
    // Q^-1(0.025) = 1.95996398454005424 (mpmath); the double below, 0.43 EPS under it, is what the
    // library returns (the nearest double is one ulp up). The tail branch ends with a Newton step on
    // log Q, so x is off by log Q's error (4.5 EPS of |log Q| = 3.69) times M(x) / x = 0.22, about
    // 3.6 EPS, plus its own rounding: 4 EPS, doubled (the earlier toBeCloseTo(_, 14) allowed 11.5 EPS).
    expectClose(normalIsf(0.025), 1.959963984540054, 8 * EPS, 'normalIsf(0.025)');
    expect(() => erfc(NaN)).toThrow(/`x` must be a finite number; got NaN/);
    expect(() => normalSf(Infinity)).toThrow(RangeError);
    expect(() => normalLogSf('1' as unknown as number)).toThrow(TypeError);
    expect(() => normalIsf(0)).toThrow(/`p` must be a number > 0 and < 1; got 0/);
    expect(() => normalIsf(1)).toThrow(RangeError);
  });

  it('normalIsf inverts normalSf down to 1e-300 and beyond', () => {
    for (const p of [0.5, 0.3, 1e-3, 1e-20, 1e-100, 1e-300, 1e-310]) {
      const x = normalIsf(p);
      // log Q's own bound (4.5 EPS, above), plus about 1 EPS from rounding x (for large x,
      // d log Q / d log x = -x / M(x), about 2 log Q) and Math.log's rounding: 8 EPS; measured 0.83 EPS.
      expectClose(normalLogSf(x), Math.log(p), 8 * EPS, `normalLogSf(normalIsf(${p}))`);
    }
  });
});
