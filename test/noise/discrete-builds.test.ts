// The discrete samplers where the build loaded does not matter, run once (vitest.config.ts, ONCE):
// the SIMD build against the scalar one, both instantiated here (test/helpers.ts's `builds`), and
// the exact path's law. Forced through the exact path (setExactOnly), both builds take the same
// scalar loop (assembly/noise/discrete.ts: `!ASC_FEATURE_SIMD || exactOnly`) and every draw is
// src/noise/discrete-exact.ts's, in JavaScript: the two builds give the same draws, as the first
// test below shows. The rest of the samplers' tests, per build, are in discrete.test.ts.
import { describe, expect, it } from 'vitest';
import type { WasmExports } from '../../src/wasm/loader.js';
import { builds } from '../helpers.js';
import { chunk, type DiscreteKernel, expectLaw, gaussianCdf, laplaceCdf, seededDraws } from './discrete-laws.js';

/**
 * n draws of `kernel` on `module` from a seeded stream, a chunk at a time: `prepare(start, m)` fills
 * the chunk's buffers and returns the call's flags and scale.
 */
function seededChunks(
  module: WasmExports,
  kernel: DiscreteKernel,
  n: number,
  seed: bigint,
  grid: number,
  prepare: (start: number, m: number) => [number, number],
): Float64Array {
  new BigUint64Array(module.memory.buffer, module.streamPointer(), 2).set([seed, 0x9e3779b97f4a7c15n]);
  module.useSeededExtras();
  const out = new Float64Array(n);
  for (let start = 0; start < n; start += chunk) {
    const m = Math.min(chunk, n - start);
    module.seededWords(start, m);
    const [flags, scale] = prepare(start, m);
    module[kernel](start, m, flags, scale, grid, module.valuesPointer(), module.valuesPointer(), module.scalesPointer());
    out.set(new Float64Array(module.memory.buffer, module.valuesPointer(), m), start);
  }
  return out;
}

describe('the exact path, and the SIMD build against the scalar one', () => {
  const EXACT = [
    ['discreteLaplaceSamples', 1, laplaceCdf],
    ['discreteLaplaceSamples', 40.5, laplaceCdf],
    ['discreteGaussianSamples', 2, gaussianCdf],
  ] as const;

  it.each(EXACT)('%s at %d: forced through the exact path, both builds give the same draws', (kernel, scale) => {
    const [scalar, simd] = builds.map(([, module]) => seededDraws(kernel, scale, 3000, { seed: 5n, exact: true }, module));
    expect(scalar!.filter((y) => y !== 0).length, 'noise was drawn').toBeGreaterThan(1000);
    expect(Array.from(simd!)).toEqual(Array.from(scalar!));
  });

  it.each(EXACT)('%s at %d: forced through the exact path, chi-square on 60000 draws with power', (kernel, scale, cdfAt) => {
    expectLaw(seededDraws(kernel, scale, 60_000, { seed: 5n, exact: true }), cdfAt, scale, `exact ${kernel} ${scale}`);
  });

  // The SIMD build decides most trials two at a time (assembly/noise/discrete-lanes.ts), keeps
  // the words of those it cannot decide and draws them one by one, and (Gaussian) takes the
  // trials after a rejection in rounds; the scalar build draws every coordinate one by one. Per
  // coordinate scales of every size (0, below 32 where B = 1, up to 2^40; Gaussian variances on
  // both sides of the cells' range, 64 and 2^88), values rounded to the grid, odd chunk lengths:
  // the same words must give the same outputs, to the bit.
  it.each([
    ['discreteLaplaceSamples', [0, 0.3, 2.5, 31.9, 32, 40.5, 1000.5, 3e5, 2 ** 40]],
    ['discreteGaussianSamples', [0, 0.3, 2, 63.9, 64, 1000, 1024, 1e6 + 0.5, 4.2e10, 2 ** 79, 2 ** 88 * 0.99, 2 ** 88]],
  ] as const)("%s, per coordinate: the SIMD build (two at a time, in rounds) gives the scalar build's draws", (kernel, scales) => {
    const n = 20_001; // chunks of 8192, 8192 and 3617
    const draw = (module: WasmExports) =>
      seededChunks(module, kernel, n, 31n, 0.125, (start, m) => {
        const perScale = new Float64Array(module.memory.buffer, module.scalesPointer(), m);
        const values = new Float64Array(module.memory.buffer, module.valuesPointer(), m);
        for (let j = 0; j < m; j++) {
          perScale[j] = scales[(start + j) % scales.length]!;
          values[j] = ((start + j) % 97) * 0.37 - 11.3;
        }
        return [module.flagPerCoordinate() | module.flagAdd(), 0];
      });
    const [scalar, simd] = builds.map(([, module]) => draw(module));
    const onGrid = (i: number) => Math.floor(((i % 97) * 0.37 - 11.3) / 0.125 + 0.5) * 0.125;
    expect(scalar!.filter((y, i) => y !== onGrid(i)).length).toBeGreaterThan(n / 2); // noise was drawn
    expect(Array.from(simd!)).toEqual(Array.from(scalar!));
  });

  // The same with one scale for every coordinate, overwriting (no query): the lanes take that
  // scale's parameters once, outside their loops.
  it.each([
    ['discreteLaplaceSamples', [2.5, 31.9, 1000.5, 2 ** 40]],
    ['discreteGaussianSamples', [2, 1000, 4.2e10, 2 ** 70, 2 ** 79]],
  ] as const)("%s, one scale: the SIMD build gives the scalar build's draws", (kernel, scales) => {
    const n = 10_001;
    for (const scale of scales) {
      const draw = (module: WasmExports) => seededChunks(module, kernel, n, 37n, 0.5, () => [0, scale]);
      const [scalar, simd] = builds.map(([, module]) => draw(module));
      expect(scalar!.filter((y) => y !== 0).length, `${kernel} at ${scale}: noise was drawn`).toBeGreaterThan(n / 2);
      expect(Array.from(simd!), `${kernel} at ${scale}`).toEqual(Array.from(scalar!));
    }
  });
});
