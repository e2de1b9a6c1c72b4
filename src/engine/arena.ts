// The accountant's share of the WebAssembly module's arena (assembly/accounting/arena.ts): the
// FFT's twiddle table (for the largest size used so far, which serves every smaller one) at its
// start, and each call's arrays after it.
import type { WasmExports } from '../wasm/loader.js';

/** The size of the twiddle table the arena holds, for the module instance `tableOwner`. */
let table = 0;
let tableOwner: WasmExports | undefined;

const OUT_OF_MEMORY = 'dpnoise: the accountant ran out of WebAssembly memory; use fewer distinct releases or a coarser discretization.';

/** Runs `body` with `bytes` bytes of the module's arena, past the twiddle table, at `base` (memory grown as needed). */
export function inArena<T>(w: WasmExports, bytes: number, body: (base: number) => T): T {
  const size = tableOwner === w ? table : 0;
  const start = w.arena(8 * size + bytes);
  if (start === 0) throw new RangeError(OUT_OF_MEMORY);
  return body(start + 8 * size);
}

/** The twiddle table's pointer and size, computed for at least size N. */
export function twiddleTable(w: WasmExports, N: number): [pointer: number, size: number] {
  if (tableOwner !== w || table < N) {
    const start = w.arena(8 * N);
    if (start === 0) throw new RangeError(OUT_OF_MEMORY);
    w.twiddles(start, N);
    table = N;
    tableOwner = w;
  }
  return [w.arena(0), table];
}

/** A view of `length` doubles of the module's memory at `pointer`. */
export const f64 = (w: WasmExports, pointer: number, length: number) => new Float64Array(w.memory.buffer, pointer, length);
