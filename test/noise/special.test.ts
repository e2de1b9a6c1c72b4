import { describe, expect, it } from 'vitest';
import { erfc, normalIsf, normalLogSf, normalSf } from '../../src/index.js';
import { builds, expectClose, fixture } from '../helpers.js';

type Regions = Record<string, Array<[number, number]>>;
const { functions } = fixture<{ functions: Record<'erfc' | 'normalSf' | 'normalLogSf' | 'normalIsf', Regions> }>('special.json');

/** docs/math.md, "Special functions": relative error at most 1e-15 (Q^-1: 1e-14) where the value is a normal double. */
const tolerance = { erfc: 1e-15, normalSf: 1e-15, normalLogSf: 1e-15, normalIsf: 1e-14 };

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
    expect(normalSf(-3)).toBeCloseTo(0.9986501019683699, 15);
    expect(normalLogSf(1e10)).toBeCloseTo(-5e19, 0);
    expect(normalIsf(0.025)).toBeCloseTo(1.959963984540054, 14);
    expect(() => erfc(NaN)).toThrow(/`x` must be a finite number; got NaN/);
    expect(() => normalSf(Infinity)).toThrow(RangeError);
    expect(() => normalLogSf('1' as unknown as number)).toThrow(TypeError);
    expect(() => normalIsf(0)).toThrow(/`p` must be a number > 0 and < 1; got 0/);
    expect(() => normalIsf(1)).toThrow(RangeError);
  });

  it('normalIsf inverts normalSf down to 1e-300 and beyond', () => {
    for (const p of [0.5, 0.3, 1e-3, 1e-20, 1e-100, 1e-300, 1e-310]) {
      const x = normalIsf(p);
      expectClose(normalLogSf(x), Math.log(p), 1e-14, `normalLogSf(normalIsf(${p}))`);
    }
  });
});
