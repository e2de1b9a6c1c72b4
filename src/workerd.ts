// The entry for runtimes that forbid compiling WebAssembly from bytes (Cloudflare workerd,
// Vercel edge): the runtime or its bundler imports the .wasm file as a compiled module, which
// init() then instantiates. Everything else is the default entry's.
import wasmModule from './dpnoise-simd.wasm';
import { type InitOptions, loadModule } from './wasm/loader.js';

export * from './api.js';
export type { InitOptions } from './wasm/loader.js';

/** Loads the module shipped next to this file (or `module`); call (and await) it once before first use. */
export function init(options: InitOptions = {}): Promise<void> {
  return loadModule(options.module ?? wasmModule);
}
