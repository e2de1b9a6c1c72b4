// init() of the default entry: both builds are embedded (embedded.ts, base64), so nothing else
// needs serving or bundling; the SIMD one is used where the engine validates it. Importing this
// module also lets Node instantiate synchronously on first use.
import { scalarWasm, simdWasm } from './embedded.js';
import { type InitOptions, loadModule, setLazySource, usableSimd } from './loader.js';

export type { InitOptions } from './loader.js';

function decodeBase64(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The bytes of the embedded build to use: SIMD where supported unless `simd` is false. */
export function embeddedBytes(simd?: boolean): Uint8Array<ArrayBuffer> {
  return (simd === false ? undefined : usableSimd(simd, decodeBase64(simdWasm))) ?? decodeBase64(scalarWasm);
}

setLazySource(() => embeddedBytes());

/**
 * Loads the WebAssembly module. Optional in Node; required (and awaited) before first use in
 * browsers, workers and edge runtimes. Calling it again replaces the module.
 *
 * @example
 * ```ts
 * import { init, normalIsf } from 'dpnoise';
 *
 * // Once, before first use in browsers, workers and edge runtimes
 * // (optional in Node).
 * await init();
 * console.log(normalIsf(0.025)); // 1.959963984540054
 * ```
 *
 * @group Setup
 */
export async function init(options: InitOptions = {}): Promise<void> {
  await loadModule(options.module ?? embeddedBytes(options.simd));
}
