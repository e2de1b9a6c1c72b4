// An application that bundles dpnoise and samples in parallel (test/runtimes/bundled.test.ts
// bundles it with esbuild for the browser and for Node). esbuild does not emit the worker file
// that `new URL('./worker.js', import.meta.url)` names, so the workers must start from the
// bundled copy of their code.
import { addLaplaceNoiseParallel, addLaplaceNoise, createRng, gaussianNoise, gaussianNoiseParallel, init } from 'dpnoise';

export async function run() {
  await init();
  const K = 300_000; // three ranges with threads: 3
  const same = (a, b) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
  const gaussian = await gaussianNoiseParallel(K, 1, { rng: createRng({ seed: 'bundled' }), threads: 3 });
  const values = Float64Array.from({ length: K }, (_, i) => i / 7);
  const expected = addLaplaceNoise(Float64Array.from(values), 2, { rng: createRng({ seed: 'bundled add' }) });
  await addLaplaceNoiseParallel(values, 2, { rng: createRng({ seed: 'bundled add' }), threads: 3 });
  return {
    parallelEqual: same(gaussian, gaussianNoise(K, 1, { rng: createRng({ seed: 'bundled' }) })),
    addEqual: same(values, expected),
    sharedMemory: typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated !== false,
  };
}
