// Parallel sampling starts worker threads from the built package (dist/worker.js), so this
// suite imports the build, which `npm test` makes first.
import { beforeEach, describe, expect, it } from 'vitest';
import { MIN_RANGE, ranges } from '../../src/noise/parallel.js';
import { judge, threadsPay } from '../../src/noise/thread-gate.js';
import { built as dpnoise, builtThreadGate, builtWorkerPool } from '../built.js';

const { createRng } = dpnoise;

describe('the split of a vector between threads', () => {
  it('covers it with at most `threads` ranges of nearly equal length, none shorter than MIN_RANGE unless alone', () => {
    for (const n of [0, 1, MIN_RANGE - 1, MIN_RANGE, MIN_RANGE + 1, 2 * MIN_RANGE - 1, 2 * MIN_RANGE, 3 * MIN_RANGE + 2, 1e7, 1e8 + 7]) {
      for (const threads of [1, 2, 3, 8]) {
        const split = ranges(n, threads);
        expect(split.length).toBeLessThanOrEqual(threads);
        expect(split[0]![0]).toBe(0);
        expect(split.at(-1)![1]).toBe(n);
        for (let k = 1; k < split.length; k++) expect(split[k]![0]).toBe(split[k - 1]![1]);
        const lengths = split.map(([start, end]) => end - start);
        expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThanOrEqual(1);
        if (split.length > 1) expect(Math.min(...lengths)).toBeGreaterThanOrEqual(MIN_RANGE);
      }
    }
    // A worker is handed a range worth its cost: not the 1 coordinate left over past MIN_RANGE, nor
    // two ranges of 65536 (where adding noise with a worker measured 1.02 times one thread's time).
    expect(MIN_RANGE).toBe(98_304);
    expect(ranges(MIN_RANGE + 1, 2)).toEqual([[0, MIN_RANGE + 1]]);
    expect(ranges(131_072, 2)).toEqual([[0, 131_072]]);
    expect(ranges(300_001, 3)).toEqual([
      [0, 100_000],
      [100_000, 200_000],
      [200_000, 300_001],
    ]);
  });
});

/** A gate as at start: the last call won, no call is sent to one thread. */
function reopen(gate: { judge: typeof judge; threadsPay: typeof threadsPay }) {
  gate.judge(0, 1, 1, 1); // a win
  while (!gate.threadsPay());
}

describe('the gate that sends calls to one thread while threads lose', () => {
  it('after two losses in a row skips threads for 1, 2, 4, ... up to 64 calls; a win resets it', () => {
    reopen({ judge, threadsPay });
    const skipped = () => {
      let n = 0;
      while (!threadsPay()) n++;
      return n;
    };
    const lose = () => judge(10, 100, 50, 4); // 10 ms for what one thread would draw in 8 ms
    const win = () => judge(6, 100, 50, 4); // 6 ms against 8 ms: threads paid
    lose(); // alone (a cold worker's first call after a pause): not counted
    expect(skipped()).toBe(0);
    win();
    lose();
    expect(skipped()).toBe(0);
    const losses = [];
    for (let k = 0; k < 8; k++) {
      lose(); // the second in a row: counted
      losses.push(skipped());
      lose(); // the probe after the pause, alone again
      expect(skipped()).toBe(0);
    }
    expect(losses).toEqual([1, 2, 4, 8, 16, 32, 64, 64]);
    win();
    expect(threadsPay()).toBe(true);
    lose();
    lose();
    expect(skipped()).toBe(1);
  });
});

describe('parallel sampling with worker threads', () => {
  // Every test here hands ranges to workers, whatever the host's load did to earlier calls.
  beforeEach(() => reopen(builtThreadGate));

  it('equals the single-thread result under a seed, for every variant and thread count', async () => {
    const K = 300_001; // 2 and 3 threads split it at 150000 and 100000, not at chunk boundaries; 1 thread draws it at once
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

  it('uses the CSPRNG by default, in the workers too', async () => {
    const K = 2 * MIN_RANGE; // two ranges: the calling thread's and a worker's
    const a = await dpnoise.gaussianNoiseParallel(K, 1, { threads: 2 });
    const b = await dpnoise.gaussianNoiseParallel(K, 1, { threads: 2 });
    for (const half of [
      [0, K / 2],
      [K / 2, K],
    ])
      expect(a.subarray(half[0], half[1])).not.toEqual(b.subarray(half[0], half[1]));
    expect(a.every((x) => Number.isFinite(x) && x !== 0)).toBe(true);
    expect(a.buffer).toBeInstanceOf(ArrayBuffer); // a plain array, never the shared memory the workers reuse
  });

  it('rejects bad input before starting workers, leaving values unchanged', async () => {
    const values = Float64Array.from([1, 2, 3]);
    await expect(dpnoise.addGaussianNoiseParallel(values, -1)).rejects.toThrow(RangeError);
    await expect(dpnoise.gaussianNoiseParallel(10, 1, { threads: 0 })).rejects.toThrow(/`threads` must be a number >= 1 and <= 64; got 0/);
    await expect(dpnoise.gaussianNoiseParallel(10, 1, { threads: 1.5 })).rejects.toThrow(/`threads` must be an integer/);
    await expect(dpnoise.laplaceNoiseParallel(-1, 1)).rejects.toThrow(RangeError);
    expect(Array.from(values)).toEqual([1, 2, 3]);
  });

  it('takes WasmVector scales (copied for the workers) and refuses a WasmVector as the values, which its threads cannot share', async () => {
    const K = 300_000; // two ranges
    const scales = dpnoise.wasmVector(K);
    scales.values.fill(2);
    const seeded = () => ({ rng: createRng({ seed: 'vector scales' }), threads: 2 });
    expect(await dpnoise.gaussianNoiseParallel(K, scales, seeded())).toEqual(await dpnoise.gaussianNoiseParallel(K, scales.values.slice(), seeded()));
    await expect(dpnoise.addGaussianNoiseParallel(scales as never, 1)).rejects.toThrow('`values` must be a Float64Array; got an object.');
    expect(scales.values.every((x) => x === 2)).toBe(true);
    scales.free();
  });

  it('a pooled worker that died while idle is dropped: the next call starts a fresh one and succeeds', async () => {
    const K = 2 * MIN_RANGE;
    const expected = dpnoise.gaussianNoise(K, 1, { rng: createRng({ seed: 9 }) });
    await dpnoise.gaussianNoiseParallel(K, 1, { threads: 2 }); // leaves a worker in the pool
    const idle = builtWorkerPool.takeIdleWorkers(8);
    expect(idle.length).toBeGreaterThan(0);
    for (const worker of idle) {
      worker.terminate(); // dies while idle (as a worker killed by the system would)
      builtWorkerPool.releaseWorker(worker, true); // back in the pool, as if still healthy
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // its exit event arrives
    const result = await dpnoise.gaussianNoiseParallel(K, 1, { rng: createRng({ seed: 9 }), threads: 2 });
    expect(Buffer.from(result.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
  });

  it('a worker that dies mid-call has its range drawn by the calling thread: the call still gives the single-thread result', async () => {
    const K = 2 * MIN_RANGE;
    const scales = Float64Array.from({ length: K }, (_, i) => 1 + (i % 5));
    let deaths = 0;
    const dyingWorker = async () => {
      reopen(builtThreadGate); // the last call's loss would send this one to one thread
      await dpnoise.gaussianNoiseParallel(K, 1, { threads: 2 }); // leaves a worker in the pool
      const [worker] = builtWorkerPool.takeIdleWorkers(1);
      // Back in the pool, healthy, but its thread is killed as soon as it is handed a job.
      const dying = { ...worker!, run: (job: never, transfer: never) => Object.assign(worker!.run(job, transfer), worker!.terminate(), deaths++) };
      builtWorkerPool.releaseWorker(dying, true);
      reopen(builtThreadGate);
    };
    for (const variant of ['new', 'add'] as const) {
      await dyingWorker();
      const seeded = () => ({ rng: createRng({ seed: `dying ${variant}` }) });
      if (variant === 'new') {
        const expected = dpnoise.laplaceNoise(K, scales, seeded());
        expect(await dpnoise.laplaceNoiseParallel(K, scales, { ...seeded(), threads: 2 })).toEqual(expected);
      } else {
        const values = Float64Array.from({ length: K }, (_, i) => i / 7);
        const expected = dpnoise.addGaussianNoise(Float64Array.from(values), scales, seeded());
        expect(await dpnoise.addGaussianNoiseParallel(values, scales, { ...seeded(), threads: 2 })).toEqual(expected);
      }
    }
    expect(deaths).toBe(2);
  });

  it('a worker that exits without answering rejects its call instead of leaving it pending', async () => {
    const worker = await builtWorkerPool.startWorker();
    const job = worker.run({ kernel: 'gaussianSamples', origin: 0, length: 1e7, add: false, scales: 1 }, []);
    worker.terminate(); // exits with no message and no error event
    await expect(job).rejects.toThrow(/a sampling worker exited \(code \d+\) before returning its noise/);
  });
});
