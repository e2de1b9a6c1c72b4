// No call hangs, over the full grid of extremes (test/hangs.ts); `npm test` runs a corner of it
// (fuzz.test.ts). Run once, in the SIMD build: every loop it times is the same code in both.
import { describe, expect, it } from 'vitest';
import { hangCases, slowOrWrong } from './hangs.js';

describe('no call hangs: every search at the extremes of its accepted range ends, with a finite safe figure or a clear error', () => {
  // Each group takes 1 to 3 minutes here: the limit is per call (LIMIT_MS), not per group.
  it.each(hangCases('full'))(
    '%s',
    (_, calls) => {
      expect(slowOrWrong(calls)).toEqual({ slow: [], wrong: [] });
    },
    600_000,
  );
});
