import { describe, expect, it } from 'vitest';
import { calibrateGaussian, calibrateLaplace, laplaceMechanism } from '../../src/index.js';
import { describeKind, describe as describeValue, FINITE_ENTRIES, integerIn, numberIn, vector } from '../../src/core/validate.js';
import { expectWithheld } from '../helpers.js';

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

describe('private values in messages: their kind, never their content', () => {
  it.each([
    [NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [-Infinity, '-Infinity'],
    [3.5, 'a number (private, not shown)'],
    [-0, 'a number (private, not shown)'],
    ['SECRET-123', 'a string (private, not shown)'],
    [true, 'a boolean (private, not shown)'],
    [10n, 'a bigint (private, not shown)'],
    [null, 'null'],
    [undefined, 'undefined'],
    [[1, 2], 'an array'],
    [new Uint8Array(2), 'a Uint8Array'],
    [{ toString: () => 'SECRET' }, 'an object'],
    [() => 1, 'a function'],
  ])('%s is shown as %s', (value, shown) => {
    expect(describeKind(value)).toBe(shown);
  });

  it('vector of private data: a string entry, a finite number out of range and a whole value of the wrong type name the place only', async () => {
    const data = { private: true } as const;
    await expectWithheld(() => vector('query', [1, 'SECRET-123', 3], FINITE_ENTRIES, data), TypeError, ['`query[1]`', 'a string'], ['SECRET', '123']);
    const small = { min: -10, max: 10, basic: 'a finite number', range: 'a finite number of magnitude at most 10' };
    await expectWithheld(() => vector('query', [1, 31415.92], small, data), RangeError, ['`query[1]`', 'at most 10'], ['31415', '92']);
    await expectWithheld(() => vector('query', 'SECRET-123', FINITE_ENTRIES, data), TypeError, ['`query`'], ['SECRET', '123']);
    await expectWithheld(() => vector('query', [true], FINITE_ENTRIES, data), TypeError, ['`query[0]`'], ['true']);
    // NaN and the infinities are kinds: naming them says no more than the rule they break.
    expect(() => vector('query', [1, NaN], FINITE_ENTRIES, data)).toThrow(/^dpnoise: `query\[1\]` must be a finite number; got NaN\.$/);
    // Lengths are public.
    expect(() => vector('query', [1], FINITE_ENTRIES, { ...data, length: 2 })).toThrow(/`query.length` must be 2 \(one entry per coordinate\); got 1\./);
  });

  it('numberIn and integerIn of private data: a count of 3.5 or -7 is not shown', async () => {
    const counts = { min: 0, max: Number.MAX_SAFE_INTEGER };
    await expectWithheld(() => integerIn('count', 3.5, counts, { private: true }), RangeError, ['`count` must be an integer >= 0'], ['3.5', '35']);
    await expectWithheld(() => integerIn('count', -7, counts, { private: true }), RangeError, ['`count` must be an integer >= 0'], ['-7']);
    // One message for every number refused: it does not tell a fraction from a negative or too large count.
    const message = (x: number) => {
      try {
        integerIn('count', x, counts, { private: true });
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(new Set([3.5, -7, 1e300, NaN].map(message)).size).toBe(2); // NaN is named, as a kind
    expect(message(3.5)).toBe(message(-7));
    expect(message(3.5)).toBe(message(1e300));
    await expectWithheld(() => numberIn('count', 'SECRET-123', counts, { private: true }), TypeError, ['`count` must be a number'], ['SECRET', '123']);
    // Public arguments keep their value in the message.
    expect(() => integerIn('passes', 2.5, counts)).toThrow(/got 2\.5\./);
  });
});
