// CommonJS: require('dpnoise') loads dist/index.cjs, require('dpnoise/aggregate')
// dist/aggregate/index.cjs and require('dpnoise/tfjs') dist/tfjs/index.cjs (which alone loads its
// peer @tensorflow/tfjs), each its entry's part of one bundle built next to the ES modules
// (dist/commonjs.cjs), so they work where Node cannot require ES modules (before 20.19). Tested on the oldest Node that
// `engines` allows, 20.0.0 (its binary: see runtime.ts): require() and import both give Node's
// numbers under one seed, and parallel sampling (whose worker, dist/noise/worker.js, the bundle
// finds through the ES build's URL). The bundle's types are checked as a CommonJS project sees them.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { built } from '../built.js';
import { binary, expected, NODE20, output, run } from './runtime.js';

describe('CommonJS', () => {
  it('require() on Node 20.0.0 gives the same seeded noise as Node, in one thread and in two', () => {
    expect(run(binary(NODE20), ['test/runtimes/run.cjs'])).toEqual(expected());
  });

  it('import on Node 20.0.0 does too', () => {
    expect(run(binary(NODE20), ['test/runtimes/run.mjs'])).toEqual(expected());
  });

  it('a generator from the CommonJS build, given to the ES build, is refused with the reason: the two hold separate states', () => {
    const commonjs = createRequire(import.meta.url)('../../dist/index.cjs') as typeof built;
    expect(() => built.gaussianNoise(3, 1, { rng: commonjs.createRng({ seed: 1 }) })).toThrow(
      /`rng` was made by createRng\(\) of another copy of dpnoise \(for example the CommonJS build, require\('dpnoise'\), while this is the ES module build, or the reverse\): the two hold separate states/,
    );
    expect(() => commonjs.gaussianNoise(3, 1, { rng: built.createRng({ seed: 1 }) })).toThrow(/another copy of dpnoise/);
  });

  it('each entry exports through require() the names it does through import, and the two share one state', async () => {
    const load = createRequire(import.meta.url);
    const index = load('../../dist/index.cjs') as typeof built;
    const tables = load('../../dist/aggregate/index.cjs') as typeof import('../../src/aggregate/index.js');
    const names = (entry: object) => Object.keys(entry).sort();
    expect(names(index)).toEqual(names(built));
    expect(names(tables)).toEqual(names(await import(new URL('../../dist/aggregate/index.js', import.meta.url).href)));
    // A budget and a generator of require('dpnoise') serve require('dpnoise/aggregate').
    const budget = index.createBudget({ epsilon: 1 });
    await tables.aggregate({ epsilon: 1, budget, table: [{ x: 1 }], count: true, rng: index.createRng({ seed: 1 }) });
    expect(budget.spent.epsilon).toBeGreaterThan(0);
  });

  it("require('dpnoise/tfjs') exports what import does, shares the state, and require('dpnoise') does not load @tensorflow/tfjs", async () => {
    const load = createRequire(import.meta.url);
    const tensorflow = () => Object.keys(load.cache).some((path) => path.includes('@tensorflow'));
    load('../../dist/index.cjs');
    expect(tensorflow()).toBe(false);
    const training = load('../../dist/tfjs/index.cjs') as typeof import('../../src/tfjs/index.js');
    expect(tensorflow()).toBe(true);
    expect(Object.keys(training).sort()).toEqual(Object.keys(await import(new URL('../../dist/tfjs/index.js', import.meta.url).href)).sort());
    // A budget of require('dpnoise') is one require('dpnoise/tfjs') takes.
    const index = load('../../dist/index.cjs') as typeof built;
    const tf = load('@tensorflow/tfjs') as typeof import('@tensorflow/tfjs');
    const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [2], units: 1 })] });
    const options = { loss: 'meanSquaredError', optimizer: tf.train.sgd(0.1), epsilon: 1, delta: 1e-5, steps: 1, sampleRate: 0.5, clipNorms: [1] } as const;
    expect(() => training.privateTraining(model, { ...options, budget: index.createBudget({ epsilon: 1, delta: 1e-5 }) })).not.toThrow();
  });

  it('types resolve for require() under `module: node16`', () => {
    output(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'test/consumer/tsconfig.commonjs.json']);
  });
});
