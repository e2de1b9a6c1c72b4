// The finishing step of correlatedSum's grid release (mechanisms/correlated-grid.ts), where the
// noise is: each chunk's outputs from its exact sums and the discrete Gaussian noise the module
// has just drawn, in the module or, for terms beyond 2^52, here with BigInt.
import { setAt } from '../core/arrays.js';
import { roundHalfUp } from '../core/rounding.js';
import { chunkOf, copyIn, view } from '../wasm/chunks.js';
import type { Block } from '../wasm/heap.js';
import type { WasmExports } from '../wasm/exports.js';

/** Exactly 2 s F + s Y + Cg Z, rounded once to a double (2 s F and s Y are exact: s is a power of two). */
function combined(twoSF: number, sY: number, Cg: number, Z: number): number {
  if (Math.abs(twoSF) + Math.abs(sY) + Cg * Math.abs(Z) <= 2 ** 52) return twoSF + sY + Cg * Z;
  return Number(BigInt(twoSF) + BigInt(sY) + BigInt(Cg) * BigInt(Z));
}

/**
 * out[j] = combined(2 s round(sums[j] / g), s Y[j], Cg, Z) outputGrid for the chunk [start, start + n)
 * whose noise Y the module has just drawn into its values buffer: in the module
 * (assembly/noise/correlated.ts, the same operations without a branch per value), or here, with
 * BigInt where needed, for a chunk with a term beyond 2^52.
 */
export function correlatedChunk(
  w: WasmExports,
  sums: Float64Array | Block,
  out: Float64Array | Block,
  start: number,
  n: number,
  s: number,
  Cg: number,
  Z: number,
  g: number,
  outputGrid: number,
): void {
  copyIn(w, w.scalesPointer(), sums, start, n);
  const into = chunkOf(w, out, start, n);
  if (w.correlatedRelease(n, s, Cg, Z, 1 / g, outputGrid) === 1) setAt(into, view(w, w.scalesPointer(), n), 0);
  else {
    const [chunk, Y] = [chunkOf(w, sums, start, n), view(w, w.valuesPointer(), n)];
    for (let j = 0; j < n; j++) into[j] = combined(2 * s * roundHalfUp(chunk[j]! / g), s * Y[j]!, Cg, Z) * outputGrid;
  }
}
