// The page of test/runtimes/tfjs.test.ts, bundled by esbuild with @tensorflow/tfjs, its wasm
// backend and dpnoise: a few steps of privateTraining on tfjs's wasm and cpu backends in the
// browser (the same seeded run as in Node), and what fit does on the webgl backend when the
// browser has one.
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { compose, createRng, init, subsample } from 'dpnoise';
import { privateTraining } from 'dpnoise/tfjs';
import { trainFew } from './tfjs-run.js';

async function main() {
  await init();
  tf.enableProdMode();
  setWasmPaths('/node_modules/@tensorflow/tfjs-backend-wasm/dist/');
  const backends = {};
  for (const backend of ['wasm', 'cpu']) {
    if (!(await tf.setBackend(backend))) throw new Error(`no ${backend} backend`);
    backends[backend] = await trainFew({ tf, privateTraining, compose, createRng, subsample });
  }
  let webgl = 'unavailable';
  if (await tf.setBackend('webgl').catch(() => false)) {
    try {
      await trainFew({ tf, privateTraining, compose, createRng, subsample });
      webgl = 'trained';
    } catch (error) {
      webgl = error.message;
    }
  }
  return { backends, webgl };
}

window.result = main().catch((error) => ({ error: String(error?.stack || error) }));
