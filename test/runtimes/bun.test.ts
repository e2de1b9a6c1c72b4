// Bun (its binary: see runtime.ts) runs a script that imports the built package by name: under
// one seed it gives exactly Node's numbers, and two worker threads draw the single-thread noise.
import { describe, expect, it } from 'vitest';
import { BUN, binary, expected, run } from './runtime.js';

describe('Bun', () => {
  it('draws the same seeded noise as Node, in one thread and in two', () => {
    expect(run(binary(BUN), ['test/runtimes/run.mjs'])).toEqual(expected());
  });
});
