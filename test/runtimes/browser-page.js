// Runs in headless Chromium (test/runtimes/browser.test.ts): the workload on the main thread,
// in a module Web Worker, and parallel sampling with Web Workers.
import * as dpnoise from '/dist/index.js';
import { report } from '/test/runtimes/workload.js';

async function main() {
  let before = 'no error';
  try {
    dpnoise.gaussianMu(1, 1e-6);
  } catch (error) {
    before = error.message;
  }
  await dpnoise.init();
  const { workload: mainThread, parallelEqual } = await report(dpnoise);
  const worker = new Worker('/test/runtimes/browser-worker.js', { type: 'module' });
  const inWorker = await new Promise((resolve, reject) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => reject(new Error(event.message));
  });
  return { before, mainThread, inWorker, parallelEqual };
}

window.result = main().catch((error) => ({ error: String(error?.stack || error) }));
