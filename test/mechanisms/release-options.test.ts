// The `out` option of every mechanism's release (src/mechanisms/release-options.ts): the same
// values as a new array, the caller's array returned, the query as `out` (in place) or
// overlapping it across chunks, and a call that throws, whichever argument is bad, leaving `out`
// as it was. Watched mid-call from getRandomValues (as another thread could watch shared
// memory): `out` never holds the query, and a shared query changed mid-call never reaches the
// draw.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  compose,
  correlatedSum,
  createBudget,
  createRng,
  gaussianMechanism,
  laplaceMechanism,
  type Privacy,
  type ReleaseOptions,
  staircaseMechanism,
  staircaseNormMechanism,
  type WasmVector,
  wasmVector,
} from '../../src/index.js';

const K = 600; // above the length where the query is checked in WebAssembly (wasm/checks.ts)
const sensitivity = Array.from({ length: K }, (_, i) => 1 / (1 + (i % 7)));
const query = Float64Array.from({ length: K }, (_, i) => 10 + i / 3);

type Release = (query: Float64Array | readonly number[], options?: ReleaseOptions) => Float64Array;
const count = 50;
const RELEASES: [string, Release][] = [
  ['laplaceMechanism (grid)', laplaceMechanism({ sensitivity, epsilon: 1 }).release],
  ['laplaceMechanism (continuous)', laplaceMechanism({ sensitivity, epsilon: 1, mode: 'continuous' }).release],
  ['gaussianMechanism (grid)', gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6 }).release],
  ['gaussianMechanism (continuous)', gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6, mode: 'continuous' }).release],
  ['gaussianMechanism (groups)', gaussianMechanism({ groups: { sizes: [K / 2, K / 2], sensitivity: [1, 2] }, epsilon: 1, delta: 1e-6 }).release],
  ['staircaseMechanism (grid)', staircaseMechanism({ sensitivity, epsilon: 2 }).release],
  ['staircaseMechanism (continuous)', staircaseMechanism({ sensitivity, epsilon: 2, mode: 'continuous' }).release],
  ['staircaseNormMechanism', staircaseNormMechanism({ sensitivity: sensitivity.slice(0, 64), epsilon: 2, norm: 'l2', mode: 'continuous' }).release],
  ...(['grid', 'continuous'] as const).map((mode): [string, Release] => {
    const m = correlatedSum({ dimension: K, epsilon: 1, delta: 1e-6, mode });
    return [`correlatedSum (${mode})`, (q, o) => m.release(q, count, o).sums];
  }),
];
const lengthOf = (name: string) => (name === 'staircaseNormMechanism' ? 64 : K);

const LONG = 20_000; // three chunks of the module's buffers: getRandomValues runs between them
const longSensitivity = Array.from({ length: LONG }, (_, i) => 1 / (1 + (i % 7)));
const LONG_RELEASES: [string, Release][] = [
  ['laplaceMechanism (grid)', laplaceMechanism({ sensitivity: longSensitivity, epsilon: 1 }).release],
  ['gaussianMechanism (grid)', gaussianMechanism({ sensitivity: longSensitivity, epsilon: 1, delta: 1e-6 }).release],
  ['gaussianMechanism (continuous)', gaussianMechanism({ sensitivity: longSensitivity, epsilon: 1, delta: 1e-6, mode: 'continuous' }).release],
  ['staircaseMechanism (grid)', staircaseMechanism({ sensitivity: longSensitivity, epsilon: 2 }).release],
  ...(['grid', 'continuous'] as const).map((mode): [string, Release] => {
    const m = correlatedSum({ dimension: LONG, epsilon: 1, delta: 1e-6, mode });
    return [`correlatedSum (${mode})`, (q, o) => m.release(q, count, o).sums];
  }),
];

/** Runs `watch` at every getRandomValues call of `body` (between the chunks of a draw). */
function watching(watch: () => void, body: () => void): number {
  const original = crypto.getRandomValues.bind(crypto);
  let calls = 0;
  vi.spyOn(crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
    calls++;
    watch();
    return original(array as never) as T;
  });
  body();
  vi.restoreAllMocks();
  return calls;
}

describe('release({ out })', () => {
  afterEach(() => vi.restoreAllMocks());
  for (const [name, release] of RELEASES) {
    const n = lengthOf(name);
    const q = query.slice(0, n);

    it(`${name}: writes the same values as a new array into \`out\` and returns it; the query may be \`out\``, () => {
      const fresh = release(q, { rng: createRng({ seed: 3 }) });
      const out = new Float64Array(n).fill(-1);
      expect(release(q, { rng: createRng({ seed: 3 }), out })).toBe(out);
      expect(out).toEqual(fresh);
      expect(q).toEqual(query.slice(0, n));
      const inPlace = q.slice();
      expect(release(inPlace, { rng: createRng({ seed: 3 }), out: inPlace })).toBe(inPlace);
      expect(inPlace).toEqual(fresh);
      const fromArray = new Float64Array(n);
      release(Array.from(q), { rng: createRng({ seed: 3 }), out: fromArray });
      expect(fromArray).toEqual(fresh);
    });

    it(`${name}: a call that throws leaves \`out\` as it was`, () => {
      const out = new Float64Array(n).fill(7);
      const bad = q.slice();
      bad[n - 1] = NaN; // the last entry, read after every other
      expect(() => release(bad, { out })).toThrow(RangeError);
      expect(() => release(q, { out, rng: 1 } as never)).toThrow(TypeError);
      expect(() => release(q.slice(1), { out })).toThrow(RangeError);
      expect(() => release(q, { out: new Float64Array(n + 1) })).toThrow(/`out.length` must be/);
      expect(() => release(q, { out: new Float32Array(n) } as never)).toThrow(/`out` must be a Float64Array; got a Float32Array/);
      expect(() => release(q, { out, other: 1 } as never)).toThrow(/unknown option `other`/);
      expect(out.every((x) => x === 7)).toBe(true);
    });
  }

  it('correlatedSum: a bad `count` leaves `out` as it was', () => {
    for (const mode of ['grid', 'continuous'] as const) {
      const m = correlatedSum({ dimension: K, epsilon: 1, delta: 1e-6, mode });
      const out = new Float64Array(K).fill(7);
      expect(() => m.release(query, -1, { out })).toThrow(RangeError);
      expect(out.every((x) => x === 7)).toBe(true);
      expect(m.release(query, count, { out }).sums).toBe(out);
    }
  });

  it("reads `out` once, through the typed-array intrinsics: a subclass's getters, a getter on the options", () => {
    const m = gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6 });
    class Lying extends Float64Array {
      override get length(): number {
        throw new Error('read through the subclass');
      }
      override set(): void {
        throw new Error('written through the subclass');
      }
    }
    const out = new Lying(K);
    expect(m.release(query, { rng: createRng({ seed: 5 }), out })).toBe(out);
    expect(Float64Array.from(new Float64Array(out.buffer))).toEqual(m.release(query, { rng: createRng({ seed: 5 }) }));
    let reads = 0;
    const options = {
      get out() {
        reads++;
        return reads === 1 ? new Float64Array(K) : new Float64Array(1);
      },
    };
    expect(m.release(query, options).length).toBe(K);
    expect(reads).toBe(1);
  });

  for (const [name, release] of LONG_RELEASES) {
    it(`${name}: \`out\` never holds the query, even mid-call; a shared query changed mid-call does not reach the draw`, () => {
      const q = Float64Array.from({ length: LONG }, (_, i) => 10 + i / 3); // no value on any grid
      const out = new Float64Array(LONG);
      let exposed = 0;
      const calls = watching(
        () => (exposed += out.filter((y, i) => y === q[i]).length),
        () => release(q, { out }),
      );
      expect(calls).toBeGreaterThan(2); // watched between chunks
      expect(exposed).toBe(0);

      const shared = new Float64Array(new SharedArrayBuffer(8 * LONG));
      shared.set(q);
      watching(
        () => (shared[LONG - 1] = NaN), // as another thread could, after the query was checked
        () => release(shared, { out }),
      );
      expect(Number.isFinite(out[LONG - 1]!)).toBe(true);
    });

    it(`${name}: \`out\` one entry before or after the query in the same memory`, () => {
      // The output would overwrite entries of later chunks before they are read, were the query not copied first.
      const q = Float64Array.from({ length: LONG }, (_, i) => 10 + i / 3);
      const fresh = release(q, { rng: createRng({ seed: 3 }) });
      for (const shift of [-1, 1]) {
        const memory = new Float64Array(LONG + 1);
        const at = shift < 0 ? 1 : 0;
        memory.set(q, at);
        const shifted = memory.subarray(at + shift, at + shift + LONG);
        release(memory.subarray(at, at + LONG), { rng: createRng({ seed: 3 }), out: shifted });
        expect(shifted).toEqual(fresh);
      }
    });
  }
});

describe('the budget option: charged once the arguments are checked, before the query is read', () => {
  const small = sensitivity.slice(0, 64);
  const MECHANISMS: Array<[string, { privacy: object }, Release, number]> = [
    ['laplaceMechanism', ...withRelease(laplaceMechanism({ sensitivity, epsilon: 1 })), K],
    ['gaussianMechanism', ...withRelease(gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6 })), K],
    ['staircaseMechanism', ...withRelease(staircaseMechanism({ sensitivity, epsilon: 2 })), K],
    ['staircaseNormMechanism', ...withRelease(staircaseNormMechanism({ sensitivity: small, epsilon: 2, norm: 'l2', mode: 'continuous' })), 64],
    ...(['grid', 'continuous'] as const).map((mode): [string, { privacy: object }, Release, number] => {
      const m = correlatedSum({ dimension: K, epsilon: 1, delta: 1e-6, mode });
      return [`correlatedSum (${mode})`, m, (q, o) => m.release(q, count, o).sums, K];
    }),
  ];
  function withRelease(m: { privacy: object; release: Release }): [{ privacy: object }, Release] {
    return [m, m.release];
  }

  it.each(MECHANISMS)("%s: one charge per release, of the mechanism's own privacy", (_, m, release, length) => {
    const budget = createBudget({ epsilon: 20, delta: 1e-5 });
    release(query.subarray(0, length), { budget, rng: createRng({ seed: 1 }) });
    release(query.subarray(0, length), { budget, rng: createRng({ seed: 2 }) });
    expect(budget.releases).toBe(2);
    expect(budget.spent.epsilon).toBeCloseTo(compose([{ privacy: m.privacy as Privacy, times: 2 }]).epsilon(1e-5), 9);
  });

  it.each(MECHANISMS)(
    '%s: a release the budget cannot pay for throws before reading the query (NaN unseen) and leaves out as it was',
    (_, __, release, length) => {
      const budget = createBudget({ epsilon: 1e-3, delta: 1e-9 });
      const poisoned = Float64Array.from(query.subarray(0, length));
      poisoned[3] = Number.NaN;
      const out = new Float64Array(length).fill(7);
      expect(() => release(poisoned, { budget, out })).toThrow(/exceed the budget/);
      expect(out.every((x) => x === 7)).toBe(true);
      expect(budget.releases).toBe(0);
    },
  );

  it.each(MECHANISMS)(
    '%s: a query of the wrong length or a budget not made by createBudget is refused before any charge; a bad value after it',
    (_, __, release, length) => {
      const budget = createBudget({ epsilon: 20, delta: 1e-5 });
      expect(() => release(query.subarray(0, length - 1), { budget })).toThrow(RangeError);
      expect(() => release(query.subarray(0, length), { budget: { spend: () => undefined } as never })).toThrow(TypeError);
      expect(budget.releases).toBe(0);
      const poisoned = Float64Array.from(query.subarray(0, length));
      poisoned[3] = Number.NaN;
      expect(() => release(poisoned, { budget })).toThrow(/query|sums/);
      expect(budget.releases).toBe(1); // checking the values read them: paid for
    },
  );
});

describe('WasmVectors as the query and `out` of the Gaussian, Laplace and staircase mechanisms and of correlated sums: read and written where they are, with the same checks', () => {
  afterEach(() => vi.restoreAllMocks());
  const q = Float64Array.from({ length: LONG }, (_, i) => 10 + i / 3); // no value on any grid
  const vectorOf = (a: Float64Array): WasmVector => {
    const v = wasmVector(a.length);
    v.values.set(a);
    return v;
  };
  const half = LONG / 2;
  const MECHANISMS = [
    ['laplaceMechanism (grid)', laplaceMechanism({ sensitivity: longSensitivity, epsilon: 1 })],
    ['laplaceMechanism (continuous)', laplaceMechanism({ sensitivity: longSensitivity, epsilon: 1, mode: 'continuous' })],
    ['gaussianMechanism (grid)', gaussianMechanism({ sensitivity: longSensitivity, epsilon: 1, delta: 1e-6 })],
    ['gaussianMechanism (continuous)', gaussianMechanism({ sensitivity: longSensitivity, epsilon: 1, delta: 1e-6, mode: 'continuous' })],
    [
      'gaussianMechanism (groups, continuous)',
      gaussianMechanism({ groups: { sizes: [half, half], sensitivity: [1, 2] }, epsilon: 1, delta: 1e-6, mode: 'continuous' }),
    ],
    ['staircaseMechanism (grid)', staircaseMechanism({ sensitivity: longSensitivity, epsilon: 2 })],
    ['staircaseMechanism (continuous)', staircaseMechanism({ sensitivity: longSensitivity, epsilon: 2, mode: 'continuous' })],
    ...(['grid', 'continuous'] as const).map((mode) => {
      const sum = correlatedSum({ dimension: LONG, epsilon: 1, delta: 1e-6, mode });
      // Its query is `sums`, with the count beside it.
      const release = (sums: Float64Array | WasmVector, options?: Parameters<typeof sum.release>[2]) => sum.release(sums, count, options).sums;
      return [`correlatedSum (${mode})`, { release, mode: sum.mode, grid: sum.grid }] as const;
    }),
  ] as const;

  for (const [name, m] of MECHANISMS) {
    const argument = name.startsWith('correlatedSum') ? 'sums' : 'query';
    const seeded = () => ({ rng: createRng({ seed: 21 }) });
    it(`${name}: the same values as with arrays, whichever of the query and \`out\` is a vector; in place; grid mode still on its grid`, () => {
      const fresh = m.release(q, seeded());
      const query = vectorOf(q);
      const out = wasmVector(LONG);
      const returned = m.release(query, { ...seeded(), out });
      expect(returned).toBe(out.values);
      expect(out.values).toEqual(fresh);
      expect(query.values).toEqual(q);
      expect(m.release(query, seeded())).toEqual(fresh);
      out.values.fill(0);
      m.release(q, { ...seeded(), out });
      expect(out.values).toEqual(fresh);
      const array = new Float64Array(LONG);
      expect(m.release(query, { ...seeded(), out: array })).toBe(array);
      expect(array).toEqual(fresh);
      m.release(query, { ...seeded(), out: query });
      expect(query.values).toEqual(fresh);
      const viewed = vectorOf(q);
      m.release(viewed, { ...seeded(), out: viewed.values }); // its own view: in place
      expect(viewed.values).toEqual(fresh);
      if (m.mode === 'grid') expect(fresh.every((x) => Number.isInteger(x / m.grid!))).toBe(true);
      else expect(fresh.some((x) => !Number.isInteger(x / 2 ** -20))).toBe(true); // continuous noise only when asked for
      for (const v of [query, out, viewed]) v.free();
    });

    it(`${name}: \`out\` one entry before or after the query in the module's memory`, () => {
      const fresh = m.release(q, seeded());
      const memory = wasmVector(LONG + 1);
      for (const shift of [-1, 1]) {
        const at = shift < 0 ? 1 : 0;
        memory.values.set(q, at);
        const shifted = memory.values.subarray(at + shift, at + shift + LONG);
        const query = vectorOf(q);
        // The query's own vector with an overlapping view as out is impossible (blocks never overlap); a view of other memory overlapping a JavaScript query is.
        m.release(memory.values.subarray(at, at + LONG), { ...seeded(), out: shifted });
        expect(shifted).toEqual(fresh);
        query.free();
      }
      memory.free();
    });

    it(`${name}: a call that throws leaves the \`out\` vector as it was`, () => {
      const out = wasmVector(LONG);
      out.values.fill(7);
      const bad = vectorOf(q);
      bad.values[LONG - 1] = Number.NaN; // the last entry, read after every other
      expect(() => m.release(bad, { out })).toThrow(`\`${argument}[${LONG - 1}]\` must be a finite number; got NaN.`);
      const short = wasmVector(LONG - 1);
      expect(() => m.release(short, { out })).toThrow(RangeError);
      expect(() => m.release(q, { out: short })).toThrow(/`out.length` must be/);
      const freed = vectorOf(q);
      freed.free();
      expect(() => m.release(freed, { out })).toThrow(`\`${argument}\` must be a WasmVector that is not freed`);
      expect(() => m.release(q, { out: freed })).toThrow(/`out` must be a WasmVector that is not freed/);
      expect(out.values.every((x) => x === 7)).toBe(true);
      for (const v of [out, bad, short]) v.free();
    });

    it(`${name}: a budget is charged before the vector is read: a release it cannot pay for throws with the NaN unseen; a bad value after the charge`, () => {
      const poisoned = vectorOf(q);
      poisoned.values[3] = Number.NaN;
      const out = wasmVector(LONG);
      out.values.fill(7);
      const poor = createBudget({ epsilon: 1e-3, delta: 1e-9 });
      expect(() => m.release(poisoned, { budget: poor, out })).toThrow(/exceed the budget/);
      expect(poor.releases).toBe(0);
      const budget = createBudget({ epsilon: 20, delta: 1e-5 });
      const freed = vectorOf(q);
      freed.free();
      expect(() => m.release(freed, { budget })).toThrow(TypeError);
      expect(() => m.release(wasmVector(3), { budget })).toThrow(RangeError);
      expect(budget.releases).toBe(0);
      expect(() => m.release(poisoned, { budget, out })).toThrow(`\`${argument}[3]\` must be a finite number; got NaN.`);
      expect(budget.releases).toBe(1); // checking the values read them: paid for
      expect(out.values.every((x) => x === 7)).toBe(true);
      poisoned.free();
      out.free();
    });

    it(`${name}: the \`out\` vector never holds the query, even mid-call`, () => {
      const query = vectorOf(q);
      const out = wasmVector(LONG);
      let exposed = 0;
      const calls = watching(
        () => (exposed += out.values.filter((y, i) => y === q[i]).length),
        () => m.release(query, { out }),
      );
      expect(calls).toBeGreaterThan(2); // watched between chunks
      expect(exposed).toBe(0);
      query.free();
      out.free();
    });
  }
});
