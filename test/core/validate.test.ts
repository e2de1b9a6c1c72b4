import { describe, expect, it } from 'vitest';
import { calibrateGaussian, calibrateLaplace, laplaceMechanism } from '../../src/index.js';
import { describe as describeValue } from '../../src/core/validate.js';

const good = { sensitivity: [1, 2, 3], epsilon: 1, delta: 1e-5 };

describe('bad input throws a TypeError or RangeError naming the argument and value', () => {
  const cases: Array<[string, Record<string, unknown>, typeof TypeError, RegExp]> = [
    ['epsilon NaN', { epsilon: NaN }, RangeError, /^dpnoise: `epsilon` must be a number >= 0 and <= 1000000; got NaN\.$/],
    ['epsilon Infinity', { epsilon: Infinity }, RangeError, /`epsilon` .* got Infinity\./],
    ['epsilon < 0', { epsilon: -0.5 }, RangeError, /`epsilon` .* got -0\.5\./],
    ['epsilon a string', { epsilon: '1' }, TypeError, /^dpnoise: `epsilon` must be a number; got "1"\.$/],
    ['delta 0', { delta: 0 }, RangeError, /`delta` must be a number >= 1e-300 and < 1; got 0\./],
    ['delta 1', { delta: 1 }, RangeError, /`delta` .* got 1\./],
    ['delta missing', { delta: undefined }, TypeError, /`delta` must be a number; got undefined\./],
    ['empty profile', { sensitivity: [] }, RangeError, /`sensitivity.length` must be at least 1; got 0\./],
    ['NaN entry', { sensitivity: [1, NaN] }, RangeError, /`sensitivity\[1\]` must be a finite number >= 0; got NaN\./],
    ['negative entry', { sensitivity: new Float64Array([1, -2]) }, RangeError, /`sensitivity\[1\]` .* got -2\./],
    ['infinite entry', { sensitivity: [Infinity] }, RangeError, /`sensitivity\[0\]` .* got Infinity\./],
    ['huge entry', { sensitivity: [1e200] }, RangeError, /`sensitivity\[0\]` must be 0 or between 2\^-400 and 2\^400/],
    ['non-numeric entry', { sensitivity: [1, '2'] }, TypeError, /`sensitivity\[1\]` must be a number; got "2"\./],
    ['non-numeric array', { sensitivity: new Int32Array(3) }, TypeError, /`sensitivity` must be a Float64Array or an array of numbers; got a Int32Array\./],
    ['profile a number', { sensitivity: 3 }, TypeError, /`sensitivity` .* got 3\./],
    ['weights too short', { weights: [1, 1] }, RangeError, /`weights.length` must be 3 \(one entry per coordinate\); got 2\./],
    ['zero weight', { weights: [1, 0, 1] }, RangeError, /`weights\[1\]` must be a finite number > 0; got 0\./],
    ['negative weight', { weights: [1, 1, -1] }, RangeError, /`weights\[2\]` .* got -1\./],
    ['errorPower 0', { errorPower: 0 }, RangeError, /`errorPower` must be a number > 0 and <= 100; got 0\./],
    ['errorPower negative', { errorPower: -2 }, RangeError, /`errorPower` .* got -2\./],
    ['unknown allocation', { allocation: 'uniform' }, RangeError, /`allocation` must be one of 'optimal', 'iid', 'spr'; got "uniform"\./],
    ['allocation not a string', { allocation: 1 }, TypeError, /`allocation` .* got 1\./],
    ['misspelt option', { epsilom: 1 }, TypeError, /unknown option `epsilom`/],
  ];

  it.each(cases)('%s', (_, change, ErrorType, message) => {
    const call = () => calibrateGaussian({ ...good, ...change } as never);
    expect(call).toThrow(ErrorType);
    expect(call).toThrow(message);
  });

  it('options that are not an object', () => {
    expect(() => calibrateGaussian(undefined as never)).toThrow(/^dpnoise: `options` must be an options object; got undefined\.$/);
    expect(() => calibrateLaplace([1, 2] as never)).toThrow(TypeError);
  });

  it('Laplace needs epsilon > 0, with or without delta (by the accountant), in calibrations and mechanisms alike', () => {
    expect(() => calibrateLaplace({ sensitivity: [1], epsilon: 0 })).toThrow(/`epsilon` must be a finite number > 0; got 0\./);
    expect(() => calibrateLaplace({ sensitivity: [1], epsilon: 0, delta: 1e-5 })).toThrow(/`epsilon` must be > 0 for Laplace noise; got 0\./);
    expect(() => laplaceMechanism({ sensitivity: [1], epsilon: 0, delta: 1e-5 })).toThrow(/`epsilon` must be > 0 for Laplace noise; got 0\./);
    expect(() => laplaceMechanism({ sensitivity: [1], epsilon: 1, delta: 1 })).toThrow(/`delta` must be/);
  });
});

describe('values in messages', () => {
  it.each([
    [-0, '-0'],
    [1e-7, '1e-7'],
    ['a"b', '"a\\"b"'],
    [10n, '10n'],
    [null, 'null'],
    [[1, 2], 'an array of length 2'],
    [new Uint8Array(2), 'a Uint8Array'],
    [{}, 'an object (Object)'],
    [() => 1, 'a function'],
  ])('%s is shown as %s', (value, shown) => {
    expect(describeValue(value)).toBe(shown);
  });
});
