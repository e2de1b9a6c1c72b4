// A real browser: Debian's headless Chromium driven by playwright-core, against pages served on
// localhost. dpnoise needs `await init()` there, then gives exactly Node's numbers on the main
// thread, in a module Web Worker, and with parallel sampling in Web Workers.
import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as dpnoise from '../../dist/index.js';
// @ts-expect-error: a plain JavaScript module
import { serve } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.js';
import { workload } from './workload.js';

describe('headless Chromium', () => {
  let server: Server;
  let browser: Browser;
  beforeAll(async () => {
    server = await serve(0);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  it('asks for init() first, then matches Node on the main thread, in a Web Worker and in parallel', async () => {
    const page = await browser.newPage();
    const { port } = server.address() as { port: number };
    await page.goto(`http://127.0.0.1:${port}/test/runtimes/browser.html`);
    const result = await page.evaluate(() => (window as unknown as { result: Promise<unknown> }).result);
    const expected = JSON.parse(JSON.stringify(workload(dpnoise)));
    expect(result).toMatchObject({ before: expect.stringMatching(/call `await init\(\)`/), parallelEqual: true });
    expect((result as { mainThread: unknown }).mainThread).toEqual(expected);
    expect((result as { inWorker: unknown }).inWorker).toEqual(expected);
  });
});
