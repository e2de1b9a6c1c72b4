// core/arrays.ts: caller arrays read through the typed-array intrinsics. Here the two questions
// a release asks of a query before reading it in place (mechanisms/release-options.ts): is its
// memory shared with other threads, and does `out` overlap it elsewhere than in place.
import { describe, expect, it } from 'vitest';
import { isShared, overlapsElsewhere } from '../../src/core/arrays.js';

describe('isShared', () => {
  it('is true for a SharedArrayBuffer, whatever the array claims of its buffer', () => {
    expect(isShared(new Float64Array(new SharedArrayBuffer(32)))).toBe(true);
    expect(isShared(new Float64Array(4))).toBe(false);
    class Disguised extends Float64Array {
      override get buffer(): ArrayBuffer {
        return new ArrayBuffer(8);
      }
    }
    expect(isShared(new Disguised(new SharedArrayBuffer(32) as unknown as ArrayBuffer))).toBe(true);
  });
});

describe('overlapsElsewhere', () => {
  const memory = new Float64Array(10);
  it('is true only for common memory at different starts', () => {
    expect(overlapsElsewhere(memory.subarray(0, 5), memory.subarray(4, 9))).toBe(true);
    expect(overlapsElsewhere(memory.subarray(4, 9), memory.subarray(0, 5))).toBe(true);
    expect(overlapsElsewhere(memory.subarray(0, 5), memory.subarray(1, 2))).toBe(true);
    expect(overlapsElsewhere(memory.subarray(0, 5), memory.subarray(0, 5))).toBe(false); // in place
    expect(overlapsElsewhere(memory.subarray(0, 5), memory.subarray(5, 10))).toBe(false); // adjacent
    expect(overlapsElsewhere(memory.subarray(0, 5), new Float64Array(5))).toBe(false);
  });
});
