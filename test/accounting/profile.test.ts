import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gaussianDelta, gaussianEpsilon, gaussianMu } from '../../src/index.js';
import { builds, EPS, expectClose, fixture, SEARCH } from '../helpers.js';

type Rows = Record<string, Array<[number, number, number]>>;
/** Rows with the exact answer's safe double: the largest below (mu0), or the smallest above (epsilon). */
type SafeRows = Record<string, Array<[number, number, number, number]>>;
const fixtures = fixture<{ gaussianDelta: Rows; gaussianMu: SafeRows; gaussianEpsilon: SafeRows }>('privacy.json');

/**
 * gaussianMu keeps a margin of 4e-15 max(1, |ln delta|) below delta (gaussianDelta's verified error
 * bound, the test above), so it is that much (over the profile's elasticity, about 1) below the
 * root, and the geometric steps at most twice that; the search itself is exact to 1e-12
 * (SEARCH). docs/accounting.md, "The safe side": within 1e-12 + 8e-15 max(1, |ln delta|) below the root,
 * and 8e-15 = 36.03 EPS, rounded down. Measured: 0.78 of it at worst (eps = 0, delta = 1e-200).
 */
const rootTolerance = (delta: number) => SEARCH + 36 * EPS * Math.max(1, -Math.log(delta));

/**
 * The error bound gaussianMu and gaussianEpsilon keep as a margin (assembly/accounting/profile.ts,
 * deltaError; docs/accounting.md, "The safe side", tau): delta = exp(log delta) carries 4e-15 per unit
 * of |log delta| (18.01 EPS, rounded down to 18), and the rounding of a = eps/mu - mu/2 moves
 * log delta by (|a| + 1) times a few ulp of eps/mu + mu/2 (2^-50 = 4 EPS, as in the library).
 * Measured: at most 0.10 of the bound.
 */
function deltaError(mu: number, eps: number, delta: number): number {
  const a = Math.abs(eps / mu - mu / 2);
  return 18 * EPS * Math.max(1, -Math.log(delta)) + 4 * EPS * (a + 1) * (eps / mu + mu / 2);
}

describe.each(builds)('privacy profile against mpmath, %s build', (_, w) => {
  for (const [region, rows] of Object.entries(fixtures.gaussianDelta)) {
    it(`gaussianDelta within the error bound the calibration keeps as its margin, region ${region} (${rows.length} points)`, () => {
      for (const [mu, eps, delta] of rows) {
        expectClose(w.gaussianDelta(mu, eps), delta, deltaError(mu, eps, delta), `gaussianDelta(${mu}, ${eps})`);
      }
    });
  }

  for (const [region, rows] of Object.entries(fixtures.gaussianMu)) {
    it(`gaussianMu close to the exact root and below it in exact arithmetic, region ${region} (${rows.length} points)`, () => {
      for (const [eps, delta, mu0, below] of rows) {
        const mu = w.gaussianMu(eps, delta);
        expectClose(mu, mu0, rootTolerance(delta), `gaussianMu(${eps}, ${delta})`);
        expect(mu, `gaussianMu(${eps}, ${delta}) against the exact root's largest double below`).toBeLessThanOrEqual(below);
        expect(w.gaussianDelta(mu, eps), `gaussianDelta(gaussianMu(${eps}, ${delta}))`).toBeLessThanOrEqual(delta);
      }
    });
  }

  for (const [region, rows] of Object.entries(fixtures.gaussianEpsilon)) {
    it(`gaussianEpsilon, region ${region} (${rows.length} points)`, () => {
      for (const [mu, delta, eps0, above] of rows) {
        const eps = w.gaussianEpsilon(mu, delta);
        expectClose(eps, eps0, rootTolerance(delta), `gaussianEpsilon(${mu}, ${delta})`);
        expect(eps, `gaussianEpsilon(${mu}, ${delta}) against the exact answer's smallest double above`).toBeGreaterThanOrEqual(above);
        expect(w.gaussianDelta(mu, eps)).toBeLessThanOrEqual(delta);
      }
    });
  }
});

describe('calibration', () => {
  it('reproduces the references of docs/accounting.md, "Calibration"', () => {
    expect(gaussianMu(0.5, 1e-6).toFixed(12)).toBe('0.124106149031');
    expect((1 / gaussianMu(1, 1e-5)).toFixed(11)).toBe('3.73063163482');
  });

  it('is on the safe side and tight for random (epsilon, delta) (fast-check)', () => {
    const eps = fc.oneof(
      fc.constant(0),
      fc.double({ min: -8, max: 3, noNaN: true }).map((e) => 10 ** e),
    );
    const delta = fc.double({ min: -100, max: Math.log10(0.99), noNaN: true }).map((e) => 10 ** e);
    fc.assert(
      fc.property(eps, delta, (e, d) => {
        const mu = gaussianMu(e, d);
        expect(gaussianDelta(mu, e)).toBeLessThanOrEqual(d);
        expect(gaussianDelta(mu * (1 + rootTolerance(d)), e)).toBeGreaterThan(d);
        // epsilon(mu0(eps, delta), delta) gives eps back, rounded up: by the search's 1e-12 relative
        // (SEARCH), and by the margin, which moves epsilon up by about tau over the slope
        // |d ln delta / d eps| = e^eps Q(b) / delta (small only for delta near 1): an absolute
        // 4096 EPS (measured 484 EPS, at eps = 1e-8 and delta = 0.95). Earlier: e (1 + 1e-9) + 1e-12.
        const back = gaussianEpsilon(mu, d);
        expect(gaussianDelta(mu, back)).toBeLessThanOrEqual(d);
        expect(back).toBeLessThanOrEqual(e * (1 + SEARCH) + 4096 * EPS);
      }),
      { numRuns: 500, seed: 20261123 },
    );
  });

  it('gives zero epsilon when no epsilon is needed, and zero delta for mu = 0', () => {
    expect(gaussianEpsilon(0, 1e-6)).toBe(0);
    expect(gaussianEpsilon(0.1, 0.5)).toBe(0);
    expect(gaussianDelta(0, 1)).toBe(0);
  });

  it('checks its arguments before computing', () => {
    expect(() => gaussianMu(-1, 1e-5)).toThrow(/`epsilon` must be a number >= 0 and <= 1000000; got -1/);
    expect(() => gaussianMu(1, 0)).toThrow(/`delta` must be a number >= 1e-300 and < 1; got 0/);
    expect(() => gaussianMu(1, 1)).toThrow(RangeError);
    expect(() => gaussianMu(1, NaN)).toThrow(RangeError);
    expect(() => gaussianMu('1' as unknown as number, 0.1)).toThrow(TypeError);
    expect(() => gaussianDelta(Infinity, 1)).toThrow(/`mu` must be a finite number >= 0; got Infinity/);
    expect(() => gaussianEpsilon(1e4, 1e-5)).toThrow(/`mu` must be a number >= 0 and <= 1000/);
  });
});
