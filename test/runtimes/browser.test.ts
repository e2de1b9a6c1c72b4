// A real browser: Debian's headless Chromium driven by playwright-core, against pages served on
// localhost. dpnoise needs `await init()` there, then gives exactly Node's numbers on the main
// thread, in a module Web Worker, and with parallel sampling in Web Workers.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as dpnoise from '../../dist/index.js';
import { workload } from './workload.js';

const root = new URL('../..', import.meta.url).pathname;
const CHROMIUM = '/usr/bin/chromium';
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm' };

/** Serves the repository's files (dist/ and test/runtimes/) on localhost. */
function serve(): Promise<Server> {
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url!, 'http://localhost').pathname));
    if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><script type="module" src="/test/runtimes/browser-page.js"></script>');
      return;
    }
    try {
      const body = readFileSync(join(root, path));
      response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('headless Chromium', () => {
  let server: Server;
  let browser: Browser;
  beforeAll(async () => {
    server = await serve();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  it('asks for init() first, then matches Node on the main thread, in a Web Worker and in parallel', async () => {
    const page = await browser.newPage();
    const { port } = server.address() as { port: number };
    await page.goto(`http://127.0.0.1:${port}/`);
    const result = await page.evaluate(() => (window as unknown as { result: Promise<unknown> }).result);
    const expected = JSON.parse(JSON.stringify(workload(dpnoise)));
    expect(result).toMatchObject({ before: expect.stringMatching(/call `await init\(\)`/), parallelEqual: true });
    expect((result as { mainThread: unknown }).mainThread).toEqual(expected);
    expect((result as { inWorker: unknown }).inWorker).toEqual(expected);
  });
});
