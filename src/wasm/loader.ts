// Loading the WebAssembly module. The default entry embeds both builds; the SIMD one is used
// where the engine validates it. Node may instantiate synchronously on first use; elsewhere
// `await init()` first (browsers forbid synchronous compilation of large modules on the main thread).
import { scalarWasm, simdWasm } from './embedded.js';
import type { WasmExports } from './exports.js';
import { moduleImports } from './host.js';

export type { WasmExports } from './exports.js';

/**
 * Options of `init()`.
 *
 * @group Setup
 */
export interface InitOptions {
  /** A compiled module (or its bytes) to use instead of the embedded one, e.g. for a strict CSP. */
  module?: WebAssembly.Module | BufferSource;
  /** Use the SIMD build (default: when the engine supports it). `false` forces the scalar build. */
  simd?: boolean;
}

let current: WasmExports | undefined;

function decodeBase64(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The bytes of the embedded build to use: SIMD where supported unless `simd` is false. */
export function embeddedBytes(simd?: boolean): Uint8Array<ArrayBuffer> {
  if (simd !== false) {
    const bytes = decodeBase64(simdWasm);
    if (WebAssembly.validate(bytes)) return bytes;
    if (simd === true) throw new Error('dpnoise: this WebAssembly engine does not support SIMD.');
  }
  return decodeBase64(scalarWasm);
}

/** Instantiates a build synchronously (Node, workers); also used by the parity tests. */
export function instantiateSync(source: WebAssembly.Module | BufferSource): WasmExports {
  const module = source instanceof WebAssembly.Module ? source : new WebAssembly.Module(source);
  const { imports, bind } = moduleImports();
  return bind(new WebAssembly.Instance(module, imports));
}

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
  const source = options.module ?? embeddedBytes(options.simd);
  const module = source instanceof WebAssembly.Module ? source : await WebAssembly.compile(source);
  const { imports, bind } = moduleImports();
  current = bind(await WebAssembly.instantiate(module, imports));
}

const isNode = typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === 'string';

/** The loaded module; in Node it is instantiated on first use. */
export function wasm(): WasmExports {
  if (current) return current;
  if (!isNode) {
    throw new Error('dpnoise: call `await init()` once before using dpnoise outside Node.');
  }
  current = instantiateSync(embeddedBytes());
  return current;
}
