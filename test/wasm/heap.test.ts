// The layout of the caller's vectors in the module's memory (src/wasm/heap.ts), on fresh
// instances of both builds: blocks apart and aligned, zeroed when handed out, freed ranges merged
// and reused, the region shrinking when its last block goes, the accountant's arena always past
// the vectors (docs/noise.md, "Vectors in WebAssembly memory").
import { describe, expect, it } from 'vitest';
import { embeddedBytes } from '../../src/wasm/embedded-init.js';
import { allocate, type Block, release } from '../../src/wasm/heap.js';
import { instantiateSync } from '../../src/wasm/loader.js';

const fresh = (simd: boolean) => instantiateSync(embeddedBytes(simd));
const end = (b: Block) => b.pointer + 8 * b.length;

describe.each([false, true])('vector blocks (SIMD build: %s)', (simd) => {
  it('are 16-byte aligned, apart, zeroed, from heapStart(); the arena starts past them', () => {
    const w = fresh(simd);
    expect(w.arena(0)).toBe(w.heapStart());
    const blocks = [3, 1, 0, 1000, 7].map((n) => allocate(w, n)!);
    for (const [i, b] of blocks.entries()) {
      expect(b.pointer % 16).toBe(0);
      expect(b.pointer).toBeGreaterThanOrEqual(w.heapStart());
      expect(new Float64Array(w.memory.buffer, b.pointer, b.length).every((x) => x === 0)).toBe(true);
      for (const other of blocks.slice(i + 1)) expect(end(b) <= other.pointer || end(other) <= b.pointer).toBe(true);
      expect(w.arena(0)).toBeGreaterThanOrEqual(end(b));
    }
  });

  it('reuse freed ranges, merged with their neighbours, zeroed again; the region shrinks when its last block goes', () => {
    const w = fresh(simd);
    const [a, b, c, d] = [100, 100, 100, 100].map((n) => allocate(w, n)!) as [Block, Block, Block, Block];
    new Float64Array(w.memory.buffer, a.pointer, 400).fill(9); // all four blocks
    release(b);
    release(a);
    const merged = allocate(w, 200)!; // only fits in a and b merged
    expect(merged.pointer).toBe(a.pointer);
    expect(new Float64Array(w.memory.buffer, merged.pointer, 200).every((x) => x === 0)).toBe(true);
    const arenaWithAll = w.arena(0);
    release(d);
    expect(w.arena(0)).toBeLessThan(arenaWithAll);
    release(c);
    release(merged);
    expect(w.arena(0)).toBe(w.heapStart());
    expect(allocate(w, 1)!.pointer).toBe(w.heapStart());
  });

  it('a block beyond 32-bit memory is refused, nothing changed', () => {
    const w = fresh(simd);
    const before = w.memory.buffer.byteLength;
    expect(allocate(w, 2 ** 29)).toBeUndefined();
    expect(w.memory.buffer.byteLength).toBe(before);
    expect(w.arena(0)).toBe(w.heapStart());
  });
});
