// Runs in headless Chromium (test/runtimes/browser.test.ts): the workload on the main thread,
// in a module Web Worker, and parallel sampling with Web Workers.
import * as dpnoise from '/dist/index.js';
import { workload } from '/test/runtimes/workload.js';

async function main() {
  let before = 'no error';
  try {
    dpnoise.gaussianMu(1, 1e-6);
  } catch (error) {
    before = error.message;
  }
  await dpnoise.init();
  const mainThread = workload(dpnoise);
  const worker = new Worker('/test/runtimes/browser-worker.js', { type: 'module' });
  const inWorker = await new Promise((resolve, reject) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => reject(new Error(event.message));
  });
  const seed = 'parallel in the browser';
  const parallel = await dpnoise.gaussianNoiseParallel(50_000, 1, { rng: dpnoise.createRng({ seed }), threads: 2 });
  const single = dpnoise.gaussianNoise(50_000, 1, { rng: dpnoise.createRng({ seed }) });
  return { before, mainThread, inWorker, parallelEqual: parallel.every((x, i) => x === single[i]) };
}

window.result = main().catch((error) => ({ error: String(error?.stack || error) }));
