import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { calibrateGaussian, calibrateLaplace, init } from '../../src/index.js';
import { embeddedBytes } from '../../src/wasm/embedded-init.js';
import { instantiateSync, wasm } from '../../src/wasm/loader.js';
import { builds, lcg } from '../helpers.js';

describe('the WebAssembly module', () => {
  it('imports only the pool refill and the exact path, and exports its memory', () => {
    for (const simd of [false, true]) {
      const module = new WebAssembly.Module(embeddedBytes(simd));
      const imports = WebAssembly.Module.imports(module).sort((a, b) => a.name.localeCompare(b.name));
      expect(imports).toEqual([
        { module: 'env', name: 'exactDraw', kind: 'function' },
        { module: 'env', name: 'refillPool', kind: 'function' },
      ]);
      expect(WebAssembly.Module.exports(module).map((e) => e.name)).toContain('memory');
    }
  });

  it('exports exactly what src/wasm/exports.ts declares, with the same parameter counts, in both builds', () => {
    // `name(a: number, b: boolean): type;` lines of the WasmExports interface, and its memory.
    const declared = [...readFileSync(new URL('../../src/wasm/exports.ts', import.meta.url), 'utf8').matchAll(/^ {2}(?:readonly )?(\w+)(\(([^)]*)\))?:/gm)]
      .map((m) => [m[1]!, m[2] === undefined ? 'memory' : m[3]!.split(',').filter((p) => p.trim() !== '').length] as const) // (a trailing comma of a long list is no parameter)
      .sort(([a], [b]) => a.localeCompare(b));
    expect(declared.length).toBeGreaterThan(30);
    for (const simd of [false, true]) {
      const instance = new WebAssembly.Instance(new WebAssembly.Module(embeddedBytes(simd)), { env: { refillPool() {}, exactDraw: () => 0 } });
      const actual = Object.entries(instance.exports)
        .map(([name, value]) => [name, value instanceof WebAssembly.Memory ? 'memory' : (value as (...args: never[]) => unknown).length] as const)
        .sort(([a], [b]) => a.localeCompare(b));
      expect(actual, simd ? 'SIMD build' : 'scalar build').toEqual(declared);
    }
  });

  it('embedded.d.ts, committed for type-checking before a build, declares what the build generates', async () => {
    const declared = [...readFileSync(new URL('../../src/wasm/embedded.d.ts', import.meta.url), 'utf8').matchAll(/export declare const (\w+): string;/g)].map(
      (m) => m[1],
    );
    const generated = await import('../../src/wasm/embedded.js');
    expect(Object.keys(generated).sort()).toEqual(declared.sort());
    for (const name of declared) expect(typeof (generated as Record<string, unknown>)[name!]).toBe('string');
  });

  it('picks the SIMD build where the engine supports it, the scalar one on request', async () => {
    expect(instantiateSync(embeddedBytes(true)).hasSimd()).toBe(1);
    expect(instantiateSync(embeddedBytes(false)).hasSimd()).toBe(0);
    expect(WebAssembly.validate(embeddedBytes(true))).toBe(true);
    await init();
    expect(wasm().hasSimd()).toBe(1);
    await init({ simd: false });
    expect(wasm().hasSimd()).toBe(0);
    await init();
  });

  it('the scalar and SIMD allocation kernels agree bit for bit, at every chunk length', () => {
    const [[, scalar], [, simd]] = builds as [readonly [string, (typeof builds)[0][1]], readonly [string, (typeof builds)[0][1]]];
    for (const n of [1, 2, 3, 17, scalar.chunkLength()]) {
      for (const [alpha, gamma, weighted] of [
        [0.5, 0, false],
        [1, 0, false],
        [1 / 3, 0, false],
        [0.4, 0.2, true],
      ] as const) {
        const outputs = [scalar, simd].map((w) => {
          const profile = new Float64Array(w.memory.buffer, w.profilePointer(), n);
          const weights = new Float64Array(w.memory.buffer, w.weightsPointer(), n);
          for (let i = 0; i < n; i++) {
            profile[i] = (i % 7) * 0.37 + (i % 3 === 0 ? 0 : 1e-3);
            weights[i] = 1 + (i % 5);
          }
          w.profileMoments(n);
          const results = new Float64Array(w.memory.buffer, w.resultsPointer(), 2);
          const moments = Array.from(results);
          w.fillScales(n, weighted, alpha, gamma, 1.25);
          return { moments, scales: Array.from(profile) };
        });
        expect(outputs[1]!.scales).toEqual(outputs[0]!.scales);
        // Both builds add in the same order (two interleaved partial sums): the same bits.
        expect(outputs[1]!.moments).toEqual(outputs[0]!.moments);
      }
    }
  });

  it('both builds calibrate random profiles to the same bits, so seeded releases do not depend on the build', async () => {
    const calibrations = async (simd: boolean) => {
      await init({ simd });
      const random = lcg(2026); // the same profiles for both builds
      const out: number[][] = [];
      for (let trial = 0; trial < 60; trial++) {
        const K = 1 + Math.floor(random() * 40_000);
        const sensitivity = Float64Array.from({ length: K }, () => (random() < 0.1 ? 0 : 10 ** (random() * 6 - 3)));
        const allocation = (['optimal', 'iid', 'spr'] as const)[trial % 3];
        out.push(Array.from(calibrateGaussian({ sensitivity, epsilon: 0.5 + trial, delta: 1e-6, allocation }).scales.subarray(0, 50)));
        out.push(Array.from(calibrateLaplace({ sensitivity, epsilon: 0.5 + trial, allocation }).scales.subarray(0, 50)));
      }
      return out;
    };
    const scalar = await calibrations(false);
    const simd = await calibrations(true);
    expect(simd).toEqual(scalar);
  });

  it('init() loads a given module, and the API uses it', async () => {
    const before = wasm();
    await init({ module: new WebAssembly.Module(embeddedBytes(false)) });
    const after = wasm();
    expect(after).not.toBe(before);
    expect(calibrateGaussian({ sensitivity: [1, 2], epsilon: 1, delta: 1e-5 }).scales.length).toBe(2);
    await init({ simd: true });
    expect(wasm().memory).toBeInstanceOf(WebAssembly.Memory);
  });

  it('instantiates synchronously from bytes or a module', () => {
    const bytes = embeddedBytes();
    expect(instantiateSync(bytes).gaussianMu(0.5, 1e-6)).toBe(instantiateSync(new WebAssembly.Module(bytes)).gaussianMu(0.5, 1e-6));
  });
});

describe('AssemblyScript constants', () => {
  // Every `reinterpret<f64>(0x...); // decimal` must be the double nearest to its decimal comment.
  const dir = new URL('../../assembly/', import.meta.url);
  const constants = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(new URL(file, dir), 'utf8').matchAll(/reinterpret<f64>\((0x[0-9A-Fa-f]{16})\);\s*\/\/\s*([-+0-9.eE]+)/g)].map(
        (m) => [file, m[1]!, m[2]!] as const,
      ),
    );

  it('are bit-exact with their decimal comments', () => {
    expect(constants.length).toBeGreaterThan(100);
    const bits = new DataView(new ArrayBuffer(8));
    for (const [file, hex, decimal] of constants) {
      bits.setFloat64(0, Number(decimal));
      expect(`0x${bits.getBigUint64(0).toString(16).toUpperCase().padStart(16, '0')}`, `${file}: ${decimal}`).toBe(hex.toUpperCase().replace('0X', '0x'));
    }
  });
});
