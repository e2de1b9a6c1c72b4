// Scratch memory: fixed static buffers, so linear memory never grows, whatever the vector length.
// The facade streams long vectors through them chunk by chunk.

/** Doubles per scratch buffer (128 KiB: large enough to amortise a call, small enough for L2). */
export const CHUNK: i32 = 16384;

/** Input chunk (a sensitivity profile); kernels that produce scales overwrite it in place. */
export const PROFILE: usize = memory.data(CHUNK << 3, 16);
/** Input chunk of per-coordinate weights. */
export const WEIGHTS: usize = memory.data(CHUNK << 3, 16);
/** Small results area for kernels that return more than one number. */
export const RESULTS: usize = memory.data(4 << 3, 16);
