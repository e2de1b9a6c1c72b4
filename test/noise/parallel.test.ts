// Parallel sampling starts worker threads from the built package (dist/worker.js), so this
// suite imports the build, which `npm test` makes first.
import { describe, expect, it } from 'vitest';
import { built as dpnoise, builtParallel } from '../built.js';

const { createRng } = dpnoise;

describe('parallel sampling with worker threads', () => {
  it('equals the single-thread result under a seed, for every variant and thread count', async () => {
    const K = 200_001; // 2 and 3 threads split it at 100001 and 66667, not at chunk boundaries
    const scales = Float64Array.from({ length: K }, (_, i) => (i % 3) * 0.5);
    // Bit-for-bit equality (toEqual on 2e5 entries would dominate the test's time).
    const same = (a: Float64Array, b: Float64Array) =>
      expect(Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))).toBe(true);
    for (const threads of [1, 2, 3]) {
      const seed = 100 + threads;
      same(await dpnoise.gaussianNoiseParallel(K, 2, { rng: createRng({ seed }), threads }), dpnoise.gaussianNoise(K, 2, { rng: createRng({ seed }) }));
      same(await dpnoise.laplaceNoiseParallel(K, scales, { rng: createRng({ seed }), threads }), dpnoise.laplaceNoise(K, scales, { rng: createRng({ seed }) }));
      const values = Float64Array.from({ length: K }, (_, i) => i);
      const expected = dpnoise.addGaussianNoise(Float64Array.from(values), scales, { rng: createRng({ seed }) });
      expect(await dpnoise.addGaussianNoiseParallel(values, scales, { rng: createRng({ seed }), threads })).toBe(values);
      same(values, expected);
      const lap = Float64Array.from(values);
      same(
        await dpnoise.addLaplaceNoiseParallel(lap, 1, { rng: createRng({ seed }), threads }),
        dpnoise.addLaplaceNoise(Float64Array.from(values), 1, { rng: createRng({ seed }) }),
      );
    }
  });

  it('uses the CSPRNG by default', async () => {
    const a = await dpnoise.gaussianNoiseParallel(20_000, 1, { threads: 2 });
    const b = await dpnoise.gaussianNoiseParallel(20_000, 1, { threads: 2 });
    expect(a).not.toEqual(b);
    expect(a.every(Number.isFinite)).toBe(true);
  });

  it('rejects bad input before starting workers, leaving values unchanged', async () => {
    const values = Float64Array.from([1, 2, 3]);
    await expect(dpnoise.addGaussianNoiseParallel(values, -1)).rejects.toThrow(RangeError);
    await expect(dpnoise.gaussianNoiseParallel(10, 1, { threads: 0 })).rejects.toThrow(/`threads` must be a number >= 1 and <= 64; got 0/);
    await expect(dpnoise.gaussianNoiseParallel(10, 1, { threads: 1.5 })).rejects.toThrow(/`threads` must be an integer/);
    await expect(dpnoise.laplaceNoiseParallel(-1, 1)).rejects.toThrow(RangeError);
    expect(Array.from(values)).toEqual([1, 2, 3]);
  });

  it('a worker that exits without answering rejects its call instead of leaving it pending', async () => {
    const port = await builtParallel.startWorker();
    port.terminate(); // exits with no message and no error event
    await expect(port.result).rejects.toThrow(/a sampling worker exited \(code \d+\) before returning its noise/);
  });
});
