// Fuzzing the public API with arbitrary types and values: every call returns a valid result or
// throws the documented TypeError/RangeError (with the library's wording); none returns NaN or
// leaves the wasm memory larger than it found it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as dpnoise from '../src/index.js';
import { wasm } from '../src/wasm/loader.js';

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

describe('no call hangs: every search at the extremes of its accepted range ends, with a finite safe figure or a clear error', () => {
  // The process's CPU time, not the wall clock, which other processes on a busy machine stretch.
  // Ample for every call but one, calibrateLaplace at epsilon 1e-10 with delta 0.5 (1.9 s: the
  // accountant asked for epsilon near 0, issue 47 of the tracker).
  const LIMIT_MS = 3000;
  const SIZES = [2 ** -400, 1e-120, 1e-50, 1e-10, 1, 1e10, 1e50, 2 ** 400];
  const DELTAS = [1e-300, 1e-100, 1e-10, 0.1, 0.5];
  const EPSILONS = [0, 1e-10, 1, 100, 1e4];
  const RATES = [1e-300, 1e-3, 0.5, 1];

  /** Each call's time, and what it gave: a number >= 0 (Infinity allowed: no privacy claimed), or the library's error. */
  function run(calls: ReadonlyArray<[string, () => unknown]>) {
    const slow: string[] = [];
    const wrong: string[] = [];
    for (const [what, call] of calls) {
      const start = process.cpuUsage();
      try {
        const x = call();
        if (typeof x === 'number' && !(x >= 0)) wrong.push(`${what}: ${x}`);
      } catch (error) {
        if (!(error instanceof RangeError || error instanceof TypeError) || !String(error.message).startsWith('dpnoise: '))
          wrong.push(`${what}: ${String(error)}`);
      }
      const used = process.cpuUsage(start);
      const elapsed = (used.user + used.system) / 1000;
      if (elapsed > LIMIT_MS) slow.push(`${what}: ${Math.round(elapsed)} ms`);
    }
    expect({ slow, wrong }).toEqual({ slow: [], wrong: [] });
  }

  it('Gaussian and Laplace privacy objects: epsilon at every delta and delta at every epsilon, scales and sensitivities from 2^-400 to 2^400', () => {
    const calls: Array<[string, () => unknown]> = [];
    for (const family of ['gaussian', 'laplace'] as const) {
      const make = family === 'gaussian' ? dpnoise.gaussianPrivacy : dpnoise.laplacePrivacy;
      for (const scale of SIZES)
        for (const sensitivity of SIZES) {
          const privacy = () => make({ scales: [scale], sensitivity: [sensitivity] });
          for (const delta of DELTAS) calls.push([`${family} scale ${scale} sensitivity ${sensitivity}: epsilon(${delta})`, () => privacy().epsilon(delta)]);
          for (const epsilon of EPSILONS)
            calls.push([`${family} scale ${scale} sensitivity ${sensitivity}: delta(${epsilon})`, () => privacy().delta(epsilon)]);
        }
    }
    run(calls);
  });

  it('calibrations, sampling and composition at the extremes', () => {
    const calls: Array<[string, () => unknown]> = [];
    // Epsilon up to 100 here: at 1e4, calibrateLaplace with a delta ends but takes about 3 s (the accountant at large epsilon, issue 41).
    for (const epsilon of [1e-10, 1e-3, 1, 100])
      for (const delta of DELTAS)
        for (const sensitivity of [2 ** -400, 1, 2 ** 400]) {
          const options = { epsilon, delta, sensitivity: [sensitivity, sensitivity / 2] };
          calls.push([`calibrateGaussian ${JSON.stringify(options)}`, () => dpnoise.calibrateGaussian(options).scales[0]]);
          calls.push([`calibrateLaplace ${JSON.stringify(options)}`, () => dpnoise.calibrateLaplace(options).scales[0]]);
          calls.push([
            `calibrateStaircase ${epsilon} ${sensitivity}`,
            () => dpnoise.calibrateStaircase({ epsilon, sensitivity: [sensitivity] }).budget.epsilon,
          ]);
        }
    for (const rate of RATES)
      for (const scale of [1e-3, 1, 1e3])
        for (const delta of DELTAS) {
          calls.push([
            `subsample gaussian scale ${scale} rate ${rate}: epsilon(${delta})`,
            () => dpnoise.subsample(dpnoise.gaussianPrivacy({ scales: [scale], sensitivity: [1] }), { rate }).epsilon(delta),
          ]);
          calls.push([
            `compose 1000 gaussian scale ${scale}: epsilon(${delta})`,
            () => dpnoise.compose([{ privacy: dpnoise.gaussianPrivacy({ scales: [scale], sensitivity: [1] }), times: 1000 }]).epsilon(delta),
          ]);
        }
    run(calls);
  });
});
