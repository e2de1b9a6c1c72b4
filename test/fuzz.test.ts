// Fuzzing the public API with arbitrary types and values: every call returns a valid result or
// throws the documented TypeError/RangeError (with the library's wording); none returns NaN or
// leaves the wasm memory larger than it found it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as dpnoise from '../src/index.js';
import { wasm } from '../src/wasm/loader.js';
import { hangCases, slowOrWrong } from './hangs.js';

const anything = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 1, -1, 0.5, 1e-300, 1e300, NaN, Infinity, -Infinity, 2 ** 400, 2 ** -401),
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt(),
  fc.array(fc.double(), { maxLength: 5 }),
  fc.array(fc.double({ min: 0, max: 10, noNaN: true }), { minLength: 1, maxLength: 5 }),
  fc.float64Array({ maxLength: 5 }),
  fc.float64Array({ minLength: 1, maxLength: 5, min: 0, max: 10, noNaN: true }),
  fc.constant({}),
  fc.constant(new Int32Array(3)),
);

const plausible = {
  epsilon: fc.oneof(anything, fc.double({ min: 0, max: 20, noNaN: true })),
  delta: fc.oneof(anything, fc.double({ min: 1e-12, max: 0.5, noNaN: true })),
  profile: fc.oneof(anything, fc.array(fc.oneof(fc.constant(0), fc.double({ min: 1e-6, max: 1e6, noNaN: true })), { minLength: 1, maxLength: 8 })),
  allocation: fc.oneof(anything, fc.constantFrom('optimal', 'iid', 'spr')),
};

/** Throws unless the value is a valid result: no NaN anywhere in numbers or Float64Arrays. */
function checkResult(value: unknown, depth = 0): void {
  if (typeof value === 'number') expect(Number.isNaN(value)).toBe(false);
  else if (value instanceof Float64Array) expect(value.every((x) => !Number.isNaN(x))).toBe(true);
  else if (value && typeof value === 'object' && depth < 2)
    Object.values(value).forEach((v) => {
      checkResult(v, depth + 1);
    });
}

/** Calls f; it must return a valid result or throw a documented error. */
function call(f: () => unknown): void {
  let result: unknown;
  try {
    result = f();
  } catch (error) {
    expect(error instanceof TypeError || error instanceof RangeError, String(error)).toBe(true);
    expect((error as Error).message).toMatch(/^dpnoise: /);
    return;
  }
  checkResult(result);
}

const fuzzed: Array<[string, fc.Arbitrary<() => unknown>]> = [
  [
    'special functions',
    fc.tuple(anything, fc.constantFrom(dpnoise.erfc, dpnoise.normalSf, dpnoise.normalLogSf, dpnoise.normalIsf)).map(
      ([x, f]) =>
        () =>
          f(x as number),
    ),
  ],
  [
    'privacy profile',
    fc.tuple(plausible.epsilon, plausible.delta, anything).map(([e, d, m]) => () => [
      dpnoise.gaussianMu(e as number, d as number),
      dpnoise.gaussianDelta(m as number, e as number),
      dpnoise.gaussianEpsilon(m as number, d as number),
    ]),
  ],
  [
    'calibrateGaussian',
    fc
      .record(
        {
          sensitivity: plausible.profile,
          epsilon: plausible.epsilon,
          delta: plausible.delta,
          allocation: plausible.allocation,
          errorPower: fc.oneof(fc.constant(undefined), anything),
        },
        { requiredKeys: ['sensitivity', 'epsilon', 'delta'] },
      )
      .map((o) => () => dpnoise.calibrateGaussian(o as never)),
  ],
  [
    'calibrateLaplace',
    fc
      .record({ sensitivity: plausible.profile, epsilon: plausible.epsilon, weights: anything }, { requiredKeys: ['sensitivity', 'epsilon'] })
      .map((o) => () => dpnoise.calibrateLaplace(o as never)),
  ],
  [
    'samplers',
    fc
      .tuple(
        fc.oneof(
          anything.filter((x) => !(typeof x === 'number' && x > 1e5)),
          fc.integer({ min: 0, max: 20 }),
        ),
        anything,
        fc.constantFrom(0, 1, 2, 3),
      )
      .map(([n, s, k]) => () => {
        const f = [dpnoise.gaussianNoise, dpnoise.laplaceNoise][k % 2]!;
        const add = [dpnoise.addGaussianNoise, dpnoise.addLaplaceNoise][k % 2]!;
        return k < 2 ? f(n as number, s as number) : add(n as never, s as number);
      }),
  ],
  [
    'correlatedSum',
    fc
      .record(
        {
          dimension: fc.oneof(anything, fc.integer({ min: 1, max: 6 })),
          rho: anything,
          sparsity: anything,
          bound: anything,
          mode: fc.oneof(fc.constant('grid'), anything),
          grid: anything,
        },
        { requiredKeys: ['dimension'] },
      )
      .chain((o) => fc.tuple(fc.constant(o), anything, anything))
      .map(
        ([o, sums, count]) =>
          () =>
            dpnoise.correlatedSum(o as never).release(sums as never, count as number),
      ),
  ],
  [
    'mechanisms and accounting',
    fc.tuple(plausible.profile, anything, plausible.epsilon, plausible.delta).map(([sensitivity, scales, e, d]) => () => {
      const p = dpnoise.gaussianPrivacy({ scales, sensitivity } as never);
      return [
        p.mu,
        p.delta(e as number),
        p.epsilon(d as number),
        (dpnoise.compose([p, p]) as dpnoise.GdpPrivacy).epsilon(d as number),
        dpnoise.gaussianMechanism({ sensitivity, epsilon: e, delta: d } as never).release(scales as never),
      ];
    }),
  ],
  ['createRng', anything.map((seed) => () => dpnoise.gaussianNoise(2, 1, { rng: dpnoise.createRng({ seed } as never) }))],
];

describe('fuzzing the public API (fast-check)', () => {
  it.each(fuzzed)('%s: a valid result or a documented error, never NaN', (_, calls) => {
    fc.assert(
      fc.property(calls, (f) => call(f)),
      { numRuns: 400, seed: 7 },
    );
  });

  it('1e4 calls in a row do not grow wasm memory', () => {
    const memory = wasm().memory;
    const before = memory.buffer.byteLength;
    for (let i = 0; i < 10_000; i++) {
      call(() => dpnoise.calibrateGaussian({ sensitivity: [1, i % 7, 3], epsilon: 1 + (i % 5), delta: 1e-6 }));
      call(() => dpnoise.addLaplaceNoise(new Float64Array(i % 17), 1));
    }
    expect(memory.buffer.byteLength).toBe(before);
  });
});

describe('no call hangs: the extremes of every accepted range (the full grid: fuzz.long.test.ts)', () => {
  it.each(hangCases('quick'))('%s', (_, calls) => {
    expect(slowOrWrong(calls)).toEqual({ slow: [], wrong: [] });
  });
});
