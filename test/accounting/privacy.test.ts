// Privacy objects (src/accounting/privacy.ts): failing closed, the certified range, partition selection.
import { describe, expect, it } from 'vitest';
import { compose, gaussianMechanism, gaussianPrivacy, laplacePrivacy, subsample } from '../../src/index.js';
import { thresholdedPrivacy } from '../../src/accounting/privacy.js';

describe('accounting fails closed: never NaN, null or negative; overflow is Infinity with a warning', () => {
  it('a scale so small that the loss overflows gives mu = Infinity and a warning, not NaN', () => {
    const p = gaussianPrivacy({ scales: [1, 1e-160], sensitivity: [1, 1] });
    expect(p.mu).toBe(Infinity);
    expect(p.rho).toBe(Infinity);
    expect(p.epsilon(1e-6)).toBe(Infinity);
    expect(p.delta(1)).toBe(1);
    expect(p.warning).toMatch(/no privacy: the privacy loss overflows/);
    const l = laplacePrivacy({ scales: [1e-320, 1], sensitivity: [1, 1] });
    expect(l.epsilonPure).toBe(Infinity);
    expect(l.epsilon(1e-6)).toBe(Infinity);
    expect(l.warning).toMatch(/no privacy/);
    expect(compose([p, l]).epsilon(1e-6)).toBe(Infinity);
  });

  it('every privacy object has one shape: kind, its own numbers, epsilon(delta) and delta(epsilon), and is frozen', () => {
    const objects = [
      gaussianPrivacy({ scales: [1], sensitivity: [1] }),
      laplacePrivacy({ scales: [2], sensitivity: [1] }),
      compose([gaussianPrivacy({ scales: [1], sensitivity: [1] }), laplacePrivacy({ scales: [2], sensitivity: [1] })]),
      compose([gaussianPrivacy({ scales: [1], sensitivity: [1] }), gaussianMechanism({ sensitivity: [1], rho: 0.1 }).privacy]),
    ];
    expect(objects.map((p) => p.kind)).toEqual(['gdp', 'pure', 'pld', 'zcdp']);
    expect(objects.map((p) => [p.form, p.noise])).toEqual([
      ['noise', 'gaussian'],
      ['noise', 'laplace'],
      ['composition', undefined],
      ['composition', undefined],
    ]);
    for (const p of objects) {
      expect(typeof p.epsilon).toBe('function');
      expect(typeof p.delta).toBe('function');
      expect(p.epsilon(1e-6)).toBeGreaterThan(0);
      expect(p.delta(0.1)).toBeGreaterThanOrEqual(0);
      expect(Object.isFrozen(p)).toBe(true);
      expect(() => {
        (p as { kind: string }).kind = 'pure';
      }).toThrow(TypeError);
    }
    // Pure epsilon0-DP is (eps, 1 - e^(eps - eps0))-DP below eps0, and (eps0, 0)-DP: epsilon(0) answers.
    const pure = objects[1]!;
    expect(pure.delta((pure as { epsilonPure: number }).epsilonPure)).toBe(0);
    expect(pure.epsilon(0)).toBe((pure as { epsilonPure: number }).epsilonPure);
    expect(objects[0]!.epsilon(0)).toBe(Infinity); // no finite epsilon at delta 0 for Gaussian noise
    expect(objects[3]!.epsilon(0)).toBe(Infinity);
    // One Laplace coordinate is accounted by its own loss, tighter than the pure conversion
    // 1 - e^(0.2 - 0.5): its hockey-stick curve is 1 - e^((0.2 - 0.5) / 2) (docs/accounting.md),
    // which the accountant's figure bounds from above within its 1% (measured 4.8e-14 relative).
    expect(pure.delta(0.2)).toBeLessThan(-Math.expm1(0.2 - 0.5));
    expect(pure.delta(0.2)).toBeGreaterThanOrEqual(-Math.expm1((0.2 - 0.5) / 2));
    expect(pure.delta(0.2)).toBeLessThan(-Math.expm1((0.2 - 0.5) / 2) * 1.01);
  });
});

describe('found by review: the certified range and the corners of the accountant', () => {
  const g = gaussianPrivacy({ scales: 1, sensitivity: [1] });

  it('a release composed with no release keeps its own epsilon, and its lower bound stays below it', () => {
    const withNoOp = compose([g, { event: { class_name: 'NoOpDpEvent' } }]);
    expect(withNoOp.epsilon(1e-5)).toBeLessThan(g.epsilon(1e-5) * (1 + 1e-6));
    expect(withNoOp.bounds(1e-5).lower).toBeLessThanOrEqual(g.epsilon(1e-5));
    // A Laplace coordinate whose ratio underflows is a (tiny) loss, not an empty composition.
    expect(laplacePrivacy({ scales: 1e308, sensitivity: [2 ** -400] }).epsilon(1e-5)).toBeGreaterThanOrEqual(0);
  });

  it('beyond mu = 1000 the Gaussian claims no lower end (its upper figure is the tail bound, 2e-6 above the exact one)', () => {
    // mpmath: the exact epsilon at mu = 1001, delta 1e-6 is 505757.68010; the tail bound gives 505758.678.
    const { lower, upper } = gaussianPrivacy({ scales: 1, sensitivity: [1001] }).bounds(1e-6);
    expect(lower).toBeLessThanOrEqual(505757.6801);
    expect(upper).toBeGreaterThanOrEqual(505757.6801);
  });

  it('rate 1 is the release itself; a pure release subsampled stays pure at ln(1 + q (e^epsilon - 1))', () => {
    const l = laplacePrivacy({ scales: 1, sensitivity: [1] });
    expect(subsample(l, { rate: 1 })).toBe(l);
    const half = subsample(l, { rate: 0.5 });
    expect(half.epsilon(0)).toBeGreaterThanOrEqual(Math.log(1 + 0.5 * Math.expm1(1)));
    expect(half.epsilon(0)).toBeLessThan(Math.log(1 + 0.5 * Math.expm1(1)) * (1 + 1e-13));
  });

  it('an answer of 0, or a grid too long to build, keeps what the coarser grids certified (never Infinity for a finite answer)', () => {
    // delta(0) of this pair is 0.383 (mpmath), so epsilon(0.9) is 0; it once ran 66 s and said Infinity.
    expect(subsample(g, { rate: 0.999999 }).epsilon(0.9)).toBe(0);
    expect(subsample(gaussianPrivacy({ scales: 0.2, sensitivity: [1] }), { rate: 1e-6 }).epsilon(1e-5)).toBe(0);
    // At delta 1e-10, below the PLD's rounding bound for 10^4 steps, the Renyi route answers (1.75).
    const run = compose([{ privacy: subsample(g, { rate: 1e-3 }), times: 10000 }]);
    expect(run.epsilon(1e-10)).toBeLessThan(2);
    expect(run.epsilon(1e-10)).toBeGreaterThan(run.epsilon(1e-5));
  });

  it('a subsampled Gaussian far apart (mu = 20) keeps the unsampled half of its mass in range: delta near q, not near 1', () => {
    // The remove pair's first law is (1 - q) Q + q P: its loss under Q was once piled on the lowest grid point.
    const d = subsample(gaussianPrivacy({ scales: 0.05, sensitivity: [1] }), { rate: 1e-6 }).delta(0.01);
    expect(d).toBeGreaterThanOrEqual(1e-6 * (1 - Math.exp(-1))); // at least the P part's share far above 0.01
    expect(d).toBeLessThan(2e-6); // measured 1.000000003e-6; it was 0.998
  });

  it('pure events read from JSON keep their pure figure: 1000 discrete Laplace releases at sensitivity 1 are 1000-DP', () => {
    const run = compose([{ event: { class_name: 'DiscreteLaplaceDpEvent', noise_parameter: 1, sensitivity: 1 }, times: 1000 }]);
    expect(run.epsilon(1e-10)).toBeLessThanOrEqual(1000 * (1 + 1e-12)); // once Infinity
    expect(run.epsilon(0)).toBeLessThanOrEqual(1000 * (1 + 1e-12));
  });

  it('compositions nested more than 1000 deep are refused with a clear error, not a stack overflow in a later call', () => {
    let p = compose([g]);
    for (let k = 1; k < 1000; k++) p = compose([p]);
    expect(p.epsilon(1e-5)).toBeCloseTo(g.epsilon(1e-5), 6);
    expect(() => compose([p, g])).toThrow(/compositions nest more than 1000 deep; compose the releases in one list/);
  });

  it('a polluted Object.prototype.event does not turn { privacy, times } into an event', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.event = { class_name: 'NoOpDpEvent' };
    try {
      expect(compose([{ privacy: g, times: 2 }]).epsilon(1e-5)).toBeGreaterThan(g.epsilon(1e-5));
    } finally {
      delete proto.event;
    }
  });
});

describe('the certified range is within 1% from epsilon 0.01 to 100', () => {
  it.each([
    [
      'mixture, epsilon 0.006',
      () =>
        compose([
          { privacy: laplacePrivacy({ scales: 1000, sensitivity: [1] }), times: 5 },
          { privacy: gaussianPrivacy({ scales: 1000, sensitivity: [1] }), times: 3 },
        ]),
    ],
    [
      'subsampled Gaussian, epsilon 0.017',
      () => compose([{ privacy: subsample(gaussianPrivacy({ scales: 5, sensitivity: [1] }), { rate: 0.001 }), times: 1000 }]),
    ],
    [
      'mixture, epsilon 100',
      () =>
        compose([
          { privacy: laplacePrivacy({ scales: 0.5, sensitivity: [1] }), times: 40 },
          { privacy: gaussianPrivacy({ scales: 0.3, sensitivity: [1] }), times: 3 },
        ]),
    ],
  ] as const)('%s', (_, make) => {
    const { lower, upper } = make().bounds(1e-5);
    expect(lower).toBeGreaterThan(0);
    expect((upper - lower) / upper).toBeLessThan(0.01); // measured 6.5e-4, 2.1e-4, 1.1e-5
  });
});

describe('partition selection (thresholdedPrivacy)', () => {
  const inner = gaussianPrivacy({ scales: [4], sensitivity: [1] });
  const beta = 2.5e-7;
  const t = thresholdedPrivacy(inner, beta);

  it('adds beta to delta, and shifts epsilon by beta / (1 - beta) in the other direction', () => {
    const lambda = beta / (1 - beta);
    for (const eps of [0, 1e-8, 0.1, 0.5, 1, 2]) {
      const shifted = eps >= lambda ? inner.delta(eps - lambda) : inner.delta(0) + (lambda - eps);
      expect(t.delta(eps)).toBeGreaterThanOrEqual(Math.max(inner.delta(eps) + beta, shifted));
      expect(t.delta(eps)).toBeLessThan(Math.max(inner.delta(eps) + beta, shifted) * (1 + 1e-12));
    }
    for (const d of [1e-6, 1e-3]) {
      expect(t.delta(t.epsilon(d))).toBeLessThanOrEqual(d * (1 + 1e-9));
      expect(t.epsilon(d)).toBeGreaterThan(inner.epsilon(d));
    }
    expect(t.epsilon(beta)).toBe(Infinity); // nothing is left for the releases themselves
  });

  it('composes: the releases as usual, the deltas added up; no Renyi bound, no DpEvent', () => {
    const both = compose([t, { privacy: t, times: 2 }]);
    const expected = thresholdedPrivacy(compose([{ privacy: inner, times: 3 }]), 3 * beta);
    expect(both.epsilon(1e-5)).toBeCloseTo(expected.epsilon(1e-5), 10);
    expect(both.form).toBe('partition-selection');
    expect(t.rdp(2)).toBe(Infinity);
    expect(() => t.toDpEvent()).toThrow(/partition selection/);
  });
});
