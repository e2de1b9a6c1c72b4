// Shared memory for the parallel samplers, kept between calls: fresh memory costs a page fault
// per 4 kB on first touch, which on some machines costs more than drawing the noise in it. A
// spare buffer is dropped after a second unused, so a long vector's memory is not held for good.

/** How long a spare buffer is kept unused. */
const KEEP_MS = 1000;

let spares: SharedArrayBuffer[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;

/** A view of `length` doubles of shared memory (contents unspecified), a spare one when there is one large enough. */
export function takeShared(length: number): Float64Array {
  const k = spares.findIndex((buffer) => buffer.byteLength >= 8 * length);
  const buffer = k >= 0 ? spares.splice(k, 1)[0]! : new SharedArrayBuffer(8 * length);
  return new Float64Array(buffer, 0, length);
}

/** Keeps `view`'s memory for the next calls (the two largest spares at most). */
export function giveBack(view: Float64Array): void {
  spares = [...spares, view.buffer as SharedArrayBuffer].sort((a, b) => b.byteLength - a.byteLength).slice(0, 2);
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(() => {
    spares = [];
    timer = undefined;
  }, KEEP_MS);
  (timer as { unref?: () => void }).unref?.(); // Node: a spare never keeps the process alive
}
