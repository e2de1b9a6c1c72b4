// Working memory for the accountant: one region past the static data and the caller's vectors
// (memory.ts), grown on request. The accountant's arrays (probability mass functions of every
// length, FFT work space) live there, laid out by the host for each call; nothing else in the
// module writes there, so the region is free. It moves when the vectors' share grows or shrinks
// (the host then computes its twiddle table again, src/engine/arena.ts). The samplers never use
// it, so their memory stays bounded whatever they draw.
import { arenaStart, ensureMemory } from "../memory";

/** Makes `bytes` bytes available from the arena's start (growing linear memory) and returns that start; 0 if memory cannot grow. */
export function arena(bytes: usize): usize {
  const base = arenaStart();
  return ensureMemory(base + bytes) ? base : 0;
}
