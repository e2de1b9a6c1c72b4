// dpnoise/tfjs in a real browser: headless Chromium (chromium.ts) runs a page that esbuild bundles
// from test/runtimes/tfjs-page.js with @tensorflow/tfjs, @tensorflow/tfjs-backend-wasm (its .wasm
// files served from node_modules) and dpnoise. privateTraining takes 5 steps on the wasm and the
// cpu backends there: the epsilon it reports is the accountant's for its sampling and steps, and
// the weights are those of the same seeded run in Node (tfjs-run.js, both backends).
// WebGL is not a backend privateTraining trains on: its clipping margin assumes IEEE float32
// arithmetic (docs/training.md, "Rounding"), which WebGL shaders do not promise (a GPU may
// compute in lower precision, or with other rounding), so fit refuses it by name. tfjs's webgl
// backend does start in this headless Chromium (software rendering, despite --disable-gpu), and
// the page checks the refusal there; a browser without WebGL reports 'unavailable'.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import '@tensorflow/tfjs-backend-wasm';
import * as tf from '@tensorflow/tfjs';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { compose, createRng, subsample } from '../../src/index.js';
import { privateTraining } from '../../src/tfjs/index.js';
import { pageLoading, root } from './apps.js';
import { runPage, useChromium } from './chromium.js';
// @ts-expect-error: a plain JavaScript module
import { trainFew } from './tfjs-run.js';

interface Trained {
  steps: number;
  epsilon: number;
  privacy: number;
  accountant: number;
  weights: number[][];
}

describe('privateTraining in headless Chromium', () => {
  const chromium = useChromium();

  it('trains on the wasm and cpu backends as in Node, reporting the accountant epsilon of its steps; webgl is refused or absent', async () => {
    // No node_modules/dpnoise link here (appDirectory's): the page resolves dpnoise as the repository's own package.
    const out = join(root, 'test/runtimes/.out/tfjs-page');
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    await esbuild.build({
      entryPoints: [join(root, 'test/runtimes/tfjs-page.js')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      outfile: join(out, 'page.js'),
      logLevel: 'error',
    });
    writeFileSync(join(out, 'index.html'), pageLoading('page.js'));
    const { result, errors } = await runPage(chromium, '/test/runtimes/.out/tfjs-page/index.html');
    expect(errors).toEqual([]);
    expect(result).not.toHaveProperty('error');
    const { backends, webgl } = result as { backends: Record<'wasm' | 'cpu', Trained>; webgl: string };
    tf.enableProdMode();
    for (const backend of ['wasm', 'cpu'] as const) {
      const page = backends[backend];
      expect(page.steps).toBe(5);
      expect(page.epsilon).toBe(page.accountant);
      expect(page.privacy).toBe(page.accountant);
      expect(page.epsilon).toBeLessThanOrEqual(2);
      expect(page.weights.flat().every(Number.isFinite)).toBe(true);
      expect(await tf.setBackend(backend)).toBe(true);
      const node: Trained = await trainFew({ tf, privateTraining, compose, createRng, subsample });
      expect(page.accountant).toBe(node.accountant);
      expect(page.weights, `${backend}: the browser's weights are Node's`).toEqual(node.weights);
    }
    // tfjs's webgl backend starts in this Chromium (software rendering) and fit must refuse it; a browser without WebGL reports 'unavailable'.
    const refused = webgl.includes("private training runs on the 'cpu' and 'wasm' tfjs backends") && webgl.includes("the backend is 'webgl'");
    expect(webgl === 'unavailable' || refused, `webgl: ${webgl}`).toBe(true);
  }, 120_000);
});
