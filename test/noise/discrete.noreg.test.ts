// No-regression snapshot of the exact discrete samplers (assembly/noise/discrete.ts) and of the
// grid-mode releases built on them: for fixed seeds, the exact outputs are recorded in
// test/fixtures/discrete-noreg.json, and any change fails this test. The outputs are a function
// of the random words only (docs/noise.md, "Exact discrete noise"), so a change means the algorithm
// or its consumption of random words changed: intended changes regenerate the snapshot, and the
// commit says why.
//
// Regenerate (after an intended change only):
//   UPDATE_NOREG=1 npx vitest run test/noise/discrete.noreg.test.ts
//
// A normal run compares every number with Object.is, so -0 and 0 differ (JSON has no -0: the
// file writes it, and NaN or infinities, as strings).
//
// The name: test/ mirrors the modules, and this file pins the same module as discrete.test.ts
// (assembly/noise/discrete.ts), so it sits beside it under the module's name; `.noreg` (pure-rand's
// word) marks a snapshot of outputs, kept apart from the tests of the laws because it is
// regenerated on purpose, never edited by hand.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { correlatedSum, createRng, gaussianMechanism, laplaceMechanism } from '../../src/index.js';
import { wasm, type WasmExports } from '../../src/wasm/loader.js';
import { builds } from '../helpers.js';

const FILE = new URL('../fixtures/discrete-noreg.json', import.meta.url);
const UPDATE = process.env.UPDATE_NOREG === '1';

type Kernel = 'discreteLaplaceSamples' | 'discreteGaussianSamples';

/** The seeded stream of the kernels: key and gamma (an odd increment), as the library's streams. */
const STREAM = [0x6e6f726567n, 0x9e3779b97f4a7c15n] as const; // key: 'noreg' in ASCII
const DRAWS = 64;

/** Scales t in grid steps (discrete Laplace) and variances s (discrete Gaussian): tiny to large, all below 2^40 steps, below the cells' range and in it (t >= 8, s >= 64). */
const KERNEL_CASES: ReadonlyArray<readonly [Kernel, readonly number[]]> = [
  ['discreteLaplaceSamples', [0.3, 1, 7.5, 8, 1e3, 1e9, 2 ** 39]],
  ['discreteGaussianSamples', [0.2, 2, 50, 64, 1e6, 1e15, 2 ** 76]],
];

/** DRAWS noise values (grid 1) of a kernel from the fixed stream; `exact` forces every draw through the exact path. */
function kernelDraws(w: WasmExports, kernel: Kernel, scale: number, { exact = false } = {}): number[] {
  new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set(STREAM);
  w.useSeededExtras();
  w.setExactOnly(exact);
  try {
    const out: number[] = [];
    const chunk = w.sampleChunkLength();
    for (let start = 0; start < DRAWS; start += chunk) {
      const m = Math.min(chunk, DRAWS - start);
      w.seededWords(start, m);
      w[kernel](start, m, 0, scale, 1, w.valuesPointer(), w.valuesPointer(), w.scalesPointer());
      out.push(...new Float64Array(w.memory.buffer, w.valuesPointer(), m));
    }
    return out;
  } finally {
    w.setExactOnly(false);
  }
}

// The mechanisms, each released twice from one generator (the second call draws from the
// generator's next stream).
const SEED = 'discrete-noreg';
const SENSITIVITY = [0.3, 1, 2.5, 0, 7, 0.01, 1, 1, 0];
const QUERY = [10.123, -3.3, 7, 5, 1e6 + 0.01, 0, -0.5, 2 ** 40, -0]; // the last: no noise, and a sign of zero to keep
const LAPLACE = { sensitivity: SENSITIVITY, epsilon: 1 };
const GAUSSIAN = { sensitivity: SENSITIVITY, epsilon: 1, delta: 1e-6 };
const CORRELATED = { dimension: 16, epsilon: 1, delta: 1e-6 };
const SUMS = Array.from({ length: 16 }, (_, j) => 0.1 * j + 0.123);
const COUNT = 7;

function independentReleases(m: { release(q: number[], o: { rng: ReturnType<typeof createRng> }): Float64Array }) {
  const rng = createRng({ seed: SEED });
  return [Array.from(m.release(QUERY, { rng })), Array.from(m.release(QUERY, { rng }))];
}

function correlatedReleases(m: ReturnType<typeof correlatedSum>) {
  const rng = createRng({ seed: SEED });
  return [0, 1].map(() => {
    const { sums, count } = m.release(SUMS, COUNT, { rng });
    return { sums: Array.from(sums), count: count! };
  });
}

/** What the snapshot holds, computed now: inputs (for the reader) and outputs. */
function current() {
  const w = wasm();
  const laplace = laplaceMechanism(LAPLACE);
  const gaussian = gaussianMechanism(GAUSSIAN);
  const correlated = correlatedSum(CORRELATED);
  return {
    regenerate: 'UPDATE_NOREG=1 npx vitest run test/noise/discrete.noreg.test.ts',
    kernels: {
      stream: STREAM.map((x) => `0x${x.toString(16).toUpperCase()}`),
      grid: 1,
      draws: DRAWS,
      // One record serves both ways of drawing: the test asserts that they agree.
      sameFor: ['default', 'exactOnly'],
      cases: KERNEL_CASES.flatMap(([kernel, scales]) => scales.map((scale) => ({ kernel, scale, values: kernelDraws(w, kernel, scale) }))),
    },
    mechanisms: {
      seed: SEED,
      laplaceMechanism: { options: LAPLACE, query: QUERY, grid: laplace.grid!, scales: Array.from(laplace.scales), releases: independentReleases(laplace) },
      gaussianMechanism: {
        options: GAUSSIAN,
        query: QUERY,
        grid: gaussian.grid!,
        scales: Array.from(gaussian.scales),
        releases: independentReleases(gaussian),
      },
      correlatedSum: {
        options: CORRELATED,
        sums: SUMS,
        count: COUNT,
        grid: correlated.grid!,
        scales: [correlated.independentScale, correlated.sharedScale, correlated.countScale],
        releases: correlatedReleases(correlated),
      },
    },
  };
}

type Snapshot = ReturnType<typeof current>;

/** JSON with -0, NaN and the infinities kept, as strings; arrays of numbers on one line. */
function encode(value: unknown): string {
  const text = JSON.stringify(
    value,
    (_, v) => (typeof v === 'number' && (Object.is(v, -0) || !Number.isFinite(v)) ? (Object.is(v, -0) ? '-0' : String(v)) : v),
    1,
  );
  return text.replace(/\[([^[\]{}]*)\]/g, (_, items: string) => `[${items.trim().split(/,\s*/).join(', ')}]`);
}
const decode = (text: string) =>
  JSON.parse(text, (_, v) => (v === '-0' ? -0 : v === 'NaN' ? NaN : v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v)) as Snapshot;

/** Every difference between two JSON-like values, numbers compared with Object.is. */
function differences(expected: unknown, actual: unknown, path = '$', out: string[] = []): string[] {
  if (typeof expected === 'number' || typeof actual === 'number') {
    if (!Object.is(expected, actual))
      out.push(`${path}: expected ${Object.is(expected, -0) ? '-0' : String(expected)}, got ${Object.is(actual, -0) ? '-0' : String(actual)}`);
  } else if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) out.push(`${path}: expected length ${expected.length}, got ${actual.length}`);
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) differences(expected[i], actual[i], `${path}[${i}]`, out);
  } else if (
    expected !== null &&
    actual !== null &&
    typeof expected === 'object' &&
    typeof actual === 'object' &&
    !Array.isArray(expected) &&
    !Array.isArray(actual)
  ) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      differences((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], `${path}.${key}`, out);
    }
  } else if (expected !== actual) {
    out.push(`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
  return out;
}

/** Fails with the first differences listed (and how many there are in all). */
function expectSame(expected: unknown, actual: unknown, what: string): void {
  const found = differences(expected, actual);
  expect(found.length === 0 ? [] : [`${found.length} difference(s) in ${what}`, ...found.slice(0, 8)]).toEqual([]);
}

const now = current();
if (UPDATE) writeFileSync(FILE, `${encode(now)}\n`);
const recorded: Snapshot | undefined = existsSync(FILE) ? decode(readFileSync(FILE, 'utf8')) : undefined;

afterEach(() => wasm().setExactOnly(false));

describe('no-regression snapshot of the discrete samplers (test/fixtures/discrete-noreg.json)', () => {
  it('the snapshot exists and holds integers for every kernel case', () => {
    expect(recorded, 'no snapshot: run UPDATE_NOREG=1 npx vitest run test/noise/discrete.noreg.test.ts').toBeDefined();
    for (const c of recorded!.kernels.cases) {
      expect(c.values).toHaveLength(DRAWS);
      expect(c.values.every(Number.isInteger), `${c.kernel} at ${c.scale}`).toBe(true);
    }
  });

  it('the kernels give the recorded draws, on the default module and on both builds', () => {
    expectSame(recorded!.kernels, now.kernels, "the kernels' draws");
    for (const [name, w] of builds) {
      const cases = KERNEL_CASES.flatMap(([kernel, scales]) => scales.map((scale) => ({ kernel, scale, values: kernelDraws(w, kernel, scale) })));
      expectSame(recorded!.kernels.cases, cases, `the ${name} build's draws`);
    }
  });

  // A property the code guarantees (docs/noise.md, "The fast path"): the fast path and the exact
  // path are one function of the words, so one record holds for both.
  it.each(KERNEL_CASES.flatMap(([kernel, scales]) => scales.map((scale) => [kernel, scale] as const)))(
    '%s at %d: the exact path gives the default draws',
    (kernel, scale) => {
      const w = wasm();
      const values = now.kernels.cases.find((c) => c.kernel === kernel && c.scale === scale)!.values;
      expectSame(values, kernelDraws(w, kernel, scale, { exact: true }), 'the exact path');
    },
  );

  it('laplaceMechanism, gaussianMechanism and correlatedSum release the recorded values (grid mode)', () => {
    expectSame(recorded!.mechanisms, now.mechanisms, 'the releases');
  });

  it('fixedWork, removed (every draw does the same work), is refused as an unknown option', () => {
    const old = { fixedWork: true } as object;
    expect(() => laplaceMechanism({ ...LAPLACE, ...old })).toThrow(/fixedWork/);
    expect(() => gaussianMechanism({ ...GAUSSIAN, ...old })).toThrow(/fixedWork/);
    expect(() => correlatedSum({ ...CORRELATED, ...old })).toThrow(/fixedWork/);
  });
});
