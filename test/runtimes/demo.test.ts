// The demo page in headless Chromium: it computes in a Web Worker with the wasm build; the test
// changes the inputs, checks the numbers shown against the library, its errors, plots and CSV
// mode, and saves screenshots.
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { built as dpnoise } from '../built.js';
import { type Session, useChromium } from './chromium.js';

/** The profile as the demo builds it (scaled to ||lambda||_2 = 1). */
function scaled(raw: number[]): number[] {
  const norm = Math.hypot(...raw);
  return raw.map((x) => x / norm);
}

function profile(shape: (i: number, K: number) => number, K: number): number[] {
  return scaled(Array.from({ length: K }, (_, k) => shape(k + 1, K)));
}

async function shown(page: Page, noise: string, allocation: string) {
  const row = page.locator(`[data-testid="row-${noise}-${allocation}"]`);
  return { mse: Number(await row.locator('[data-testid=mse]').textContent()), gain: Number(await row.locator('[data-testid=gain]').textContent()) };
}

/** The table and Gini against the library's numbers for these inputs. */
async function check(page: Page, sensitivity: number[], epsilon: number, delta: number) {
  for (const allocation of ['iid', 'spr', 'optimal'] as const) {
    const g = dpnoise.calibrateGaussian({ sensitivity, epsilon, delta, allocation });
    const l = dpnoise.calibrateLaplace({ sensitivity, epsilon, allocation });
    expect(await shown(page, 'Gaussian', allocation)).toEqual({ mse: Number(g.mse.toPrecision(6)), gain: Number(g.gain.toFixed(4)) });
    expect(await shown(page, 'Laplace', allocation)).toEqual({ mse: Number(l.mse.toPrecision(6)), gain: Number(l.gain.toFixed(4)) });
  }
  // The staircase's gain is over Laplace iid, the same baseline as the Laplace rows.
  const staircase = dpnoise.calibrateStaircase({ sensitivity, epsilon, errorPower: 2 }).error;
  const laplaceIid = dpnoise.calibrateLaplace({ sensitivity, epsilon, allocation: 'iid' }).mse;
  expect(await shown(page, 'Staircase', 'optimal')).toEqual({ mse: Number(staircase.toPrecision(6)), gain: Number((laplaceIid / staircase).toFixed(4)) });
  expect(Number(await page.locator('[data-testid=gini]').textContent())).toBe(Number(dpnoise.gini(sensitivity).toFixed(4)));
}

const status = (page: Page) => page.locator('[data-testid=status]').textContent();

async function settled(page: Page) {
  await page.waitForFunction(() => document.querySelector('[data-testid=status]')?.textContent?.endsWith('done'));
}

async function refused(page: Page) {
  await page.waitForFunction(() => document.querySelector('[data-testid=status]')?.textContent?.startsWith('Not computed'));
}

/** The page, computed, with its uncaught errors collected. */
async function open(chromium: Session) {
  const page = await chromium.browser.newPage({ viewport: { width: 1200, height: 1500 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${chromium.origin}/demo/`);
  await settled(page);
  return { page, errors };
}

/** What is on screen as results: table rows, plots, and the Gini figure. */
async function results(page: Page) {
  return {
    rows: await page.locator('#figures tbody tr').count(),
    plots: await page.locator('.uplot').count(),
    gini: await page.locator('[data-testid=gini]').textContent(),
  };
}

/** A field's error as assistive technology gets it: aria-invalid, and the text aria-describedby names. */
async function fieldError(page: Page, name: string) {
  const field = page.locator(`[name=${name}]`);
  const described = await field.getAttribute('aria-describedby');
  return { invalid: await field.getAttribute('aria-invalid'), message: described && (await page.locator(`#${described}`).textContent()) };
}

async function screenshot(page: Page, name: string) {
  mkdirSync(new URL('.out/', import.meta.url), { recursive: true });
  await page.screenshot({ path: new URL(`.out/${name}.png`, import.meta.url).pathname, fullPage: true });
}

const NO_ERROR = { invalid: null, message: null };

describe('the demo page', () => {
  const chromium = useChromium();

  it('lays out for a phone (390 px) as for a desktop: no sideways scrolling, text at its size, and without the viewport tag it would not', async () => {
    /** The page at a width, as a phone (touch, 3x pixels) or a desktop shows it, optionally with its viewport tag removed. */
    async function layout(width: number, phone: boolean, withoutViewportTag = false) {
      const context = await chromium.browser.newContext({
        viewport: { width, height: 844 },
        isMobile: phone,
        hasTouch: phone,
        deviceScaleFactor: phone ? 3 : 1,
      });
      const page = await context.newPage();
      if (withoutViewportTag) {
        await page.route('**/demo/', async (route) => {
          const response = await route.fetch();
          await route.fulfill({ response, body: (await response.text()).replace(/<meta name="viewport"[^>]*>/, '') });
        });
      }
      await page.goto(`${chromium.origin}/demo/`);
      await settled(page);
      const measured = await page.evaluate(() => ({
        layoutWidth: window.innerWidth,
        contentWidth: document.documentElement.scrollWidth,
        fontPx: Number.parseFloat(getComputedStyle(document.body).fontSize),
        // what a reader finds on the page: the results table's first row and the status line
        firstRow: Array.from((document.querySelector('#figures tbody tr') as HTMLTableRowElement).cells, (cell) => cell.textContent).join(' '),
        status: document.querySelector('[data-testid=status]')?.textContent,
      }));
      const png = await page.screenshot({ fullPage: true });
      if (!withoutViewportTag) await screenshot(page, phone ? 'demo-phone' : 'demo-desktop');
      await context.close();
      return { ...measured, pngWidth: png.readUInt32BE(16) }; // the PNG header's width
    }
    const desktop = await layout(1200, false);
    const phone = await layout(390, true);
    expect(desktop).toMatchObject({ layoutWidth: 1200, pngWidth: 1200 });
    expect(phone).toMatchObject({ layoutWidth: 390, pngWidth: 1170, fontPx: desktop.fontPx, firstRow: desktop.firstRow, status: desktop.status });
    expect(phone.contentWidth).toBeLessThanOrEqual(390);
    expect(phone.firstRow).toMatch(/^Gaussian iid \d/);
    // The test has power: without the tag a phone lays the page out 980 px wide and shrinks it.
    expect((await layout(390, true, true)).layoutWidth).toBe(980);
  });

  it("shows the library's numbers, follows input changes, and renders its plots", async () => {
    const { page, errors } = await open(chromium);
    await check(
      page,
      profile((i, K) => Math.exp(i - K), 20),
      0.5,
      1e-6,
    );
    expect((await shown(page, 'Gaussian', 'optimal')).gain).toBe(9.2423); // docs/calibration.md, "Figures of merit"
    await page.selectOption('select[name=profile]', 'linear');
    await page.fill('input[name=epsilon]', '2');
    await page.fill('input[name=K]', '50');
    await settled(page);
    await check(
      page,
      profile((i) => i, 50),
      2,
      1e-6,
    );
    expect(await page.locator('.uplot').count()).toBe(5);
    // Gini comes with what it measures, and the allocations with what they do.
    expect(await page.locator('p', { has: page.locator('[data-testid=gini]') }).textContent()).toMatch(/spread.*0: all equal; near 1: concentrated/);
    expect(await page.locator('[data-testid=allocations]').textContent()).toMatch(/spr: noise in proportion to each coordinate's sensitivity/);
    expect(await page.locator('[data-testid=units]').textContent()).toBe('(profile scaled to ‖λ‖₂ = 1)');
    // A delta too large to mean privacy gets a word, and computes all the same.
    const note = page.locator('[data-testid=delta-note]');
    expect(await note.isVisible()).toBe(false);
    await page.fill('input[name=delta]', '0.5');
    await settled(page);
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toMatch(/well below 1\/n/);
    await page.fill('input[name=delta]', '1e-6');
    await settled(page);
    expect(await note.isVisible()).toBe(false);
    await screenshot(page, 'demo');
    expect(errors).toEqual([]);
  });

  it('clears old results after an invalid input and shows the error beside the field', async () => {
    const { page, errors } = await open(chromium);
    expect(await results(page)).toEqual({ rows: 7, plots: 5, gini: expect.stringMatching(/^0\.\d{4}$/) });
    // Refused by the page: below the field's minimum.
    await page.fill('input[name=epsilon]', '0');
    await refused(page);
    expect(await results(page)).toEqual({ rows: 0, plots: 0, gini: '–' });
    expect(await fieldError(page, 'epsilon')).toEqual({ invalid: 'true', message: expect.stringContaining('0.01') });
    expect(await fieldError(page, 'K')).toEqual(NO_ERROR);
    expect(await status(page)).toBe('Not computed: check ε.');
    await screenshot(page, 'demo-error');
    await page.fill('input[name=epsilon]', '');
    await refused(page);
    expect((await fieldError(page, 'epsilon')).message).not.toBe('');
    // Refused by the library: e^i over 400 coordinates has entries below 2^-400 once scaled.
    await page.fill('input[name=epsilon]', '1');
    await settled(page);
    await page.fill('input[name=K]', '400');
    await refused(page);
    expect(await results(page)).toEqual({ rows: 0, plots: 0, gini: '–' });
    expect(await fieldError(page, 'K')).toEqual({
      invalid: 'true',
      message: expect.stringMatching(/^Scaled profile: `sensitivity\[0\]` must be 0 or between 2\^-400/),
    });
    expect(await fieldError(page, 'epsilon')).toEqual(NO_ERROR);
    // A valid input again brings the results back and the error goes.
    await page.fill('input[name=K]', '30');
    await settled(page);
    expect(await results(page)).toEqual({ rows: 7, plots: 5, gini: expect.stringMatching(/^0\.\d{4}$/) });
    expect(await fieldError(page, 'K')).toEqual(NO_ERROR);
    await check(
      page,
      profile((i, K) => Math.exp(i - K), 30),
      1,
      1e-6,
    );
    expect(errors).toEqual([]);
  });

  it('labels the y axes, names the series in the legends with values only under the cursor, and shows no -0.00 dB', async () => {
    const { page, errors } = await open(chromium);
    const labels = await page.locator('.plots [aria-label]').evaluateAll((plots) => plots.map((p) => p.getAttribute('aria-label')?.split(':')[0]));
    expect(labels).toEqual([
      'noise scale against coordinate',
      'MSE against ε',
      'MSE against K (same shape)',
      'density against noise / sd',
      'MSE gain against dimension d',
    ]);
    const legend = page.locator('#plot-epsilon .u-legend');
    const values = () => legend.locator('.u-value').allTextContents();
    // With no cursor: the series' names and no values (uPlot's default was "Value: --" and "--" for each).
    expect(await legend.locator('.u-series').filter({ visible: true }).allTextContents()).toEqual([
      'Gaussian iid',
      'Gaussian optimal',
      'Laplace iid',
      'Laplace optimal',
      'Staircase optimal',
    ]);
    expect(await page.locator('.u-legend').allTextContents()).not.toContainEqual(expect.stringMatching(/--|Value/));
    const box = (await page.locator('#plot-epsilon .u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(values).toEqual([expect.stringMatching(/^\d/), ...Array(5).fill(expect.stringMatching(/^\d/))]);
    expect(await legend.locator('.u-series').first().textContent()).toMatch(/^ε\d/); // the x row: ε and its value
    await page.mouse.move(0, 0);
    await expect.poll(values).toEqual(Array(6).fill(''));
    // A uniform profile: every gain is 1 up to rounding, some a hair below.
    await page.selectOption('select[name=profile]', 'uniform');
    await settled(page);
    expect(await page.locator('[data-testid=dB]').allTextContents()).not.toContain('-0.00');
    // Its gain is 0.9999999999999996, which showed as -0.00 dB.
    expect(await page.locator('[data-testid=row-Gaussian-optimal] [data-testid=dB]').textContent()).toBe('0.00');
    expect(errors).toEqual([]);
  });

  it('shows the CSV box only in CSV mode, where K follows the CSV', async () => {
    const { page, errors } = await open(chromium);
    const csv = page.locator('textarea[name=csv]');
    const K = page.locator('input[name=K]');
    expect(await csv.isVisible()).toBe(false);
    await page.selectOption('select[name=profile]', 'csv');
    await settled(page);
    expect(await csv.isVisible()).toBe(true);
    expect({ value: await K.inputValue(), disabled: await K.isDisabled() }).toEqual({ value: '7', disabled: true });
    // A pasted profile is the user's own: its MSE in its units, not scaled.
    await check(page, [1, 2, 3, 5, 8, 13, 21], 0.5, 1e-6);
    expect(await page.locator('[data-testid=units]').textContent()).toBe('(your sensitivities, in their units)');
    expect(await page.locator('#plot-K').isVisible()).toBe(false); // a pasted profile has no K to vary
    await csv.fill('0.5; 4\n2 0');
    await settled(page);
    expect(await K.inputValue()).toBe('4');
    expect(await status(page)).toBe('K = 4: done');
    await check(page, [0.5, 4, 2, 0], 0.5, 1e-6);
    await screenshot(page, 'demo-csv');
    await csv.fill('0.5, -4, x');
    await refused(page);
    expect(await fieldError(page, 'csv')).toEqual({ invalid: 'true', message: 'Entry 2 (-4) is not a number >= 0.' });
    expect(await results(page)).toEqual({ rows: 0, plots: 0, gini: '–' });
    await csv.fill('0, 0');
    await refused(page);
    expect((await fieldError(page, 'csv')).message).toBe('At least one entry must be above 0.');
    await page.selectOption('select[name=profile]', 'linear');
    await settled(page);
    expect({ csv: await csv.isVisible(), K: await K.isDisabled(), plots: await page.locator('.uplot').count() }).toEqual({ csv: false, K: false, plots: 5 });
    expect(await fieldError(page, 'csv')).toEqual(NO_ERROR);
    await check(
      page,
      profile((i) => i, 2),
      0.5,
      1e-6,
    ); // K kept the CSV's count
    expect(errors).toEqual([]);
  });
});
