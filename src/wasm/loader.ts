// The loaded WebAssembly module, whichever entry loaded it (embedded.ts's bytes, a .wasm file, a
// module the runtime imported). Node may instantiate synchronously on first use, from the source
// the entry registers; elsewhere `await init()` first (browsers forbid synchronous compilation of
// large modules on the main thread).
import type { WasmExports } from './exports.js';
import { moduleImports } from './host.js';

export type { WasmExports } from './exports.js';

/**
 * Options of `init()`.
 *
 * @group Setup
 */
export interface InitOptions {
  /** A compiled module (or its bytes) to use instead of the package's own, e.g. for a strict CSP. */
  module?: WebAssembly.Module | BufferSource;
  /** Use the SIMD build (default: when the engine supports it). `false` forces the scalar build. */
  simd?: boolean;
}

let current: WasmExports | undefined;
/** The compiled module `current` runs, handed to the parallel samplers' workers so they need not compile it again. */
let currentModule: WebAssembly.Module | undefined;
/** Where Node's first use takes the module from when init() was not called (the default entry's embedded bytes). */
let lazySource: (() => BufferSource) | undefined;

/** Instantiates a build synchronously (Node, workers); also used by the parity tests. */
export function instantiateSync(source: WebAssembly.Module | BufferSource): WasmExports {
  const module = source instanceof WebAssembly.Module ? source : new WebAssembly.Module(source);
  const { imports, bind } = moduleImports();
  return bind(new WebAssembly.Instance(module, imports));
}

/** Compiles (unless given a module) and instantiates `source`, which the API uses from then on. */
export async function loadModule(source: WebAssembly.Module | BufferSource): Promise<void> {
  const module = source instanceof WebAssembly.Module ? source : await WebAssembly.compile(source);
  const { imports, bind } = moduleImports();
  current = bind(await WebAssembly.instantiate(module, imports));
  currentModule = module;
}

/**
 * The SIMD build's bytes when the engine validates them, else undefined (use the scalar build);
 * throws when `simd` is true (SIMD required) and the engine lacks it. Each entry calls it with its
 * own copy of the bytes.
 */
export function usableSimd<T extends BufferSource>(simd: boolean | undefined, bytes: T): T | undefined {
  if (WebAssembly.validate(bytes)) return bytes;
  if (simd === true) throw new Error('dpnoise: this WebAssembly engine does not support SIMD.');
  return undefined;
}

/** Sets the source of Node's synchronous first use (the default entry registers its embedded bytes). */
export function setLazySource(source: () => BufferSource): void {
  lazySource = source;
}

const isNode = typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === 'string';

/** The loaded module; in Node it is instantiated on first use. */
export function wasm(): WasmExports {
  if (current) return current;
  if (!isNode || !lazySource) {
    throw new Error(
      isNode
        ? "dpnoise: call `await init()` once before first use: this entry ('dpnoise/asset' or the workerd entry) loads its WebAssembly module only then, in Node too."
        : 'dpnoise: call `await init()` once before using dpnoise outside Node.',
    );
  }
  currentModule = new WebAssembly.Module(lazySource());
  current = instantiateSync(currentModule);
  return current;
}

/** The compiled module that wasm() runs (loading it first in Node). */
export function loadedModule(): WebAssembly.Module {
  wasm();
  return currentModule!;
}
