import { describe, expect, it } from 'vitest';
import { FINITE_ENTRIES, firstOutside, vector } from '../../src/core/validate.js';
import { firstOutsideInModule } from '../../src/wasm/checks.js';
import { builds, lcg } from '../helpers.js';

/** The module's answer on `a`, a chunk at a time, with build `w` (firstOutsideInModule's loop on a given build). */
function onBuild(w: (typeof builds)[number][1], a: Float64Array, min: number, max: number, zero: boolean): number {
  const chunk = w.sampleChunkLength();
  for (let start = 0; start < a.length; start += chunk) {
    const n = Math.min(chunk, a.length - start);
    new Float64Array(w.memory.buffer, w.valuesPointer(), n).set(a.subarray(start, start + n));
    const bad = w.firstOutside(w.valuesPointer(), n, min, max, zero);
    if (bad >= 0) return start + bad;
  }
  return -1;
}

const BAD = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1e-300, 2e150, -0.5];

describe('range checks in the module (src/wasm/checks.ts)', () => {
  it('find the first entry outside exactly where the JavaScript loop does, in both builds, at every position of a SIMD step', () => {
    const random = lcg(19);
    const entries = { min: 0, max: 1e150, basic: '', range: '' };
    let found = 0;
    for (const length of [1, 2, 3, 4, 5, 7, 8, 9, 255, 256, 257, 8191, 8192, 8193, 20_001]) {
      for (let trial = 0; trial < 12; trial++) {
        const a = Float64Array.from({ length }, () => random() * 10);
        if (trial > 0) {
          // One or two entries outside: the first, the last, in the lanes or the remainder, in the second chunk.
          const at = [0, length - 1, Math.floor(random() * length), Math.min(length - 1, 8192 + (trial % 4))][trial % 4]!;
          a[at] = BAD[trial % BAD.length]!;
          if (trial % 3 === 0) a[Math.floor(random() * length)] = BAD[(trial + 1) % BAD.length]!;
        }
        const expected = firstOutside(a, entries);
        if (expected >= 0) found++;
        expect(firstOutsideInModule(a, entries), `length ${length}, trial ${trial}`).toBe(expected);
        for (const [name, w] of builds) expect(onBuild(w, a, 0, 1e150, false), `${name}, length ${length}, trial ${trial}`).toBe(expected);
      }
    }
    expect(found).toBeGreaterThan(150); // the comparison saw entries outside, not only clean arrays
  });

  it('keep -0 inside [0, max] and an allowed 0 inside [min, max] with min > 0, as the JavaScript loop does', () => {
    const a = new Float64Array(1000).fill(1);
    a[501] = -0;
    expect(firstOutsideInModule(a, { min: 0, max: 2, basic: '', range: '' })).toBe(-1);
    a[501] = 0;
    const profile = { min: 2 ** -400, max: 2, zero: true, basic: '', range: '' };
    expect(firstOutsideInModule(a, profile)).toBe(-1);
    for (const [, w] of builds) expect(onBuild(w, a, 2 ** -400, 2, true)).toBe(-1);
    a[777] = 2 ** -401;
    for (const [, w] of builds) expect(onBuild(w, a, 2 ** -400, 2, true)).toBe(777);
  });

  it('give vector() the same error as before for a long array', () => {
    const a = new Float64Array(30_000).fill(3);
    a[20_000] = Number.NaN;
    const message = (check?: typeof firstOutside) => {
      try {
        vector('query', a, FINITE_ENTRIES, check ? { check } : {});
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(message(firstOutsideInModule)).toBe(message());
    expect(message()).toContain('`query[20000]`');
  });
});
