// Loads the WebAssembly build a test project asks for (vitest.config.ts): the whole suite runs
// against the SIMD build and again against the scalar one, as the two can be loaded by users.
import { init } from '../../src/index.js';

await init({ simd: process.env.DPNOISE_TEST_BUILD !== 'scalar' });
