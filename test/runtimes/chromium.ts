// Debian's Chromium for the browser tests (test tools cannot download browsers here), with the
// flags that keep it off the network, and the repository served on localhost.
import type { Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
// @ts-expect-error: a plain JavaScript module
import { serve } from '../../scripts/serve.mjs';

export interface Session {
  browser: Browser;
  /** http://127.0.0.1:<port> */
  origin: string;
}

/** Starts the server and the browser before the suite's tests and stops them after. */
export function useChromium(): Session {
  const session = {} as Session;
  let server: Server | undefined;
  beforeAll(async () => {
    server = await serve(0);
    session.origin = `http://127.0.0.1:${(server!.address() as { port: number }).port}`;
    session.browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await session.browser?.close();
    server?.close();
  });
  return session;
}
