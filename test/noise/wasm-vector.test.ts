// Vectors in the module's memory (src/noise/wasm-vector.ts; docs/noise.md, "Vectors in
// WebAssembly memory"), on the build of the test project: their views, use after free and
// double free refused, memory growing while a vector is held (its view rebuilt, its contents
// kept, never written through a stale view), a vector of a replaced module refused, the
// accountant's arena never overwriting a vector, and the FinalizationRegistry freeing an
// unreachable vector, never one whose view is still held.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  addGaussianNoise,
  compose,
  createRng,
  gaussianMechanism,
  gaussianNoiseInto,
  init,
  laplaceMechanism,
  laplacePrivacy,
  type Rng,
  wasmVector,
} from '../../src/index.js';
import type { RandomSource } from '../../src/noise/random.js';
import { moduleBlock } from '../../src/noise/wasm-vector.js';
import { FINITE_ENTRIES } from '../../src/core/validate.js';
import { embeddedBytes } from '../../src/wasm/embedded-init.js';
import { instantiateSync, wasm } from '../../src/wasm/loader.js';

const seeded = () => ({ rng: createRng({ seed: 11 }) });

/** Grows the module's memory by `bytes` (a vector that is freed at once: the memory stays grown). */
function growMemory(bytes: number): void {
  wasmVector(bytes / 8).free();
}

describe('wasmVector', () => {
  it('is `length` zeros in the module memory, viewed by `values`; length checked', () => {
    const v = wasmVector(5);
    expect(v.length).toBe(5);
    expect(v.values).toEqual(new Float64Array(5));
    expect(v.values.buffer).toBe(wasm().memory.buffer);
    expect(v.values).toBe(v.values); // one view while the memory does not grow
    expect(v.freed).toBe(false);
    expect(Object.prototype.toString.call(v)).toBe('[object WasmVector]');
    expect(() => wasmVector(-1)).toThrow(RangeError);
    expect(() => wasmVector(1.5)).toThrow(RangeError);
    expect(() => wasmVector('3' as never)).toThrow(TypeError);
    expect(() => wasmVector(2 ** 29)).toThrow(/`length` must be a length the WebAssembly memory can still hold/);
    v.free();
  });

  it('use after free and double free are refused, before anything is drawn or read', () => {
    const v = wasmVector(300);
    v.free();
    expect(v.freed).toBe(true);
    expect(() => v.values).toThrow(/this WasmVector was freed/);
    expect(() => v.free()).toThrow(/already freed/);
    expect(() => gaussianNoiseInto(v, 1)).toThrow(/`out` must be a WasmVector that is not freed; got a freed WasmVector/);
    expect(() => addGaussianNoise(v, 1)).toThrow(TypeError);
    const out = wasmVector(300);
    expect(() => gaussianNoiseInto(out, v)).toThrow(/`scales` must be a WasmVector that is not freed/);
    expect(out.values.every((x) => x === 0)).toBe(true);
    out.free();
  });

  it('a new vector in freed memory holds zeros, never the values of the freed one', () => {
    const a = wasmVector(1000);
    a.values.fill(42);
    a.free();
    const b = wasmVector(1000);
    expect(b.values.every((x) => x === 0)).toBe(true);
    b.free();
  });

  it('held while the memory grows: a new view with the same values, drawn into where it is; the stale view is detached', () => {
    const v = wasmVector(20_000);
    v.values.set(Float64Array.from({ length: 20_000 }, (_, i) => i / 7));
    const stale = v.values;
    growMemory(64 << 20);
    expect(stale.length).toBe(0); // detached: nothing can be written through it
    expect(v.values === stale).toBe(false);
    expect(v.values[19_999]).toBe(19_999 / 7);
    const expected = addGaussianNoise(v.values.slice(), 2, seeded());
    addGaussianNoise(v, 2, seeded());
    expect(v.values).toEqual(expected);
    v.free();
  });

  it('moduleBlock: a check that grows the memory before the entries are read still reads them where they are', () => {
    const v = wasmVector(1000);
    v.values[999] = Number.NaN;
    expect(() => moduleBlock('values', v, FINITE_ENTRIES, { length: 1000, private: true, beforeEntries: () => growMemory(16 << 20) })).toThrow(
      '`values[999]` must be a finite number; got NaN',
    );
    v.free();
  });

  it("the accountant's work never overwrites a vector, and gives the same answer however the vectors move its arena", () => {
    const privacy = () => compose([{ privacy: laplacePrivacy({ scales: 1.3, sensitivity: [1] }), times: 40 }]);
    const before = privacy().epsilon(1e-6);
    const v = wasmVector(50_000);
    v.values.fill(3);
    expect(privacy().epsilon(1e-6)).toBe(before); // the arena now starts past v
    expect(v.values.every((x) => x === 3)).toBe(true);
    const w = wasmVector(10);
    v.free(); // a free range before w: the arena stays past w
    expect(privacy().epsilon(1e-6)).toBe(before);
    w.free(); // the region empty: the arena back at its start, its table computed again
    expect(privacy().epsilon(1e-6)).toBe(before);
  });

  it("a vector written over the arena's old place, then freed (the arena back where it was), leaves the accountant's answers unchanged", () => {
    const privacy = () => compose([{ privacy: laplacePrivacy({ scales: 1.3, sensitivity: [1] }), times: 40 }]);
    const before = privacy().epsilon(1e-6); // its FFT table now at the arena's start
    const v = wasmVector(1 << 16);
    v.values.fill(1e300); // over the table's memory
    v.free();
    expect(privacy().epsilon(1e-6)).toBe(before);
  });

  it("after a call returns, the module's memory a view exposes holds none of the call's random words and no copy of its query outside the vectors", () => {
    const K = 20_000;
    const q = Float64Array.from({ length: K }, (_, i) => 1000.123456789 + i * Math.SQRT1_2); // no constant of the module's tables
    const sensitivity = new Float64Array(K).fill(1);
    /** The primary words of the first stream of a generator seeded with `seed`, drawn on a fresh instance. */
    const wordsOf = (seed: number) => {
      const other = instantiateSync(embeddedBytes(process.env.DPNOISE_TEST_BUILD !== 'scalar'));
      const stream = (createRng({ seed }) as Rng as RandomSource).stream();
      stream.begin(other);
      const words = new Set<bigint>();
      for (let first = 0; first < K; first += other.sampleChunkLength()) {
        const n = Math.min(other.sampleChunkLength(), K - first);
        stream.words(other, first, n);
        for (const word of new BigUint64Array(other.memory.buffer, other.randomPointer(), n)) words.add(word);
      }
      return words;
    };
    /** What the static region (the scratch buffers; the vectors and the arena lie past it) still holds of the words and the query. */
    const left = (words: Set<bigint>) => {
      const w = wasm();
      const region = w.heapStart();
      const asWords = new BigUint64Array(w.memory.buffer, 0, region / 8).filter((x) => words.has(x)).length;
      const values = new Set(q);
      const asValues = new Float64Array(w.memory.buffer, 0, region / 8).filter((x) => values.has(x)).length;
      return [asWords, asValues];
    };
    const out = wasmVector(K);
    const query = wasmVector(K);
    query.values.set(q);
    for (const mode of ['grid', 'continuous'] as const) {
      for (const m of [gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6, mode }), laplaceMechanism({ sensitivity, epsilon: 1, mode })]) {
        for (const [seed, from] of [
          [1, q],
          [2, query],
        ] as const) {
          m.release(from, { out, rng: createRng({ seed }) });
          expect(left(wordsOf(seed)), `${mode}, query ${from === q ? 'an array' : 'a vector'}`).toEqual([0, 0]);
        }
      }
    }
    const refused = q.slice();
    refused[K - 1] = Number.NaN; // checked a chunk at a time in the scratch buffer, then refused
    expect(() => gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6 }).release(refused, { out })).toThrow(RangeError);
    expect(left(new Set())).toEqual([0, 0]);
    out.free();
    query.free();
  });

  it("after a call returns, a view does not expose the CSPRNG pool's unused words (the next call's randomness)", () => {
    const K = 20_000;
    const sensitivity = new Float64Array(K).fill(1);
    const out = wasmVector(K);
    try {
      const w = wasm();
      // Grid releases with the CSPRNG take extra words from the pool (the exact samplers' rejections).
      for (const m of [gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6 }), laplaceMechanism({ sensitivity, epsilon: 1 })]) {
        m.release(new Float64Array(K), { out });
        const pool = new BigUint64Array(w.memory.buffer, w.extraPointer(), w.extraWords());
        expect(pool.filter((x) => x !== 0n).length).toBe(0);
      }
    } finally {
      out.free();
    }
  });

  it('a vector of a module that init() has since replaced is refused; its values can still be read', async () => {
    const simd = process.env.DPNOISE_TEST_BUILD !== 'scalar';
    const v = wasmVector(10);
    v.values.fill(1);
    await init({ simd });
    try {
      expect(() => addGaussianNoise(v, 1)).toThrow(/`values` is a WasmVector of a WebAssembly module that init\(\) has since replaced/);
      expect(v.values.every((x) => x === 1)).toBe(true);
      const fresh = wasmVector(10);
      expect(fresh.values.buffer).toBe(wasm().memory.buffer);
      fresh.free();
    } finally {
      v.free();
    }
  });

  it('an unreachable vector is freed by the FinalizationRegistry; a held view keeps its vector alive', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const collect = async () => {
      for (let i = 0; i < 5; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const w = wasm();
    await collect();
    const start = w.arena(0);
    let view: Float64Array | undefined = (() => {
      const v = wasmVector(100_000);
      return v.values;
    })();
    view.fill(5);
    await collect();
    expect(w.arena(0)).toBeGreaterThan(start); // the view holds the vector
    expect(view.every((x) => x === 5)).toBe(true);
    view = undefined;
    await collect();
    expect(w.arena(0)).toBe(start);
  });
});
