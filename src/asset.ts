// The `dpnoise/asset` entry: the public API, with an init() that loads the WebAssembly module from
// the .wasm files shipped next to this file, named in the form bundlers recognise
// (`new URL('./dpnoise-simd.wasm', import.meta.url)`: Vite, webpack 5 and Parcel emit each file as
// an asset; with esbuild, copy them next to the bundle). So a bundle carries no WebAssembly and a
// page downloads only the build it uses. init() is required before first use, in Node too.
import { type InitOptions, loadModule, usableSimd } from './wasm/loader.js';

export * from './api.js';
export type { InitOptions } from './wasm/loader.js';

/** Node's module, named through a variable so that bundlers for other platforms leave it alone. */
const FS = 'node:fs/promises';

/** The bytes at `url`: fetched, or read from disk for file: URLs (Node's fetch does not read files). */
async function read(url: URL): Promise<ArrayBuffer | Uint8Array<ArrayBuffer>> {
  if (url.protocol === 'file:') return new Uint8Array(await ((await import(FS)) as typeof import('node:fs/promises')).readFile(url));
  const response = await fetch(url);
  if (!response.ok) throw new Error(`dpnoise: could not load ${url.href} (HTTP ${response.status}); serve the package's .wasm files with your bundle.`);
  return response.arrayBuffer();
}

/**
 * Loads the WebAssembly module from its file; call (and await) it once before first use. The
 * SIMD build is used unless the engine rejects it or `simd` is false; `module` overrides both.
 */
export async function init(options: InitOptions = {}): Promise<void> {
  if (options.module) return loadModule(options.module);
  const simd = options.simd === false ? undefined : usableSimd(options.simd, await read(new URL('./dpnoise-simd.wasm', import.meta.url)));
  return loadModule(simd ?? (await read(new URL('./dpnoise-scalar.wasm', import.meta.url))));
}
