// The demo's "aggregate a CSV" page in headless Chromium (demo/aggregate.html): a CSV of 1e6 rows
// picked as a user picks it, read by DuckDB-Wasm in the page's worker, released by
// dpnoise/aggregate through its DuckDB-Wasm engine. The plan (the accuracy table) shows before the
// release, every statistic comes back within its noise of the truth with a chart, the session
// budget is kept across reloads, refuses what would exceed it before the file is read (in two tabs
// releasing at once too) and exports as a budget file the command line charges, the phone layout
// fits 390 px, and no request leaves with the file.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { restoreBudget } from '../../src/accounting/ledger.js';
import { planAggregate } from '../../src/aggregate/aggregate.js';
import { lcg } from '../helpers.js';
import { useChromium } from './chromium.js';

const ROWS = 1_000_000;
const REGIONS = ['north', 'south', 'east', 'west'];
const AGE_BINS = [0, 30, 60, 100];
const INCOME_TOP = 200_000;
const cli = new URL('../../dist/cli.js', import.meta.url).pathname;
const out = new URL('.out/', import.meta.url).pathname;

interface Truth {
  count: number;
  ageSum: number;
  ageSquares: number;
  incomeSum: number;
  incomes: number[];
  bins: number[];
}

/** The CSV (one row per person), and each region's true statistics (values within their bounds already). */
function people() {
  const random = lcg(20261125);
  const truth = new Map<string, Truth>(REGIONS.map((r) => [r, { count: 0, ageSum: 0, ageSquares: 0, incomeSum: 0, incomes: [], bins: [0, 0, 0] }]));
  const lines = ['person_id,region,age,income'];
  for (let i = 0; i < ROWS; i++) {
    const region = REGIONS[Math.floor(random() * REGIONS.length)]!;
    const age = 18 + Math.floor(random() * 70) + (region === 'north' ? 5 : 0);
    const income = Math.floor(random() * INCOME_TOP);
    const t = truth.get(region)!;
    t.count++;
    t.ageSum += age;
    t.ageSquares += age * age;
    t.incomeSum += income;
    t.incomes.push(income);
    t.bins[age < AGE_BINS[1]! ? 0 : age < AGE_BINS[2]! ? 1 : 2]!++; // ages are 18 to 92: none outside the edges
    lines.push(`${i},${region},${age},${income}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'dpnoise-aggregate-page-'));
  const path = join(dir, 'people.csv');
  writeFileSync(path, `${lines.join('\n')}\n`);
  for (const t of truth.values()) t.incomes.sort((a, b) => a - b);
  return { dir, path, truth: (region: string) => truth.get(region)! };
}

let made: ReturnType<typeof people> | undefined;
const data = () => (made ??= people());

/** The requests of a page and its workers, and its errors. */
function record(page: Page): { requests: Request[]; errors: string[] } {
  const seen = { requests: [] as Request[], errors: [] as string[] };
  page.on('pageerror', (e) => seen.errors.push(e.message));
  page.context().on('request', (r) => seen.requests.push(r));
  return seen;
}

/** Picks the CSV and fills in who is protected, by region. */
async function pick(page: Page, path: string): Promise<void> {
  await page.setInputFiles('input[name=file]', path);
  await page.waitForFunction(() => document.querySelector('select[name=groupBy] option[value=region]'));
  await page.selectOption('select[name=groupBy]', 'region');
  await page.fill('input[name=groups]', REGIONS.join(','));
  await page.selectOption('select[name=unit]', 'person_id');
  await page.fill('input[name=maxGroups]', '1');
}

/** Adds a statistic row: its kind, column, bounds and (for quantiles and histograms) its levels or edges. */
async function addStatistic(page: Page, kind: string, column: string, bounds: [number, number] | undefined, extra?: string): Promise<void> {
  await page.click('#add-statistic');
  const row = page.locator('#statistics .statistic').last();
  await row.locator('select[name=kind]').selectOption(kind);
  await row.locator('select[name=column]').selectOption(column);
  if (bounds) {
    await row.locator('input[name=lower]').fill(String(bounds[0]));
    await row.locator('input[name=upper]').fill(String(bounds[1]));
  }
  if (extra !== undefined) await row.locator('input[name=extra]').fill(extra);
}

/** Waits for the status line to end with `ending`, and returns it. */
async function statusEnding(page: Page, ending: string): Promise<string> {
  await page.waitForFunction((e) => document.querySelector('[data-testid=status]')?.textContent?.endsWith(e), ending, { timeout: 120_000 });
  return (await page.locator('[data-testid=status]').textContent())!;
}

/** A table's lines: each cell's exact number (data-value) where it has one, else its text. */
const cells = (page: Page, selector: string) =>
  page
    .locator(`${selector} tbody tr`)
    .evaluateAll((trs) =>
      trs.map((tr) =>
        Array.from((tr as HTMLTableRowElement).cells, (c) => ((c as HTMLElement).dataset.value === undefined ? c.textContent! : Number(c.dataset.value))),
      ),
    );

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(out, { recursive: true });
  const path = join(out, name);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
}

describe('the "aggregate a CSV" page', () => {
  const chromium = useChromium();

  it('plans, then releases every statistic of a 1e6-row CSV in the browser, with a chart of each; fits a phone; the file never leaves the page', async () => {
    const { path, truth } = data();
    const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const { requests, errors } = record(page);
    await page.goto(`${chromium.origin}/demo/aggregate.html`);
    await expect(page.locator('[data-testid=local]').textContent()).resolves.toMatch(/never leaves this page/);

    await pick(page, path);
    await page.check('input[name=count]');
    await page.check('input[name=units]');
    await page.check('input[name=integerCounts]');
    await page.check('input[name=consistent]');
    await addStatistic(page, 'sum', 'income', [0, INCOME_TOP]);
    await addStatistic(page, 'mean', 'age', [0, 100]);
    await addStatistic(page, 'variance', 'age', [0, 100]);
    await addStatistic(page, 'quantile', 'income', [0, INCOME_TOP], '0.5, 0.9');
    await addStatistic(page, 'histogram', 'age', undefined, AGE_BINS.join(', '));
    await page.fill('input[name=epsilon]', '1');
    await page.fill('input[name=delta]', '1e-6');
    await page.fill('input[name=expectedCount]', '250000');

    // Before anything is released, the plan: the library's accuracy table to the last digit, and the cost.
    const spec = {
      groupBy: 'region',
      groups: REGIONS,
      privacyUnit: 'person_id',
      maxGroups: 1,
      count: true,
      units: true,
      sum: { income: [0, INCOME_TOP] },
      mean: { age: [0, 100] },
      variance: { age: [0, 100] },
      quantile: { income: { bounds: [0, INCOME_TOP], q: [0.5, 0.9] } },
      histogram: { age: { bins: AGE_BINS } },
      integerCounts: true,
      consistent: true,
      expectedCount: 250_000,
      invalid: 'drop' as const,
    };
    const plan = planAggregate({ epsilon: 1, delta: 1e-6, ...spec });
    await page.waitForFunction(() => document.querySelectorAll('#plan tbody tr').length === 8);
    const planned = await cells(page, '#plan');
    expect(planned).toEqual(plan.accuracy.map((a) => [a.statistic, a.mechanism, a.sd, a.halfWidth, expect.any(String)]));
    // A mean's, variance's and quantile's sd in its column's units at the expected rows, to the 6 digits shown.
    plan.accuracy.forEach((a, i) => {
      const shown = (planned[i]![4] as string).match(/sd ([\d.e+-]+) at 250000 rows$/);
      expect(shown === null, a.statistic).toBe(a.valueSd === undefined);
      if (shown) expect(Math.abs(Number(shown[1]) / a.valueSd! - 1), a.statistic).toBeLessThan(1e-5);
    });
    expect(await page.locator('[data-testid=cost]').textContent()).toMatch(/costs epsilon 1 at delta 1e-6/);
    expect(await page.locator('#result tbody tr').count()).toBe(0);

    await page.click('#release');
    await statusEnding(page, 'done');

    // Every statistic of every region within 6 of its noise's standard deviations of the truth
    // (a figure of another region, column or bin is off by far more); quantiles within 1% of the
    // income range (their rank sd is about 20 of 250000 rows: a wrong level is off by 40%).
    const rows = await cells(page, '#result');
    const names = ['count', 'units', 'sum(income)', 'mean(age)', 'variance(age)', 'stddev(age)', 'quantile(income, 0.5)', 'quantile(income, 0.9)'];
    const bins = ['histogram(age, [0, 30))', 'histogram(age, [30, 60))', 'histogram(age, [60, 100])'];
    expect(rows.map(([group, statistic]) => `${group} ${statistic}`)).toEqual(REGIONS.flatMap((r) => [...names, ...bins].map((s) => `${r} ${s}`)));
    for (const [group, statistic, value, sd, low, high] of rows as [string, string, number, number, number, number][]) {
      const t = truth(group);
      const mean = t.ageSum / t.count;
      const variance = t.ageSquares / t.count - mean * mean;
      const quantile = statistic.match(/^quantile\(income, ([\d.]+)\)$/);
      if (quantile) {
        expect(Math.abs(value - t.incomes[Math.floor(Number(quantile[1]) * t.count)]!), `${group} ${statistic}`).toBeLessThan(0.01 * INCOME_TOP);
        expect(low).toBeLessThanOrEqual(value);
        expect(high).toBeGreaterThanOrEqual(value);
        continue;
      }
      const bin = bins.indexOf(statistic);
      const exact: Record<string, number> = {
        count: t.count,
        units: t.count, // one row per person
        'sum(income)': t.incomeSum,
        'mean(age)': mean,
        'variance(age)': variance,
        'stddev(age)': Math.sqrt(variance),
      };
      const expected = bin >= 0 ? t.bins[bin]! : exact[statistic]!;
      expect(Math.abs(value - expected), `${group} ${statistic}`).toBeLessThan(6 * sd);
      expect(low).toBeLessThan(value);
      expect(high).toBeGreaterThan(value);
    }
    const at = (r: string, s: string) => rows.find(([g, name]) => g === r && name === s)![2] as number;
    // Counts and bins are whole numbers (integerCounts), and each region's bins add up to its count
    // (consistent) but for their rounding, at most 0.5 each (unfitted, they differ by about 27, the
    // sd of the noise of four figures of sd 13.3, summed).
    for (const r of REGIONS) {
      const counts = ['count', 'units', ...bins].map((s) => at(r, s));
      expect(counts.every(Number.isInteger), r).toBe(true);
      expect(Math.abs(bins.reduce((sum, s) => sum + at(r, s), 0) - at(r, 'count')), r).toBeLessThanOrEqual(2);
    }
    // North's people are 5 years older: the released means show it.
    expect(at('north', 'mean(age)') - at('south', 'mean(age)')).toBeGreaterThan(4);
    // A chart per statistic and column; one interval per group (and quantile level, and bin).
    expect(await page.locator('#charts svg').count()).toBe(8);
    expect(await page.locator('#charts [data-testid=interval]').count()).toBe(REGIONS.length * (names.length + bins.length));
    expect(await page.locator('[data-testid=unit]').textContent()).toMatch(/protects each person_id/);
    await screenshot(page, 'aggregate-page-1280.png'); // README's docs/images/aggregate-page.png

    // A phone: nothing wider than its 390 px, the tables and charts included.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const widest = await page.locator('table, svg, form').evaluateAll((all) => Math.max(...all.map((e) => e.getBoundingClientRect().right)));
    expect(widest).toBeLessThanOrEqual(390);
    await screenshot(page, 'aggregate-page-390.png');

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
    await page.close();
  }, 240_000);

  it('keeps a session budget across reloads, refuses a release beyond it before reading the file, and exports it as a budget file the command line charges', async () => {
    const { dir, path } = data();
    const page = await chromium.browser.newPage({ viewport: { width: 1000, height: 700 } });
    const { requests, errors } = record(page);
    await page.goto(`${chromium.origin}/demo/aggregate.html`);
    await page.fill('input[name=budgetEpsilon]', '1.5');
    await page.fill('input[name=budgetDelta]', '1e-5');
    await pick(page, path);
    await page.check('input[name=count]');
    await page.fill('input[name=epsilon]', '1');
    await page.fill('input[name=delta]', '1e-6');
    const budget = page.locator('[data-testid=budget]');

    // Bad input is refused by the plan, and the refusal changes nothing: no budget is recorded.
    await addStatistic(page, 'histogram', 'age', undefined, '60, 30');
    await expect(page.locator('[data-testid=cost]').textContent()).resolves.toMatch(/^No plan: dpnoise: `histogram\.age\.bins` must increase/);
    await page.click('#release');
    await page.waitForFunction(() => document.querySelector('[data-testid=status]')?.textContent?.startsWith('Not released'));
    expect(await page.locator('[data-testid=status]').textContent()).toMatch(/^Not released: dpnoise: `histogram\.age\.bins` must increase/);
    await expect(budget.textContent()).resolves.toBe('No release yet: the budget is epsilon 1.5 at delta 1e-5.');
    await page.click('#statistics .remove');

    await page.click('#release');
    await statusEnding(page, 'done');
    await expect(budget.textContent()).resolves.toMatch(/^1 release: spent epsilon (1|0\.9999\d*) of 1\.5 at delta 1e-5; 0\.5\d* left\.$/);

    // Kept across a reload: the same record, and the budget's fields fixed.
    await page.reload();
    await expect(budget.textContent()).resolves.toMatch(/^1 release: spent epsilon (1|0\.9999\d*) of 1\.5 at delta 1e-5; 0\.5\d* left\.$/);
    expect(await page.locator('input[name=budgetEpsilon]').isDisabled()).toBe(true);
    const reloadedAt = requests.length;

    // A second release of epsilon 1 would spend 2 of 1.5: the plan says so, and the release is
    // refused with the ledger's (and the command line's) message, the file never handed to the
    // worker (DuckDB-Wasm, started on the first release of a page, is never fetched).
    await pick(page, path);
    await page.check('input[name=count]');
    await page.fill('input[name=epsilon]', '1');
    await page.fill('input[name=delta]', '1e-6');
    await expect(page.locator('[data-testid=cost]').textContent()).resolves.toMatch(/beyond the session budget/);
    await page.click('#release');
    const refused = await statusEnding(page, 'nothing was spent.');
    expect(refused).toMatch(
      /^Not released: dpnoise: this release would exceed the budget: with it the releases spend epsilon [\d.]+ at delta 0\.00001, above 1\.5/,
    );
    const duckdb = (from: number, to?: number) => requests.slice(from, to).filter((r) => /duckdb-(eh|mvp)\.wasm$/.test(r.url())).length;
    expect(duckdb(0, reloadedAt)).toBe(1); // the first release's: the check has power
    expect(duckdb(reloadedAt)).toBe(0);
    expect(await page.locator('#result tbody tr').count()).toBe(0);
    await expect(budget.textContent()).resolves.toMatch(/^1 release: /);

    // The export is the record, written as the command line writes a budget file.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-budget')]);
    const file = join(dir, 'session-budget.json');
    await download.saveAs(file);
    const text = readFileSync(file, 'utf8');
    expect(restoreBudget(JSON.parse(text)).releases).toBe(1);
    expect(text).toBe(`${JSON.stringify(restoreBudget(JSON.parse(text)))}\n`);
    expect(errors).toEqual([]);
    await page.close();

    // The command line reads it, refuses the same release with the same words, and charges one within it.
    const dpnoise = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
    expect(dpnoise('budget', '--show', file).stdout).toMatch(/^1 releases; spent epsilon (1|0\.9999\d*) of 1\.5 at delta 0\.00001; 0\.5\d* left\./);
    const release = (epsilon: string) =>
      dpnoise(
        'aggregate',
        ...['--input', path, '--group-by', 'region', '--groups', REGIONS.join(','), '--privacy-unit', 'person_id', '--max-groups', '1'],
        ...['--count', '--invalid', 'drop', '--epsilon', epsilon, '--delta', '1e-6', '--budget', file, '--format', 'json'],
      );
    const beyond = release('1');
    expect(beyond.status).not.toBe(0);
    expect(beyond.stderr).toContain(refused.replace(/^Not released: /, ''));
    expect(release('0.4').status).toBe(0);
    expect(dpnoise('budget', '--show', file).stdout).toMatch(/^2 releases; spent epsilon (1\.4|1\.39\d*) of 1\.5/);
  }, 240_000);
  it('charges the session budget of two tabs releasing at once one after the other: the second sees the first and is refused', async () => {
    const { path } = data();
    const context = await chromium.browser.newContext({ viewport: { width: 1000, height: 700 } });
    const tabs = [await context.newPage(), await context.newPage()];
    for (const tab of tabs) {
      await tab.goto(`${chromium.origin}/demo/aggregate.html`);
      await tab.fill('input[name=budgetEpsilon]', '1.5');
      await pick(tab, path);
      await tab.fill('input[name=epsilon]', '1');
    }
    // Each release alone fits (1 of 1.5); both do not (2): exactly one is released. Both tabs
    // click at one message, so that their charges overlap.
    for (const tab of tabs)
      await tab.evaluate(() => {
        new BroadcastChannel('test-go').onmessage = () => document.getElementById('release')!.click();
      });
    await tabs[0]!.evaluate(() => new BroadcastChannel('test-go').postMessage('go')); // to both tabs' listeners
    const ends = await Promise.all(
      tabs.map((tab) =>
        tab
          .waitForFunction(() => /(done|nothing was spent\.)$/.test(document.querySelector('[data-testid=status]')?.textContent ?? ''), undefined, {
            timeout: 120_000,
          })
          .then(() => tab.locator('[data-testid=status]').textContent()),
      ),
    );
    expect(ends.filter((e) => e!.endsWith('done'))).toHaveLength(1);
    expect(ends.filter((e) => e!.includes('would exceed the budget'))).toHaveLength(1);
    // Each tab shows the one release recorded (the other tab's, for the refused one).
    for (const tab of tabs) await tab.waitForFunction(() => document.querySelector('[data-testid=budget]')?.textContent?.startsWith('1 release: '));
    await context.close();
  }, 240_000);
});
