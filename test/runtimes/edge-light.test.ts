// Vercel's edge runtime forbids compiling WebAssembly from bytes: bundled with esbuild under the
// `edge-light` condition, dpnoise must take the .wasm as an imported module. The bundle runs here
// with every way of compiling bytes disabled, and gives Node's numbers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { built as dpnoise } from '../built.js';
import { workload } from './workload.js';

const root = new URL('../..', import.meta.url).pathname;

describe('edge-light', () => {
  it('imports the .wasm as a module and never compiles wasm from bytes', async () => {
    const result = await esbuild.build({
      entryPoints: [join(root, 'test/runtimes/edge-entry.js')],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['edge-light'],
      write: false,
      absWorkingDir: root,
      logLevel: 'error',
      plugins: [
        {
          name: 'wasm-as-module', // what the edge runtime's bundler does with a .wasm import
          setup(build) {
            build.onResolve({ filter: /\.wasm$/ }, (args) => ({ path: join(args.resolveDir, args.path), namespace: 'wasm-module' }));
            build.onLoad({ filter: /.*/, namespace: 'wasm-module' }, (args) => ({
              contents: `export default globalThis.__wasmModules[${JSON.stringify(args.path.split('/').pop())}];`,
              loader: 'js',
            }));
          },
        },
      ],
    });
    const bundle = result.outputFiles[0]!.text;
    expect(bundle).not.toContain('AGFzbQEAAAA'); // no embedded build ("\0asm" in base64): useless where bytes cannot be compiled
    const expected = JSON.parse(JSON.stringify(workload(dpnoise))); // Node's numbers, before bytes are refused
    const g = globalThis as unknown as { __wasmModules: Record<string, WebAssembly.Module> };
    g.__wasmModules = { 'dpnoise-simd.wasm': new WebAssembly.Module(readFileSync(join(root, 'dist/dpnoise-simd.wasm'))) };
    const saved = { Module: WebAssembly.Module, compile: WebAssembly.compile, instantiate: WebAssembly.instantiate };
    const refuse = () => {
      throw new Error('compiled WebAssembly from bytes');
    };
    const W = WebAssembly as unknown as Record<string, unknown>;
    W.Module = new Proxy(saved.Module, { construct: refuse }); // instanceof still works
    W.compile = refuse;
    W.instantiate = (source: unknown, imports?: WebAssembly.Imports) => {
      if (!(source instanceof saved.Module)) refuse();
      return saved.instantiate(source as WebAssembly.Module, imports);
    };
    try {
      const edge = await import(`data:text/javascript;base64,${Buffer.from(bundle).toString('base64')}`);
      expect(await edge.run()).toEqual(expected);
    } finally {
      Object.assign(W, saved);
    }
  });
});
