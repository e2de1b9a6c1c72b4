// The API reference as a reader opens it: built by typedoc (npm run docs's configuration, warnings
// as errors) into a temporary directory, then opened from file:// in headless Chromium, where its
// pages must load and run their scripts (navigation, search, icons) without an error.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useChromium } from './runtimes/chromium.js';

const root = new URL('..', import.meta.url).pathname;

describe('the API reference', () => {
  const chromium = useChromium();
  const out = mkdtempSync(join(tmpdir(), 'dpnoise-api-'));

  beforeAll(async () => {
    await promisify(execFile)(process.execPath, [join(root, 'node_modules/typedoc/bin/typedoc'), '--treatWarningsAsErrors', '--out', out], { cwd: root });
  }, 120_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  const pages = ['index.html', 'modules.html', 'functions/dpnoise.gaussianMechanism.html', 'functions/dpnoise_aggregate.aggregate.html'];
  it.each(pages)('%s opens from file:// without errors', async (file) => {
    const page = await chromium.browser.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    page.on('requestfailed', (request) => errors.push(`request: ${request.url()} ${request.failure()?.errorText}`));
    await page.goto(pathToFileURL(join(out, file)).href);
    // The navigation is built by script from compressed data: its links show that the scripts ran.
    await page.waitForFunction(() => document.querySelectorAll('.site-menu nav a').length > 50);
    expect(await page.title()).toContain('dpnoise');
    // Icons drawn from the sprite inlined by the theme's icons.js (scripts/typedoc-file-icons.mjs).
    expect(await page.locator('#tsd-search-trigger use').evaluate((use: SVGUseElement) => use.getBBox().width)).toBeGreaterThan(0);
    await page.close();
    expect(errors).toEqual([]);
  });
});
