// The suite's setup (build.ts) loads the build each test project names.
import { expect, it } from 'vitest';
import { wasm } from '../../src/wasm/loader.js';

it('runs on the build of its test project', () => {
  expect(process.env.DPNOISE_TEST_BUILD).toMatch(/^(simd|scalar)$/);
  expect(wasm().hasSimd()).toBe(process.env.DPNOISE_TEST_BUILD === 'simd' ? 1 : 0);
});
