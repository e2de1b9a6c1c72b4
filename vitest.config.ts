import { defineConfig } from 'vitest/config';

/**
 * Tests of the built package, its runtimes and the repository, and of the engines' SQL (what a
 * database computes does not depend on the WebAssembly build): they run once, not per build.
 */
const ONCE = [
  'test/runtimes/**',
  'test/package.test.ts',
  'test/install.test.ts',
  'test/examples.test.ts',
  'test/readme.test.ts',
  'test/docs.test.ts',
  'test/cli/**',
  'test/generated.test.ts',
  'test/architecture.test.ts',
  'test/wasm/loader.test.ts',
  'test/noise/parallel.test.ts',
  'test/aggregate/boundary.test.ts',
  'test/aggregate/duckdb.test.ts',
  'test/aggregate/postgres.test.ts',
  'test/aggregate/clickhouse.test.ts',
  'test/aggregate/parse.test.ts',
  'test/aggregate/quantiles.test.ts',
  'test/tfjs/**',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'simd', include: ['test/**/*.test.ts'], setupFiles: ['test/setup/build.ts'], env: { DPNOISE_TEST_BUILD: 'simd' } } },
      {
        extends: true,
        test: { name: 'scalar', include: ['test/**/*.test.ts'], exclude: ONCE, setupFiles: ['test/setup/build.ts'], env: { DPNOISE_TEST_BUILD: 'scalar' } },
      },
    ],
  },
});
