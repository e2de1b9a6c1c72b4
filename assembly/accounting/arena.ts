// Working memory for the accountant: one region past the static data, grown on request. The
// accountant's arrays (probability mass functions of every length, FFT work space) live there,
// laid out by the host for each call; nothing else in the module allocates, so the region is
// free. The samplers never use it, so their memory stays bounded whatever they draw.

/** The first byte past the static data, 16-byte aligned. */
// @ts-ignore: builtin
const BASE: usize = (__heap_base + 15) & ~(<usize>15);

/** Makes `bytes` bytes available from the arena's start (growing linear memory) and returns that start; 0 if memory cannot grow. */
export function arena(bytes: usize): usize {
  const end = BASE + bytes;
  const have = <usize>memory.size() << 16;
  if (end > have) {
    const pages = <i32>((end - have + 0xFFFF) >> 16);
    if (memory.grow(pages) < 0) return 0;
  }
  return BASE;
}
