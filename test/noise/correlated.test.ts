// assembly/noise/correlated.ts: the correlated sums' release on the grid, against the facade's own
// arithmetic (src/mechanisms/correlated-grid.ts), bit for bit, on both builds.
import { describe, expect, it } from 'vitest';
import { builds } from '../helpers.js';

/** The facade's formula: 2 s round(f / g) + s Y + Cg Z, rounded once, times the output grid. */
function reference(f: number, y: number, s: number, cg: number, z: number, g: number, outputGrid: number): number {
  const x = f / g;
  const floor = Math.floor(x);
  const twoSF = 2 * s * (x - floor >= 0.5 ? floor + 1 : floor);
  return (twoSF + s * y + cg * z) * outputGrid;
}

describe('correlatedRelease (assembly/noise/correlated.ts)', () => {
  it.each(builds)("%s build: the facade's values to the bit, halves and -0 included; a term beyond 2^52 returns 0", (_, w) => {
    const g = 2 ** -7;
    const s = 8;
    const outputGrid = g / (2 * s);
    const n = 5000;
    let state = 12345;
    const next = () => {
      state = (state * 48271) % 2147483647;
      return state / 2147483647;
    };
    const sums = Float64Array.from({ length: n }, (_, i) => {
      if (i % 5 === 0) return (Math.floor(next() * 2000) - 1000 + 0.5) * g; // exactly half a step
      if (i % 7 === 0) return -0;
      return (next() - 0.5) * 1e6;
    });
    const noise = Float64Array.from({ length: n }, () => Math.round((next() - 0.5) * 1e5));
    for (const [cg, z] of [
      [300, -17],
      [1, 0],
      [2 ** 20, 2 ** 12],
    ] as const) {
      new Float64Array(w.memory.buffer, w.scalesPointer(), n).set(sums);
      new Float64Array(w.memory.buffer, w.valuesPointer(), n).set(noise);
      expect(w.correlatedRelease(n, s, cg, z, 1 / g, outputGrid)).toBe(1);
      const got = Array.from(new Float64Array(w.memory.buffer, w.scalesPointer(), n));
      const want = Array.from(sums, (f, i) => reference(f, noise[i]!, s, cg, z, g, outputGrid));
      expect(got.map((v, i) => Object.is(v, want[i]))).not.toContain(false);
    }
    // A term sum beyond 2^52 in one value leaves the chunk to the facade; exactly 2^52 does not.
    // The value is put in each place: the SIMD build's first pair of lanes, and the last one alone.
    const bound = (f: number, cg: number, z: number, at: number) => {
      const chunk = [1, 2, 3];
      chunk[at] = f;
      new Float64Array(w.memory.buffer, w.scalesPointer(), 3).set(chunk);
      new Float64Array(w.memory.buffer, w.valuesPointer(), 3).set([0, 0, 0]);
      return w.correlatedRelease(3, s, cg, z, 1 / g, outputGrid);
    };
    for (const at of [0, 1, 2]) {
      expect(bound(2 ** 60, 300, 5, at)).toBe(0);
      expect(bound(2 ** 48 * g, 0, 0, at)).toBe(1); // 2 s F = 2^52
      expect(bound(2 ** 48 * g, 1, 1, at)).toBe(0); // 2^52 + 1
      expect(bound((2 ** 49 + 1) * g, 0, 0, at)).toBe(0); // 2^53 + 16
    }
  });
});
