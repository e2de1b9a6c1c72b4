import { describe, expect, it } from 'vitest';
import { readSpec } from '../../src/aggregate/spec.js';

const base = { table: [], groupBy: 'region', groups: ['north', 'south'], count: true };

describe('readSpec', () => {
  it('reads a full spec, with defaults that are said', () => {
    const spec = readSpec({
      ...base,
      privacyUnit: 'id',
      sum: { income: [0, 500000] },
      mean: { age: [0, 100] },
      quantile: { income: { bounds: [0, 500000], q: 0.5 } },
      histogram: { age: { bins: [0, 18, 65, 100] } },
    });
    expect(spec.maxGroups).toBe(2);
    expect(spec.maxRows).toBe(1);
    expect(spec.weights).toBe('range');
    expect(spec.invalid).toBe('error');
    expect(spec.level).toBe(0.95);
    expect(spec.quantile[0]!.q).toEqual([0.5]);
    expect(readSpec({ table: [], count: true }).groups).toEqual(['all']);
    // Without a privacy unit, each row is its own unit: one row in one group, however many groups.
    expect(readSpec(base)).toMatchObject({ maxGroups: 1, maxRows: 1 });
  });

  it.each([
    [{ ...base, sum: { age: [100, 0] } }, RangeError, /lower < upper/],
    [{ ...base, mean: { age: [0, 1e-300] } }, RangeError, /`mean.age` must be bounds at least 1e-100 apart; got \[0, 1e-300\]/],
    [{ ...base, quantile: { age: { bounds: [0, 1e-110], q: 0.5 } } }, RangeError, /`quantile.age.bounds` must be bounds at least 1e-100 apart/],
    [{ ...base, groups: ['a\u0000'] }, TypeError, /groups\[0\]` must be a finite number or a string \(without NUL/],
    [{ ...base, groups: ['\ud800'] }, TypeError, /groups\[0\]/],
    [{ ...base, sum: { age: [0, Number.NaN] } }, RangeError, /sum.age\[1\]/],
    [{ ...base, mean: { age: [0, Infinity] } }, RangeError, /mean.age\[1\]/],
    [{ ...base, sum: { age: 100 } }, TypeError, /bounds \[lower, upper\]/],
    [{ ...base, sum: {} }, TypeError, /at least one column/],
    [{ ...base, groups: undefined, privacyUnit: 'id' }, TypeError, /`maxGroups` must bound/],
    [{ ...base, groups: ['a', 'a'] }, RangeError, /twice/],
    [{ ...base, groups: [null] }, TypeError, /groups\[0\]/],
    [{ table: [], groups: ['a'], count: true }, TypeError, /needs `groupBy`/],
    [{ ...base, count: false }, TypeError, /at least one statistic/],
    [{ ...base, maxRows: 2 }, TypeError, /give `privacyUnit`/],
    [{ ...base, privacyUnit: 'id', maxRows: 0 }, RangeError, /maxRows/],
    [{ ...base, privacyUnit: 'id', maxGroups: 1.5 }, RangeError, /integer/],
    [{ ...base, quantile: { x: { bounds: [0, 1], q: 1 } } }, RangeError, /q\[0\]/],
    [{ ...base, histogram: { x: { bins: [0, 5, 5] } } }, RangeError, /must increase/],
    [{ ...base, weights: 'optimal' }, RangeError, /weights/],
    [{ ...base, invalid: 'zero' }, RangeError, /invalid/],
    [{ ...base, privacyUnit: '' }, TypeError, /column name/],
    [{ ...base, table: 42 }, TypeError, /`table`/],
    [{ ...base, colour: 'red' }, TypeError, /unknown option `colour`/],
    [{ ...base, onProgress: 'bar' }, TypeError, /onProgress/],
  ])('refuses bad input %#', (options, ErrorType, message) => {
    expect(() => readSpec(options)).toThrow(ErrorType);
    expect(() => readSpec(options)).toThrow(message);
  });

  it('reads only own properties, each once', () => {
    const polluted = Object.create({ sum: { age: [0, 100] } });
    Object.assign(polluted, base);
    expect(readSpec(polluted).sum).toEqual([]);
    let reads = 0;
    const tricky = {
      ...base,
      get maxRows() {
        reads++;
        return reads === 1 ? 1 : 1000;
      },
      privacyUnit: 'id',
    };
    expect(readSpec(tricky).maxRows).toBe(1);
    expect(reads).toBe(1);
  });
});
