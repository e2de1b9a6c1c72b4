// Headless Chromium for the browser tests, driven by playwright-core, with the repository served
// on localhost. The browser comes from the devDependency @sparticuz/chromium, which carries a
// compressed Chromium inside the npm package (test tools' own browser downloads fail here), so
// `npm ci && npm test` needs nothing but Node and npm; DPNOISE_CHROMIUM=/path/to/chromium uses
// another Chromium or Chrome instead.
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
// @ts-expect-error: a plain JavaScript module
import { serve } from '../../scripts/serve.mjs';

export interface Session {
  browser: Browser;
  /** http://127.0.0.1:<port> */
  origin: string;
}

/**
 * Headless, no sandbox (containers run as root), no GPU, and no network beyond localhost.
 * Playwright adds a fresh --user-data-dir (a temporary profile per launch) itself and refuses one
 * in `args`.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Flags of @sparticuz/chromium (made for AWS Lambda) left out, by prefix, and why. */
const DROPPED = [
  '--headless', // its --headless='shell' (quotes included); FLAGS has --headless
  '--single-process', // only Lambda's sandboxing needs it; multi-process is Chromium's supported mode
  '--disable-features',
  '--enable-features', // the last one wins: they would replace Playwright's lists
  '--disable-web-security',
  '--allow-running-insecure-content', // the tests must meet a browser's real rules
  '--use-gl',
  '--use-angle',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
  '--in-process-gpu', // GPU: --disable-gpu
];

/**
 * Unpacks @sparticuz/chromium's browser once per version and returns its path.
 * executablePath() unpacks into os.tmpdir() as /tmp/chromium, the same path for every version,
 * written in place and reused whenever it exists: a concurrent or interrupted unpack would leave
 * a partial binary for good. So it unpacks into a fresh directory that is then renamed to one
 * named for the version: only complete unpacks appear there, and when two test files unpack at
 * once, the first rename wins and the other copy is deleted.
 */
async function unpack(bundled: { executablePath(): Promise<string> }): Promise<string> {
  const { version } = JSON.parse(readFileSync(new URL('../../node_modules/@sparticuz/chromium/package.json', import.meta.url), 'utf8'));
  const dir = join(tmpdir(), `dpnoise-chromium-${version}`);
  if (!existsSync(join(dir, 'chromium'))) {
    const staging = mkdtempSync(`${dir}-`);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = staging; // os.tmpdir(), where executablePath() unpacks
    try {
      await bundled.executablePath();
      // The system's fonts if any, and the ones it ships (its own fonts.conf names /tmp/fonts):
      // without any font, pages crash, and containers often have none.
      writeFileSync(
        join(staging, 'fonts.conf'),
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n' +
          '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n' +
          `  <dir>${join(dir, 'fonts')}</dir>\n  <cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
      );
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    try {
      renameSync(staging, dir);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(join(dir, 'chromium'))) throw error;
    }
  }
  return join(dir, 'chromium');
}

/** The browser to launch, its flags and environment: DPNOISE_CHROMIUM's, or @sparticuz/chromium's. */
async function findChromium(): Promise<{ executablePath: string; args: string[]; env?: NodeJS.ProcessEnv }> {
  const own = process.env.DPNOISE_CHROMIUM;
  if (own) {
    if (!existsSync(own))
      throw new Error(
        `DPNOISE_CHROMIUM=${own}: no such file; set it to a Chromium or Chrome executable, or unset it to use the devDependency @sparticuz/chromium.`,
      );
    return { executablePath: own, args: FLAGS };
  }
  let bundled: { args: string[]; executablePath(): Promise<string> };
  try {
    bundled = (await import('@sparticuz/chromium')).default;
  } catch (error) {
    throw new Error(
      'The browser tests need Chromium: install the devDependencies (`npm ci` brings @sparticuz/chromium) ' +
        `or set DPNOISE_CHROMIUM=/path/to/chromium. (${(error as Error).message})`,
    );
  }
  const executablePath = await unpack(bundled);
  const kept = bundled.args.filter((arg) => !DROPPED.some((prefix) => arg.startsWith(prefix)));
  return {
    executablePath,
    args: [...new Set([...kept, ...FLAGS])],
    env: {
      ...process.env,
      FONTCONFIG_FILE: join(dirname(executablePath), 'fonts.conf'), // the fonts it ships, written by unpack()
      // In the C locale (LANG=C.UTF-8, as in most containers) this build reports navigator.language
      // 'en-US@posix', which Intl rejects (uPlot's number format throws in the demo page).
      LC_ALL: 'en_US.UTF-8',
    },
  };
}

/**
 * Starts the server and the browser before the suite's tests and stops them after. A browser
 * that cannot start fails every test that uses it, with the reason (an error in beforeAll would
 * only mark them skipped).
 */
export function useChromium(): Session {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let failure: unknown;
  const session = {
    origin: '',
    get browser(): Browser {
      if (failure) throw failure;
      return browser!;
    },
  };
  beforeAll(async () => {
    server = await serve(0);
    session.origin = `http://127.0.0.1:${(server!.address() as { port: number }).port}`;
    try {
      browser = await chromium.launch(await findChromium());
    } catch (error) {
      failure = error;
    }
  });
  afterAll(async () => {
    await browser?.close();
    server?.close();
  });
  return session;
}

/** What a test page left in `window.result` (a Promise it sets), the files it requested and the errors it threw. */
export interface PageRun {
  result: unknown;
  /** The last path segment of every URL the page requested, in order. */
  requested: string[];
  errors: string[];
}

/** Opens `path` on the test server (after `prepare`, e.g. to route requests), waits for `window.result`, and closes the page. */
export async function runPage(session: Session, path: string, prepare?: (page: Page) => Promise<void>): Promise<PageRun> {
  const page = await session.browser.newPage();
  try {
    const run: Omit<PageRun, 'result'> = { requested: [], errors: [] };
    page.on('request', (request) => run.requested.push(request.url().split('/').pop()!));
    page.on('pageerror', (error) => run.errors.push(error.message));
    await prepare?.(page);
    await page.goto(`${session.origin}${path}`);
    return { ...run, result: await page.evaluate(() => (window as unknown as { result: Promise<unknown> }).result) };
  } finally {
    await page.close();
  }
}
