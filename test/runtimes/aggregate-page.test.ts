// The demo's "aggregate a CSV" page in headless Chromium (demo/aggregate.html): a CSV of 1e6 rows
// picked as a user picks it, read by DuckDB-Wasm in the page's worker, released by
// dpnoise/aggregate through its DuckDB-Wasm engine; the private table and the charts appear, the
// figures are the data's within their noise, and no request leaves with the file.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { lcg } from '../helpers.js';
import { useChromium } from './chromium.js';

const ROWS = 1_000_000;
const REGIONS = ['north', 'south', 'east', 'west'];

/** The CSV, and each region's true row count and mean age (ages clipped to [0, 100] already). */
function people() {
  const random = lcg(20261125);
  const counts = new Map(REGIONS.map((r) => [r, 0]));
  const sums = new Map(REGIONS.map((r) => [r, 0]));
  const lines = ['person_id,region,age,income'];
  for (let i = 0; i < ROWS; i++) {
    const region = REGIONS[Math.floor(random() * REGIONS.length)]!;
    const age = 18 + Math.floor(random() * 70) + (region === 'north' ? 5 : 0);
    counts.set(region, counts.get(region)! + 1);
    sums.set(region, sums.get(region)! + age);
    lines.push(`${i},${region},${age},${Math.floor(random() * 200000)}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'dpnoise-aggregate-page-'));
  const path = join(dir, 'people.csv');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { path, count: (r: string) => counts.get(r)!, mean: (r: string) => sums.get(r)! / counts.get(r)! };
}

describe('the "aggregate a CSV" page', () => {
  const chromium = useChromium();

  it('releases a 1e6-row CSV in the browser: the private table and a chart per statistic appear, and the file never leaves the page', async () => {
    const data = people();
    const page = await chromium.browser.newPage({ viewport: { width: 1000, height: 600 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const requests: Request[] = [];
    page.context().on('request', (r) => requests.push(r)); // the page's and its workers'
    await page.goto(`${chromium.origin}/demo/aggregate.html`);
    await expect(page.locator('[data-testid=local]').textContent()).resolves.toMatch(/never leaves this page/);

    await page.setInputFiles('input[name=file]', data.path);
    await page.waitForFunction(() => !(document.getElementById('release') as HTMLButtonElement).disabled);
    await page.selectOption('select[name=groupBy]', 'region');
    await page.fill('input[name=groups]', REGIONS.join(','));
    await page.selectOption('select[name=unit]', 'person_id');
    await page.selectOption('select[name=column]', 'age');
    await page.fill('input[name=lower]', '0');
    await page.fill('input[name=upper]', '100');
    await page.click('#release');
    await page.waitForFunction(() => document.querySelector('[data-testid=status]')?.textContent?.endsWith('done'), undefined, { timeout: 120_000 });

    // One count and one mean per region, each within 6 of its noise's standard deviations of the truth.
    const rows = await page
      .locator('#result tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from((tr as HTMLTableRowElement).cells, (c) => c.textContent!)));
    expect(rows.map(([group, statistic]) => `${group} ${statistic}`)).toEqual(REGIONS.flatMap((r) => [`${r} count`, `${r} mean(age)`]));
    for (const [group, statistic, value, sd, interval] of rows) {
      const truth = statistic === 'count' ? data.count(group!) : data.mean(group!);
      expect(Math.abs(Number(value) - truth), `${group} ${statistic}`).toBeLessThan(6 * Number(sd));
      expect(interval).toMatch(/^\[[-\d.e+]+, [-\d.e+]+\]$/);
    }
    // North's people are 5 years older: the released means show it.
    const mean = (r: string) => Number(rows.find(([g, s]) => g === r && s === 'mean(age)')![2]);
    expect(mean('north') - mean('south')).toBeGreaterThan(4);
    expect(await page.locator('#charts svg').count()).toBe(2);
    expect(await page.locator('#charts [data-testid=interval]').count()).toBe(8);
    expect(await page.locator('[data-testid=unit]').textContent()).toMatch(/protects each person_id/);

    // Every request is a GET for the page's own files, with no body: the CSV went nowhere.
    expect(requests.length).toBeGreaterThan(5);
    for (const r of requests) {
      expect(new URL(r.url()).origin, r.url()).toBe(chromium.origin);
      expect(r.method(), r.url()).toBe('GET');
      expect(r.postData(), r.url()).toBeNull();
      expect(r.url()).not.toMatch(/people/);
    }
    expect(errors).toEqual([]);
    // The recorder has power: an upload from the page would be seen.
    await page.evaluate(() => fetch('/upload', { method: 'POST', body: 'person_id,region' }).catch(() => undefined));
    expect(requests.some((r) => r.method() === 'POST' && r.postData() === 'person_id,region')).toBe(true);
    mkdirSync(new URL('.out/', import.meta.url), { recursive: true });
    await page.screenshot({ path: new URL('.out/aggregate-page.png', import.meta.url).pathname, fullPage: true }); // README's docs/images/aggregate-page.png
    await page.close();
  }, 240_000);
});
