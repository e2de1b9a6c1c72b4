// The entry for runtimes that forbid compiling WebAssembly from bytes (Cloudflare workerd,
// Vercel edge): the runtime or its bundler imports the .wasm files as compiled modules, which
// init() then instantiates. Everything else is the default entry's.
import scalarModule from './dpnoise-scalar.wasm';
import simdModule from './dpnoise-simd.wasm';
import { type InitOptions, loadModule } from './wasm/loader.js';

export * from './api.js';
export type { InitOptions } from './wasm/loader.js';

/**
 * Loads the module shipped next to this file: the SIMD build (these runtimes support SIMD), or
 * the scalar build with `simd: false`; `module` overrides both. Call (and await) it once before first use.
 */
export function init(options: InitOptions = {}): Promise<void> {
  return loadModule(options.module ?? (options.simd === false ? scalarModule : simdModule));
}
