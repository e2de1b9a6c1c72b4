import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests of the built package, its runtimes and the repository, and of the engines' SQL (what a
 * database computes does not depend on the WebAssembly build): they run once, not per build.
 */
const ONCE = [
  'test/runtimes/**',
  'test/package.test.ts',
  'test/install.long.test.ts',
  'test/examples.test.ts',
  'test/readme.test.ts',
  'test/docs.test.ts',
  'test/cli/**',
  'test/generated.long.test.ts',
  'test/architecture.test.ts',
  // JavaScript that calls no WebAssembly, and the tests that compare the two builds themselves.
  'test/citations.test.ts',
  'test/core/arrays.test.ts',
  'test/accounting/dp-event.test.ts',
  'test/noise/correlated.test.ts',
  'test/noise/discrete-builds.test.ts',
  'test/aggregate/spec.test.ts',
  'test/wasm/loader.test.ts',
  'test/wasm/heap.test.ts',
  'test/noise/parallel.test.ts',
  'test/aggregate/boundary.test.ts',
  'test/aggregate/duckdb.test.ts',
  'test/aggregate/postgres.test.ts',
  'test/aggregate/clickhouse.test.ts',
  'test/aggregate/parse.test.ts',
  'test/aggregate/quantiles.test.ts',
  'test/tfjs/**',
  'test/fuzz.long.test.ts',
  // Properties of the API and its loops (fuzz) and the aggregates' coverage over 2e4 groups: the
  // same code and the same noise law in both builds (the discrete samplers' laws and their
  // no-regression snapshot run per build).
  'test/fuzz.test.ts',
  'test/aggregate/aggregate.test.ts',
];

/**
 * The long tests (`npm run test:long`, which .ci/run runs after `npm test`): the full grids and
 * statistical power of checks whose shorter versions `npm test` runs, and the install of the packed
 * package with its peers from the registry (test/install.long.test.ts, 24 s; `npm test` checks the
 * packed files, test/package.test.ts).
 */
const LONG = 'test/**/*.long.test.ts';

/** One project per WebAssembly build (test/setup/build.ts loads it), for `npm test` or for the long tests. */
const project = (name: string, build: 'simd' | 'scalar', include: string, exclude: string[]) => ({
  extends: true,
  // vitest's own exclusions (node_modules: the runtime tests install copies of the package) stay.
  test: { name, include: [include], exclude: [...configDefaults.exclude, ...exclude], setupFiles: ['test/setup/build.ts'], env: { DPNOISE_TEST_BUILD: build } },
});

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // Every core: vitest's default leaves one for itself, which on a 2-core machine ran the files
    // one at a time (478 s for 435 s of tests).
    maxWorkers: availableParallelism(),
    projects: [
      project('simd', 'simd', 'test/**/*.test.ts', [LONG]),
      project('scalar', 'scalar', 'test/**/*.test.ts', [LONG, ...ONCE]),
      project('long-simd', 'simd', LONG, []),
      project('long-scalar', 'scalar', LONG, ONCE),
    ],
  },
});
