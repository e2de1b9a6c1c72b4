// The accountant's share of the WebAssembly module's arena (assembly/accounting/arena.ts): the
// FFT's twiddle table (for the largest size used so far, which serves every smaller one) at its
// start, and each call's arrays after it. The arena starts past the caller's vectors, so it moves
// when they take more or less memory; the table is then computed again at the new start (even
// when the arena has come back where it was: a vector may have overwritten it meanwhile).
import { arenaMoves } from '../wasm/heap.js';
import type { WasmExports } from '../wasm/loader.js';

/** The size of the twiddle table the arena holds, for the module instance `tableOwner`, made after the arena's `tableMoves`-th move. */
let table = 0;
let tableOwner: WasmExports | undefined;
let tableMoves = 0;

const OUT_OF_MEMORY = 'dpnoise: the accountant ran out of WebAssembly memory; use fewer distinct releases or a coarser discretization.';

/** The size of the twiddle table held at the arena's start (0 if none: another instance, or the arena has moved since). */
function heldTable(w: WasmExports): number {
  return tableOwner === w && tableMoves === arenaMoves(w) ? table : 0;
}

/** Runs `body` with `bytes` bytes of the module's arena, past the twiddle table, at `base` (memory grown as needed). */
export function inArena<T>(w: WasmExports, bytes: number, body: (base: number) => T): T {
  const size = heldTable(w);
  const start = w.arena(8 * size + bytes);
  if (start === 0) throw new RangeError(OUT_OF_MEMORY);
  return body(start + 8 * size);
}

/** The twiddle table's pointer and size, computed for at least size N. */
export function twiddleTable(w: WasmExports, N: number): [pointer: number, size: number] {
  if (heldTable(w) < N) {
    const start = w.arena(8 * N);
    if (start === 0) throw new RangeError(OUT_OF_MEMORY);
    w.twiddles(start, N);
    table = N;
    tableOwner = w;
    tableMoves = arenaMoves(w);
  }
  return [w.arena(0), table];
}

/** A view of `length` doubles of the module's memory at `pointer`. */
export const f64 = (w: WasmExports, pointer: number, length: number) => new Float64Array(w.memory.buffer, pointer, length);
