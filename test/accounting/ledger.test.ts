import { describe, expect, it } from 'vitest';
import { readEvent, writeEvent } from '../../src/accounting/event-json.js';
import type { Event } from '../../src/engine/events.js';
import { type BudgetJson, restoreBudgetWith } from '../../src/accounting/ledger.js';
import { aggregate } from '../../src/aggregate/index.js';
import { compose, createBudget, gaussianMechanism, gaussianPrivacy, laplaceMechanism, restoreBudget, signBudget } from '../../src/index.js';

const gaussian = (epsilon: number) => gaussianMechanism({ sensitivity: [1, 2], epsilon, delta: 1e-6 }).privacy;
const laplace = (epsilon: number) => laplaceMechanism({ sensitivity: [1], epsilon }).privacy;

describe('createBudget', () => {
  it('spends what compose spends, and refuses (recording nothing) a release beyond the budget', () => {
    const budget = createBudget({ epsilon: 2, delta: 1e-6 });
    budget.spend(gaussian(1));
    budget.spend(gaussian(1));
    // Two Gaussian releases at (1, 1e-6) compose to far less than epsilon 2 (not basic composition).
    const both = compose([gaussian(1), gaussian(1)]).epsilon(1e-6);
    expect(budget.spent.epsilon).toBeCloseTo(both, 3);
    expect(budget.spent.epsilon).toBeLessThan(1.5);
    expect(budget.releases).toBe(2);
    const before = budget.spent.epsilon;
    expect(() => budget.spend(gaussian(1.5))).toThrow(/would exceed the budget.*nothing was spent/);
    expect(budget.spent.epsilon).toBe(before);
    expect(budget.releases).toBe(2);
    expect(budget.canSpend(gaussian(0.5))).toBe(true);
    expect(budget.canSpend(gaussian(1.5))).toBe(false);
    expect(budget.remaining.epsilon).toBeCloseTo(2 - before, 12);
  });

  it('holds pure releases to pure epsilon, and refuses a Gaussian release under a pure budget', () => {
    const budget = createBudget({ epsilon: 1 });
    budget.spend(laplace(0.5));
    budget.spend(laplace(0.5));
    expect(budget.spent.epsilon).toBeLessThanOrEqual(1);
    expect(budget.spent.delta).toBeUndefined();
    expect(() => budget.spend(laplace(0.01))).toThrow(RangeError);
    expect(() => createBudget({ epsilon: 5 }).spend(gaussian(0.1))).toThrow(/exceed/);
  });

  it('takes only privacy objects dpnoise made, and budgets in the one budget shape', () => {
    const budget = createBudget({ epsilon: 1, delta: 1e-6 });
    const copy = { ...gaussian(0.5) };
    expect(() => budget.spend(copy as never)).toThrow(/made by dpnoise/);
    expect(() => budget.spend({ kind: 'pure', epsilonPure: 0 } as never)).toThrow(TypeError);
    expect(budget.releases).toBe(0);
    expect(() => createBudget({ epsilon: Number.NaN } as never)).toThrow(RangeError);
    expect(() => createBudget({ epsilon: 1, delta: 2 })).toThrow(RangeError);
    expect(() => createBudget({ mu: 1 } as never)).toThrow(/unknown option `mu`/);
    // Inherited options are never read.
    const polluted = Object.create({ delta: 0.5 }) as { epsilon: number };
    polluted.epsilon = 1;
    expect(createBudget(polluted).total.delta).toBeUndefined();
  });

  it('round-trips through JSON to the last digit, and refuses the same releases after', () => {
    const budget = createBudget({ epsilon: 3, delta: 1e-7 });
    budget.spend(gaussian(1));
    budget.spend(laplace(0.3));
    budget.spend(gaussianPrivacy({ scales: [3, 4], sensitivity: [1, 1] }));
    const restored = restoreBudget(JSON.parse(JSON.stringify(budget)));
    expect(restored.spent).toEqual(budget.spent);
    expect(restored.total).toEqual(budget.total);
    expect(restored.releases).toBe(3);
    const big = gaussian(2.5);
    expect(restored.canSpend(big)).toBe(budget.canSpend(big));
    expect(JSON.stringify(restored)).toBe(JSON.stringify(budget));
  });

  it('refuses a damaged record rather than reading it as less spending', () => {
    const budget = createBudget({ epsilon: 3, delta: 1e-7 });
    budget.spend(gaussian(1));
    const json = JSON.parse(JSON.stringify(budget));
    expect(() => restoreBudget({ ...json, format: 'other' })).toThrow(TypeError);
    expect(() => restoreBudget({ ...json, releases: [{ type: 'gaussian', mu: -1 }] })).toThrow(/json.releases\[0\].mu/);
    expect(() => restoreBudget({ ...json, releases: [{ type: 'gaussian', mu: null }] })).toThrow(TypeError);
    expect(() => restoreBudget({ ...json, releases: [{ type: 'gaussian', mu: 1, sensitivity: 0.1 }] })).toThrow(/sensitivity/);
    expect(() => restoreBudget({ ...json, releases: [{ type: 'mystery' }] })).toThrow(/type/);
    expect(() => restoreBudget({ ...json, releases: 'none' })).toThrow(TypeError);
  });

  it("reads its record as strictly as a DpEvent: every field in the range dpnoise writes, a close event's parts agreeing (the review's edits)", () => {
    const budget = createBudget({ epsilon: 5, delta: 1e-6 });
    budget.spend(gaussianMechanism({ epsilon: 2, delta: 1e-6, sensitivity: [1, 1] }).privacy); // grid mode: a 'close' event
    const json = JSON.parse(JSON.stringify(budget)) as BudgetJson;
    const release = json.releases[0]!;
    expect(release.type).toBe('close');
    expect(restoreBudget(json).spent.epsilon).toBeGreaterThan(1.9);
    const edited = (record: unknown) => () => restoreBudget({ ...json, releases: [record] } as never);
    const refused: Array<[string, unknown]> = [
      ['a Poisson rate of 0', { type: 'poisson', rate: 0, event: release }],
      ['a Poisson rate of 7', { type: 'poisson', rate: 7, event: release }],
      ['a close event of another Gaussian', { type: 'close', slack: 0, event: { type: 'gaussian', mu: 1e-9 }, fallback: release }],
      ['a close event with no slack', { ...release, slack: 0 }],
      ["a close event whose Gaussian is not its fallback's", { ...release, event: { type: 'gaussian', mu: 1e-9 } }],
      ['a discrete Gaussian of sensitivity 0.5', { type: 'discrete-gaussian', variance: 100, sensitivity: 0.5 }],
      ['allocation steps of 0.5', { type: 'allocation', steps: 0.5, event: release }],
      ['allocation steps of 1e300', { type: 'allocation', steps: 1e300, event: release }],
      ['a sample of 5 from a population of 0', { type: 'without-replacement', size: 5, population: 0, event: release }],
      ['a sample of 5 from a population of 3', { type: 'without-replacement', size: 5, population: 3, event: release }],
      ['a thresholded delta of 5', { type: 'thresholded', delta: 5, event: release }],
      ['a Gaussian of distance 0', { type: 'gaussian', mu: 0 }],
    ];
    for (const [what, record] of refused) expect(edited(record), what).toThrow(TypeError);
  });
});

describe('signBudget: a budget file that an analyst cannot edit without the key', () => {
  const key = 'the curator keeps this, not the analyst';
  const signed = () => {
    const budget = createBudget({ epsilon: 10, delta: 1e-6 });
    budget.spend(gaussianPrivacy({ scales: [1], sensitivity: [1] }));
    budget.spend(laplace(0.5));
    return JSON.parse(JSON.stringify(signBudget(budget, { key }))) as BudgetJson & Record<string, unknown>;
  };

  /** The JSON without its MAC, as the unsigned file would be. */
  const unsigned = ({ mac: _, ...rest }: BudgetJson) => rest as BudgetJson;

  it('restores with its key to the same spending, whatever the order of its keys', () => {
    const json = signed();
    expect(json.mac).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    const restored = restoreBudget(json, { key });
    expect(restored.releases).toBe(2);
    expect(restored.spent.epsilon).toBe(restoreBudget(unsigned(json)).spent.epsilon);
    const reordered = Object.fromEntries(Object.entries(json).reverse()) as unknown as BudgetJson;
    expect(restoreBudget(reordered, { key: new TextEncoder().encode(key) }).releases).toBe(2);
  });

  it('refuses every edit that the unsigned file accepts: a release deleted, a release weakened, the budget raised, the MAC dropped or another key', () => {
    const edits: Array<[string, (json: BudgetJson & Record<string, unknown>) => unknown]> = [
      ['a release deleted', (j) => ({ ...j, releases: j.releases.slice(1) })],
      ['a release weakened', (j) => ({ ...j, releases: [{ ...(j.releases[0] as object), mu: 1e-9 }, j.releases[1]] })],
      ['the budget raised', (j) => ({ ...j, epsilon: 50 })],
      ['the MAC of another budget', (j) => ({ ...j, mac: signBudget(createBudget({ epsilon: 10, delta: 1e-6 }), { key }).mac })],
      ['the MAC cut short', (j) => ({ ...j, mac: String(j.mac).slice(0, 20) })],
      ['no MAC', (j) => unsigned(j)],
    ];
    for (const [what, edit] of edits) {
      const json = edit(signed()) as BudgetJson;
      if (what !== 'no MAC' && what !== 'the MAC cut short') expect(() => restoreBudget(unsigned(json)), `${what}, unsigned`).not.toThrow();
      expect(() => restoreBudget(json, { key }), what).toThrow(/`json.mac` must be the MAC of the budget/);
    }
    expect(() => restoreBudget(signed(), { key: 'another key of 16 or more' })).toThrow(TypeError);
  });

  it('checks a signed file whenever it has a MAC: restoring it without the key is refused, never read as unsigned', () => {
    expect(() => restoreBudget(signed())).toThrow(/`options.key` must be given for a signed budget/);
  });

  it('takes keys of at least 16 bytes, and never shows a key in an error', () => {
    const budget = createBudget({ epsilon: 1 });
    for (const bad of ['short secret', new Uint8Array(15), 1234567890123456, undefined]) {
      let message = '';
      try {
        signBudget(budget, { key: bad as never });
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
        message = (error as Error).message;
      }
      expect(message).toMatch(/^dpnoise: `key` must be/);
      expect(message).not.toContain('short secret');
      expect(message).not.toContain('1234567890123456');
    }
    expect(() => signBudget({ toJSON: () => ({}) } as never, { key })).toThrow(/createBudget or restoreBudget/);
  });
});

describe('restoreBudgetWith (a budget file written as it is charged)', () => {
  const saved = () => JSON.parse(JSON.stringify(createBudget({ epsilon: 1 }))) as BudgetJson;

  it('hands onSpend the budget with the release before spend returns; a refused release calls nothing', () => {
    const written: BudgetJson[] = [];
    const budget = restoreBudgetWith(saved(), (json) => written.push(json));
    budget.spend(laplace(0.6));
    expect(written).toHaveLength(1);
    expect(written[0]).toEqual(budget.toJSON());
    expect(restoreBudget(written[0]!).spent.epsilon).toBe(budget.spent.epsilon);
    expect(() => budget.spend(laplace(0.6))).toThrow(/would exceed the budget.*nothing was spent/);
    expect(written).toHaveLength(1);
  });

  it('records nothing when onSpend throws (the charge could not be saved), so the release stops there', () => {
    const budget = restoreBudgetWith(saved(), () => {
      throw new Error('disk full');
    });
    expect(() => budget.spend(laplace(0.5))).toThrow('disk full');
    expect(budget.releases).toBe(0);
    expect(budget.spent.epsilon).toBe(0);
  });

  it('is a budget aggregate accepts, and aggregate calls onSpend before it reads any row', async () => {
    let reads = 0;
    const table = new Proxy([{ g: 0, x: 1 }], {
      get(target, key, receiver) {
        if (key !== 'length' && typeof key !== 'symbol') reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const readsAtCharge: number[] = [];
    const budget = restoreBudgetWith(saved(), () => readsAtCharge.push(reads));
    await aggregate({ epsilon: 0.5, budget, table, groupBy: 'g', groups: [0], count: true });
    expect(readsAtCharge).toEqual([0]);
    expect(reads).toBeGreaterThan(0);
  });
});

describe('event JSON', () => {
  it('keeps Infinity (no privacy) as Infinity, never 0, and every field of close events', () => {
    const event: Event = {
      type: 'composed',
      events: [
        [{ type: 'gaussian', mu: Infinity }, 2],
        [{ type: 'close', slack: 1e-120, event: { type: 'gaussian', mu: 0.25 }, fallback: { type: 'zcdp', rho: 0.03125 } }, 1],
        [{ type: 'poisson', rate: 0.01, event: { type: 'discrete-laplace', scale: 7, sensitivity: 3 } }, 5],
      ],
    };
    const json = JSON.parse(JSON.stringify(writeEvent(event)));
    expect(json.events[0][0].mu).toBe('Infinity');
    expect(readEvent(json, 'e')).toEqual(event);
  });
});
