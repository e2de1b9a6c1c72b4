// Streams long vectors through the module's fixed scratch buffers (assembly/memory.ts), chunk by
// chunk, so memory stays bounded whatever the length. Views are made per chunk from the current
// `memory.buffer`, which stays valid even if the memory grows.
import { plainView, setAt } from '../core/arrays.js';
import { Block } from './heap.js';
import type { WasmExports } from './loader.js';

/** A Float64Array view of `length` doubles at `pointer` in the module's memory. */
export function view(w: WasmExports, pointer: number, length: number): Float64Array {
  return new Float64Array(w.memory.buffer, pointer, length);
}

/** Calls `body(start, length)` for consecutive chunks of at most `chunk` covering [0, total). */
export function forEachChunk(total: number, chunk: number, body: (start: number, length: number) => void): void {
  for (let start = 0; start < total; start += chunk) body(start, Math.min(chunk, total - start));
}

/** Entries [start, start + length) of a caller's array or of a block of the module's memory, as a view made now. */
export function chunkOf(w: WasmExports, place: Float64Array | Block, start: number, length: number): Float64Array {
  return place instanceof Block ? view(w, place.pointer + 8 * start, length) : plainView(place, start, length);
}

/** Copies source[start, start + length) into the scratch buffer at `pointer`. */
export function copyIn(w: WasmExports, pointer: number, source: Float64Array | Block, start: number, length: number): void {
  setAt(view(w, pointer, length), chunkOf(w, source, start, length), 0);
}
