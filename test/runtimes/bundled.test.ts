// Bundled applications: esbuild bundles test/runtimes/bundled-app.js with dpnoise for the browser
// (run in headless Chromium, with and without cross-origin isolation, so through transferred
// copies and through shared memory) and for Node (run in a child process, which must also exit
// by itself once done: idle workers do not keep it alive).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appDirectory, pageLoading, root } from './apps.js';
import { runPage, useChromium } from './chromium.js';

const out = appDirectory('bundled');
writeFileSync(join(out, 'app.js'), `export * from '${join(root, 'test/runtimes/bundled-app.js')}';\n`);
const expected = { parallelEqual: true, addEqual: true };

function bundle(platform: 'browser' | 'node', wrapper: string, outfile: string) {
  return esbuild.build({
    stdin: { contents: wrapper, resolveDir: out, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform,
    outfile: join(out, outfile),
    logLevel: 'error',
  });
}

describe('a bundled browser application', () => {
  const chromium = useChromium();

  it('samples in parallel, with transferred copies and with shared memory', async () => {
    await bundle('browser', "import { run } from './app.js'; window.result = run().catch((e) => ({ error: String(e?.stack ?? e) }));", 'page.js');
    writeFileSync(join(out, 'index.html'), pageLoading('page.js'));
    for (const isolated of [false, true]) {
      const isolate = async (page: Page) => {
        await page.route('**/*', async (route) => {
          const response = await route.fetch();
          const headers = { ...response.headers(), 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
          await route.fulfill({ response, headers });
        });
      };
      const { result, errors } = await runPage(chromium, '/test/runtimes/.out/bundled/index.html', isolated ? isolate : undefined);
      expect(result).toEqual({ ...expected, sharedMemory: isolated });
      expect(errors).toEqual([]);
    }
  });
});

describe('a bundled Node application', () => {
  it('samples in parallel and exits by itself', async () => {
    await bundle('node', "import { run } from './app.js'; run().then((r) => console.log(JSON.stringify(r)));", 'node-app.mjs');
    const child = spawnSync(process.execPath, [join(out, 'node-app.mjs')], { encoding: 'utf8', timeout: 60_000 });
    expect(child.signal, 'the process did not exit by itself within 60 s').toBeNull();
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ ...expected, sharedMemory: true });
  });
});
