// Deno (its binary: see runtime.ts) runs a script that imports the built package by name: under
// one seed it gives exactly Node's numbers, and two worker threads draw the single-thread noise.
// It may read dist/ only (the sampling workers' module), and writes no lock file.
import { describe, expect, it } from 'vitest';
import { binary, DENO, expected, run } from './runtime.js';

describe('Deno', () => {
  it('draws the same seeded noise as Node, in one thread and in two', () => {
    expect(run(binary(DENO), ['run', '--no-lock', '--no-prompt', '--allow-read=dist', 'test/runtimes/run.mjs'])).toEqual(expected());
  });
});
