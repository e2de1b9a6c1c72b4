// The `out` option of every mechanism's release (src/mechanisms/release-options.ts): the same
// values as a new array, the caller's array returned, the query as `out` (in place), and a call
// that throws, whichever argument is bad, leaving `out` as it was.
import { describe, expect, it } from 'vitest';
import {
  correlatedSum,
  createRng,
  gaussianMechanism,
  laplaceMechanism,
  type ReleaseOptions,
  staircaseMechanism,
  staircaseNormMechanism,
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

describe('release({ out })', () => {
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
});
