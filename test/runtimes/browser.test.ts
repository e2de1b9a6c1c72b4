// A real browser: headless Chromium (see chromium.ts) driven by playwright-core, against pages
// served on localhost. dpnoise needs `await init()` there, then gives exactly Node's numbers on the
// main thread, in a module Web Worker, and with parallel sampling in Web Workers.
import { describe, expect, it } from 'vitest';
import { built as dpnoise } from '../built.js';
import { runPage, useChromium } from './chromium.js';
import { workload } from './workload.js';

describe('headless Chromium', () => {
  const chromium = useChromium();

  it('asks for init() first, then matches Node on the main thread, in a Web Worker and in parallel', async () => {
    const { result, requested } = await runPage(chromium, '/test/runtimes/browser.html');
    const expected = JSON.parse(JSON.stringify(workload(dpnoise)));
    expect(result).toMatchObject({ before: expect.stringMatching(/call `await init\(\)`/), parallelEqual: true });
    expect((result as { mainThread: unknown }).mainThread).toEqual(expected);
    expect((result as { inWorker: unknown }).inWorker).toEqual(expected);
    expect(requested).toContain('worker.js'); // the parallel call used a sampling worker (dist/noise/worker.js), not only this thread
  });
});
