// vector()'s range check for long arrays in WebAssembly (assembly/checks.ts): the same answer as
// core/validate.ts's firstOutside at a fraction of its time, which for the samplers' per-coordinate
// scales and the releases' queries was about a sixth of a call. An array in the module's own
// memory (a caller's vector, src/noise/wasm-vector.ts) is checked where it is; any other is copied
// a chunk at a time into the module's VALUES buffer: arguments are checked before any draw, so no
// draw is using it.
import { type Entries, firstOutside } from '../core/validate.js';
import { copyIn } from './chunks.js';
import { type Block, holdsVectors } from './heap.js';
import { wasm } from './loader.js';

/** Below this length the JavaScript loop costs no more than a copy and a call. */
const SHORT = 256;

/** The index of the first entry of `a` that `entries` rejects, or -1 (firstOutside's answer). */
export function firstOutsideInModule(a: Float64Array, entries: Entries): number {
  if (a.length < SHORT) return firstOutside(a, entries);
  const w = wasm();
  const chunk = w.sampleChunkLength();
  const { min, max, zero = false } = entries;
  try {
    for (let start = 0; start < a.length; start += chunk) {
      const n = Math.min(chunk, a.length - start);
      copyIn(w, w.valuesPointer(), a, start, n);
      const bad = w.firstOutside(w.valuesPointer(), n, min, max, zero);
      if (bad >= 0) return start + bad;
    }
    return -1;
  } finally {
    // The caller's values copied in must not stay where a vector's view can read them.
    if (holdsVectors(w)) w.scrub(a.length, false);
  }
}

/** firstOutsideInModule for a block of the module's memory, read where it is. */
export function firstOutsideOfBlock(block: Block, { min, max, zero = false }: Entries): number {
  return block.w.firstOutside(block.pointer, block.length, min, max, zero);
}
