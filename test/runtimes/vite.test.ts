// Applications built by Vite (the bundler vitest runs on): Vite emits dist/noise/worker.js, which
// the worker pool names as `new URL('./worker.js', import.meta.url)`, and the .wasm files of
// `dpnoise/asset`, as assets. Both apps run in headless Chromium; the workers must come from the
// emitted file (no fallback to the bundled copy) and only the SIMD build may be fetched.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';
import { describe, expect, it } from 'vitest';
import { built as dpnoise } from '../built.js';
import { appDirectory, pageLoading, root } from './apps.js';
import { runPage, useChromium } from './chromium.js';
import { workload } from './workload.js';

const out = appDirectory('vite');

/** Builds an app whose page runs `main` into out/<name>/dist; resolves to the page's path on the test server. */
async function app(name: string, main: string): Promise<string> {
  const dir = join(out, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), pageLoading('./main.js'));
  writeFileSync(join(dir, 'main.js'), main);
  await build({ root: dir, base: './', logLevel: 'error', configFile: false, build: { outDir: join(dir, 'dist'), emptyOutDir: true } });
  return `/test/runtimes/.out/vite/${name}/dist/index.html`;
}

describe('Vite-built applications', () => {
  const chromium = useChromium();

  it('start the parallel samplers from the worker file Vite emits', async () => {
    const path = await app(
      'parallel',
      `import { run } from '${join(root, 'test/runtimes/bundled-app.js')}';\nwindow.result = run().catch((e) => ({ error: String(e?.stack ?? e) }));\n`,
    );
    const { result, requested } = await runPage(chromium, path);
    expect(result).toEqual({ parallelEqual: true, addEqual: true, sharedMemory: false });
    const workers = requested.filter((file) => /^worker.*\.js$/.test(file));
    expect(workers.length).toBeGreaterThan(0);
    expect(workers.every((file) => /^worker-.+\.js$/.test(file))).toBe(true); // Vite's file; never worker.js, which esbuild's bundles ask for (a 404)
  });

  it('load the .wasm of dpnoise/asset as an asset, only the build they use', async () => {
    const path = await app(
      'asset',
      `import * as dpnoise from 'dpnoise/asset';\nimport { workload } from '${join(root, 'test/runtimes/workload.js')}';\n` +
        'window.result = dpnoise.init().then(() => workload(dpnoise)).catch((e) => ({ error: String(e) }));\n',
    );
    const { result, requested } = await runPage(chromium, path);
    expect(result).toEqual(JSON.parse(JSON.stringify(workload(dpnoise))));
    expect(requested.filter((file) => file.endsWith('.wasm'))).toEqual([expect.stringMatching(/^dpnoise-simd-.*\.wasm$/)]);
  });
});
