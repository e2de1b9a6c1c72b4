// Applications built by Vite (the bundler vitest runs on): Vite emits dist/noise/worker.js, which
// the worker pool names as `new URL('./worker.js', import.meta.url)`, and the .wasm files of
// `dpnoise/asset`, as assets. Both apps run in headless Chromium; the workers must come from the
// emitted file (no fallback to the bundled copy) and only the SIMD build may be fetched.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';
import { beforeAll, describe, expect, it } from 'vitest';
import { built as dpnoise } from '../built.js';
import { useChromium } from './chromium.js';
import { workload } from './workload.js';

const root = new URL('../..', import.meta.url).pathname;
const out = join(root, 'test/runtimes/.out/vite');

/** Builds an app whose page runs `main` into out/<name>/dist; resolves to the page's path on the test server. */
async function app(name: string, main: string): Promise<string> {
  const dir = join(out, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><link rel="icon" href="data:,"><script type="module" src="./main.js"></script>\n');
  writeFileSync(join(dir, 'main.js'), main);
  await build({ root: dir, base: './', logLevel: 'error', configFile: false, build: { outDir: join(dir, 'dist'), emptyOutDir: true } });
  return `/test/runtimes/.out/vite/${name}/dist/index.html`;
}

beforeAll(() => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'node_modules'), { recursive: true });
  symlinkSync(root, join(out, 'node_modules/dpnoise'));
});

describe('Vite-built applications', () => {
  const chromium = useChromium();

  /** Opens a page; resolves to its `window.result` and the files it fetched. */
  async function open(path: string): Promise<{ result: unknown; fetched: string[] }> {
    const page = await chromium.browser.newPage();
    const fetched: string[] = [];
    page.on('request', (request) => {
      fetched.push(request.url().split('/').pop()!);
    });
    await page.goto(`${chromium.origin}${path}`);
    const result = await page.evaluate(() => (window as unknown as { result: Promise<unknown> }).result);
    await page.close();
    return { result, fetched };
  }

  it('start the parallel samplers from the worker file Vite emits', async () => {
    const path = await app(
      'parallel',
      `import { run } from '${join(root, 'test/runtimes/bundled-app.js')}';\nwindow.result = run().catch((e) => ({ error: String(e?.stack ?? e) }));\n`,
    );
    const { result, fetched } = await open(path);
    expect(result).toEqual({ parallelEqual: true, addEqual: true, sharedMemory: false });
    const workers = fetched.filter((file) => /^worker.*\.js$/.test(file));
    expect(workers.length).toBeGreaterThan(0);
    expect(workers.every((file) => /^worker-.+\.js$/.test(file))).toBe(true); // Vite's file; never worker.js, which esbuild's bundles ask for (a 404)
  });

  it('load the .wasm of dpnoise/asset as an asset, only the build they use', async () => {
    const path = await app(
      'asset',
      `import * as dpnoise from 'dpnoise/asset';\nimport { workload } from '${join(root, 'test/runtimes/workload.js')}';\n` +
        'window.result = dpnoise.init().then(() => workload(dpnoise)).catch((e) => ({ error: String(e) }));\n',
    );
    const { result, fetched } = await open(path);
    expect(result).toEqual(JSON.parse(JSON.stringify(workload(dpnoise))));
    expect(fetched.filter((file) => file.endsWith('.wasm'))).toEqual([expect.stringMatching(/^dpnoise-simd-.*\.wasm$/)]);
  });
});
