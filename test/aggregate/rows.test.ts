import { describe, expect, it } from 'vitest';
import { layoutOf } from '../../src/aggregate/layout.js';
import { planOf, readAggregateTarget, releaseVector } from '../../src/aggregate/plan.js';
import { readSpec } from '../../src/aggregate/spec.js';
import { expectWithheld, lcg } from '../helpers.js';
import { memoryRun } from './engine-cases.js';

const options = {
  table: [],
  privacyUnit: 'id',
  groupBy: 'g',
  groups: ['a', 'b', 'c'],
  count: true,
  sum: { x: [0, 10] },
  mean: { x: [0, 10] },
  quantile: { x: { bounds: [0, 10], q: 0.5 } },
  histogram: { x: { bins: [0, 2, 5, 10] } },
  diagnostics: true,
};

function people(n: number, seed: number) {
  const random = lcg(seed);
  return Array.from({ length: n }, (_, i) => ({ id: i, g: ['a', 'b', 'c'][i % 3], x: Math.floor(random() * 1400) / 100 - 2 }));
}

describe('rowTotals', () => {
  it('a row that is not an object is named by its position, never shown', async () => {
    const spec = readSpec({ ...options, privacyUnit: undefined });
    const layout = layoutOf(spec, false);
    await expectWithheld(
      () => memoryRun([{ g: 'a', x: 1 }, 'John Smith, 1961-04-12'], spec, layout),
      TypeError,
      ['`table[1]` must be a row object'],
      ['John', '1961'],
    );
    await expectWithheld(() => memoryRun([31415.92], spec, layout), TypeError, ['`table[0]`'], ['31415']);
  });

  it('clips each value to its bounds, and counts the clipped ones', () => {
    const spec = readSpec({ ...options, table: [], groups: ['a'], privacyUnit: undefined });
    const layout = layoutOf(spec, false);
    const rows = [
      { g: 'a', x: -5 },
      { g: 'a', x: 3 },
      { g: 'a', x: 25 },
    ];
    const { totals } = memoryRun(rows, spec, layout);
    const at = (kind: string, shift?: number) =>
      totals[layout.measures.findIndex((m) => m.kind === kind && (shift === undefined || (m as { shift: number }).shift === shift))]!;
    expect(at('count')[0]).toBe(3);
    expect(at('sum', 0)[0]).toBe(0 + 3 + 10);
    expect(at('sum', 5)[0]).toBe(-5 - 2 + 5);
    expect(Array.from(at('bins'))).toEqual([1, 1, 1]);
    expect(at('clipped')[0]).toBe(2);
    const leaves = at('leaves');
    expect(leaves[0]).toBe(1);
    expect(leaves[4095]).toBe(1);
  });

  it('gives the same totals in any row order (sums are exact integers of quanta)', () => {
    const spec = readSpec({ ...options, privacyUnit: undefined });
    const layout = layoutOf(spec, false);
    const rows = people(3000, 1).map((r) => ({ ...r, x: r.x * Math.PI }));
    const forward = memoryRun(rows, spec, layout).totals;
    const backward = memoryRun([...rows].reverse(), spec, layout).totals;
    expect(backward.map((t) => Array.from(t))).toEqual(forward.map((t) => Array.from(t)));
  });

  it('bounds contributions: a unit with 1000 rows moves each block by at most its sensitivity', () => {
    for (const [maxRows, maxGroups] of [
      [1, 1],
      [2, 3],
      [5, 2],
    ] as const) {
      const spec = readSpec({ ...options, maxRows, maxGroups });
      const plan = planOf(spec, readAggregateTarget({ epsilon: 1, delta: 1e-6 }));
      const base = people(300, 2);
      // The added unit puts its 1000 rows at the extremes of every column, in every group.
      const heavy = Array.from({ length: 1000 }, (_, i) => ({ id: 'heavy', g: ['a', 'b', 'c'][i % 3], x: i % 2 ? 1e9 : -1e9 }));
      const before = releaseVector(memoryRun(base, spec, plan.layout).totals, 3, plan);
      for (let trial = 0; trial < 5; trial++) {
        const after = releaseVector(memoryRun([...base, ...heavy], spec, plan.layout).totals, 3, plan);
        plan.layout.blocks.forEach((block, k) => {
          let groupsMoved = 0;
          for (let g = 0; g < 3; g++) {
            const from = g * plan.length + plan.offsets[k]!;
            let l2 = 0;
            for (let i = from; i < from + block.size; i++) l2 += (after[i]! - before[i]!) ** 2;
            // Within a group, each block moves by at most its sensitivity.
            expect(Math.sqrt(l2), `block ${k}, group ${g} (${maxRows} rows, ${maxGroups} groups)`).toBeLessThanOrEqual(plan.sensitivity[k]!);
            if (l2 > 0) groupsMoved++;
          }
          expect(groupsMoved).toBeLessThanOrEqual(maxGroups);
        });
        // The count moves by exactly maxRows in exactly maxGroups groups: the bound is reached.
        const counts = Array.from({ length: 3 }, (_, g) => after[g * plan.length]! - before[g * plan.length]!);
        expect(counts.reduce((a, b) => a + b, 0)).toBe(maxRows * maxGroups);
      }
    }
  });

  it('drops rows of undeclared or missing groups, and reads own properties only (a text number by the one rule)', () => {
    const spec = readSpec({ ...options, privacyUnit: undefined, invalid: 'drop' });
    const layout = layoutOf(spec, false);
    const inherited = Object.create({ x: 5, g: 'a' });
    const rows = [
      { g: 'a', x: 1 },
      { g: null, x: 1 },
      { g: 'z', x: 1 },
      { x: 1 },
      inherited,
      { g: 'a', x: ' 3e0 ' },
      { g: 'a', x: 'three' },
      { g: 'a', x: Number.NaN },
    ];
    const { totals } = memoryRun(rows, spec, layout);
    expect(totals[0]![0]).toBe(2);
    expect(totals[0]![1]! + totals[0]![2]!).toBe(0);
  });

  it("refuses (or with invalid: 'drop', drops) rows without a finite number or a unit", () => {
    const spec = readSpec({ ...options });
    const layout = layoutOf(spec, false);
    expect(() => memoryRun([{ id: 1, g: 'a', x: null }], spec, layout)).toThrow(/invalid: 'drop'/);
    expect(() => memoryRun([{ g: 'a', x: 1 }], spec, layout)).toThrow(/privacy unit/);
    expect(() => memoryRun([7], spec, layout)).toThrow(/table\[0\]/);
    const dropping = readSpec({ ...options, invalid: 'drop' });
    const dropped = memoryRun(
      [
        { id: 1, g: 'a', x: null },
        { g: 'a', x: 1 },
      ],
      dropping,
      layout,
    );
    expect(dropped.totals[0]![0]).toBe(0);
  });

  it("keys a unit by its text, as groups are keyed: 1, '1' and 1n are one person (maxRows 1 keeps one of their rows)", () => {
    const spec = readSpec({ ...options, groups: ['a'] });
    const rows = [
      { id: 1, g: 'a', x: 1 },
      { id: '1', g: 'a', x: 1 },
      { id: 1n, g: 'a', x: 1 },
      { id: '1.0', g: 'a', x: 1 }, // another text: another unit, as in a text column of any engine
    ];
    expect(memoryRun(rows, spec, layoutOf(spec, false)).totals[0]).toEqual(Float64Array.of(2));
  });

  it("matches declared groups by value when they are numbers (1.0 and '1' are the group 1), else by text", () => {
    const rows = [
      { g: 1, x: 1 },
      { g: '1.0', x: 1 },
      { g: ' 1 ', x: 1 },
      { g: 2n, x: 1 },
      { g: 'one', x: 1 },
    ];
    const byValue = readSpec({ ...options, privacyUnit: undefined, groups: [1, '2'] });
    expect(memoryRun(rows, byValue, layoutOf(byValue, false)).totals[0]).toEqual(Float64Array.of(3, 1));
    const byText = readSpec({ ...options, privacyUnit: undefined, groups: ['1', 'one'] });
    expect(memoryRun(rows, byText, layoutOf(byText, false)).totals[0]).toEqual(Float64Array.of(1, 1));
    expect(() => readSpec({ ...options, groups: [1, '1.0'] })).toThrow(/lists "1" and "1.0", one number/);
  });
});
