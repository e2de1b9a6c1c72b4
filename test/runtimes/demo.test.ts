// The demo page in headless Chromium: it computes in a Web Worker with the wasm build; the test
// changes the inputs, checks the numbers shown against the library, and saves a screenshot.
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { built as dpnoise } from '../built.js';
import { useChromium } from './chromium.js';

/** The profile as the demo builds it (scaled to ||lambda||_2 = 1). */
function profile(shape: (i: number, K: number) => number, K: number): number[] {
  const raw = Array.from({ length: K }, (_, k) => shape(k + 1, K));
  const norm = Math.hypot(...raw);
  return raw.map((x) => x / norm);
}

async function shown(page: Page, noise: string, allocation: string) {
  const row = page.locator(`[data-testid="row-${noise}-${allocation}"]`);
  return { mse: Number(await row.locator('[data-testid=mse]').textContent()), gain: Number(await row.locator('[data-testid=gain]').textContent()) };
}

async function settled(page: Page) {
  await page.waitForFunction(() => document.querySelector('[data-testid=status]')?.textContent?.endsWith('done'));
}

describe('the demo page', () => {
  const chromium = useChromium();

  it("shows the library's numbers, follows input changes, and renders its plots", async () => {
    const page = await chromium.browser.newPage({ viewport: { width: 1200, height: 1500 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${chromium.origin}/demo/`);
    await settled(page);
    const check = async (sensitivity: number[], epsilon: number, delta: number) => {
      for (const allocation of ['iid', 'spr', 'optimal'] as const) {
        const g = dpnoise.calibrateGaussian({ sensitivity, epsilon, delta, allocation });
        const l = dpnoise.calibrateLaplace({ sensitivity, epsilon, allocation });
        expect(await shown(page, 'Gaussian', allocation)).toEqual({ mse: Number(g.mse.toPrecision(6)), gain: Number(g.gain.toFixed(4)) });
        expect(await shown(page, 'Laplace', allocation)).toEqual({ mse: Number(l.mse.toPrecision(6)), gain: Number(l.gain.toFixed(4)) });
      }
      expect(Number(await page.locator('[data-testid=gini]').textContent())).toBe(Number(dpnoise.gini(sensitivity).toFixed(4)));
    };
    await check(
      profile((i, K) => Math.exp(i - K), 20),
      0.5,
      1e-6,
    );
    expect((await shown(page, 'Gaussian', 'optimal')).gain).toBe(9.2423); // docs/math.md, "Figures of merit"
    await page.selectOption('select[name=profile]', 'linear');
    await page.fill('input[name=epsilon]', '2');
    await page.fill('input[name=K]', '50');
    await page.locator('input[name=K]').dispatchEvent('input');
    await settled(page);
    await check(
      profile((i) => i, 50),
      2,
      1e-6,
    );
    expect(await page.locator('.uplot').count()).toBe(5);
    mkdirSync(new URL('.out/', import.meta.url), { recursive: true });
    await page.screenshot({ path: new URL('.out/demo.png', import.meta.url).pathname, fullPage: true });
    expect(errors).toEqual([]);
  });
});
