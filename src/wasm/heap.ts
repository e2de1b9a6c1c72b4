// Blocks of the module's memory for the caller's vectors (src/noise/wasm-vector.ts), laid out here,
// per module instance, in the region the module holds for them past its static data
// (assembly/memory.ts, reserveVectors); the accountant's arena lies past that region. The layout
// is kept in JavaScript, not in headers in the module's memory, which a caller holding a view of
// that memory could overwrite. A block is zeroed when it is handed out, so a new vector never
// shows an earlier one's values.
import type { WasmExports } from './loader.js';

/** Blocks start on 16 bytes (whole v128 loads) and take whole multiples of it. */
const ALIGN = 16;

/** A block of `length` doubles at `pointer` in the memory of the instance `w`. */
export class Block {
  constructor(
    readonly w: WasmExports,
    readonly pointer: number,
    readonly length: number,
  ) {}
}

/**
 * One instance's layout: free ranges [start, end) in bytes from heapStart(), in order and merged
 * (none ends at the region's end: it shrinks instead), the region's end, and how many times that
 * end has moved (and with it the arena's start).
 */
interface Layout {
  free: [start: number, end: number][];
  end: number;
  moves: number;
}

const layouts = new WeakMap<WasmExports, Layout>();

function layoutOf(w: WasmExports): Layout {
  const layout = layouts.get(w) ?? { free: [], end: 0, moves: 0 };
  layouts.set(w, layout);
  return layout;
}

/** The bytes a block of `length` doubles takes (at least one step, so that every block has its own place). */
function bytesOf(length: number): number {
  return Math.max(ALIGN, Math.ceil((8 * length) / ALIGN) * ALIGN);
}

/** A zeroed block of `length` doubles (the first free range that fits, else at the region's end, memory grown); undefined if memory cannot grow. */
export function allocate(w: WasmExports, length: number): Block | undefined {
  const layout = layoutOf(w);
  const bytes = bytesOf(length);
  const k = layout.free.findIndex(([start, end]) => end - start >= bytes);
  let offset: number;
  if (k >= 0) {
    const range = layout.free[k]!;
    offset = range[0];
    if (range[1] - range[0] === bytes) layout.free.splice(k, 1);
    else range[0] += bytes;
  } else {
    offset = layout.end;
    // The module's pointers are 32-bit: a region past 4 GiB would wrap around.
    if (w.heapStart() + offset + bytes >= 2 ** 32 || !w.reserveVectors(offset + bytes)) return undefined;
    layout.end = offset + bytes;
    layout.moves++;
  }
  const block = new Block(w, w.heapStart() + offset, length);
  new Float64Array(w.memory.buffer, block.pointer, bytes / 8).fill(0);
  return block;
}

/** Returns `block`'s memory to its instance; the region shrinks when its last block goes (the arena then starts earlier). */
export function release(block: Block): void {
  const layout = layoutOf(block.w);
  const start = block.pointer - block.w.heapStart();
  let range: [number, number] = [start, start + bytesOf(block.length)];
  // Merge with the neighbouring free ranges.
  const free = layout.free.filter(([s, e]) => {
    if (e === range[0]) range = [s, range[1]];
    else if (s === range[1]) range = [range[0], e];
    else return true;
    return false;
  });
  if (range[1] === layout.end) {
    layout.end = range[0];
    layout.moves++;
    block.w.reserveVectors(layout.end); // shrinking always succeeds
  } else {
    free.push(range);
    free.sort((a, b) => a[0] - b[0]);
  }
  layout.free = free;
}

/**
 * How many times the arena of `w` has moved: memory once past its start may since have held a
 * vector, even if the arena is back where it was, so what the arena held is gone.
 */
export function arenaMoves(w: WasmExports): number {
  return layoutOf(w).moves;
}

/** True while `w` holds a caller's vector, whose view exposes all of its memory: calls then scrub their scratch (assembly/noise/random.ts). */
export function holdsVectors(w: WasmExports): boolean {
  return layoutOf(w).end > 0;
}
