// Streams long vectors through the module's fixed scratch buffers (assembly/memory.ts), chunk by
// chunk, so memory stays bounded whatever the length. Views are made per chunk from the current
// `memory.buffer`, which stays valid even if the memory grows.
import { plainView, setAt } from '../core/arrays.js';
import type { WasmExports } from './loader.js';

/** A Float64Array view of `length` doubles at `pointer` in the module's memory. */
export function view(w: WasmExports, pointer: number, length: number): Float64Array {
  return new Float64Array(w.memory.buffer, pointer, length);
}

/** Calls `body(start, length)` for consecutive chunks of at most `chunk` covering [0, total). */
export function forEachChunk(total: number, chunk: number, body: (start: number, length: number) => void): void {
  for (let start = 0; start < total; start += chunk) body(start, Math.min(chunk, total - start));
}

/** Copies source[start, start + length) into the scratch buffer at `pointer`. */
export function copyIn(w: WasmExports, pointer: number, source: Float64Array, start: number, length: number): void {
  setAt(view(w, pointer, length), plainView(source, start, length), 0);
}

/**
 * Sums many doubles with Neumaier's compensation (for the per-chunk partial sums). A sum that
 * overflows is Infinity, never NaN: the compensation stops at the first infinite partial sum.
 */
export class CompensatedSum {
  private sum = 0;
  private compensation = 0;

  add(x: number): void {
    const t = this.sum + x;
    if (Number.isFinite(t)) this.compensation += Math.abs(this.sum) >= Math.abs(x) ? this.sum - t + x : x - t + this.sum;
    this.sum = t;
  }

  get value(): number {
    return Number.isFinite(this.sum) ? this.sum + this.compensation : this.sum;
  }
}
