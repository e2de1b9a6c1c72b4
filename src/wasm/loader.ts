// Loading the WebAssembly module. The default entry embeds both builds; the SIMD one is used
// where the engine validates it. Node may instantiate synchronously on first use; elsewhere
// `await init()` first (browsers forbid synchronous compilation of large modules on the main thread).
import { scalarWasm, simdWasm } from './embedded.js';
import { finishDraw } from './exact-path.js';
import { refillPool } from '../noise/random.js';

/** The module's exports (assembly/index.ts): numbers and pointers only. */
export interface WasmExports {
  readonly memory: WebAssembly.Memory;
  erfc(x: number): number;
  normalSf(x: number): number;
  normalLogSf(x: number): number;
  normalIsf(p: number): number;
  logGamma(x: number): number;
  gaussianDelta(mu: number, epsilon: number): number;
  gaussianLogDelta(mu: number, epsilon: number): number;
  gaussianMu(epsilon: number, delta: number): number;
  gaussianEpsilon(mu: number, delta: number): number;
  profileMoments(n: number): void;
  powerSums(n: number, weighted: boolean, a1: number, b1: number, a2: number, b2: number, a3: number, b3: number): void;
  fillScales(n: number, weighted: boolean, alpha: number, gamma: number, c: number): void;
  seededWords(first: number, count: number): void;
  useSeededExtras(): void;
  usePoolExtras(count: number): void;
  resumePoolExtras(): void;
  /** The next extra word of the coordinate being drawn (a signed i64 as a bigint), for the exact path. */
  exactWord(): bigint;
  /** flags: PER_COORDINATE | ADD (kernel.ts); `shared` is added to every coordinate. */
  gaussianSamples(first: number, n: number, flags: number, scale: number, shared: number): void;
  laplaceSamples(first: number, n: number, flags: number, scale: number, shared: number): void;
  /** Values rounded to `grid` (ADD), exact integer noise added, scaled back by `grid`. */
  discreteGaussianSamples(first: number, n: number, flags: number, scale: number, grid: number): void;
  discreteLaplaceSamples(first: number, n: number, flags: number, scale: number, grid: number): void;
  /** Tests: every discrete draw through the exact path. */
  setExactOnly(on: boolean): void;
  chunkLength(): number;
  sampleChunkLength(): number;
  extraWords(): number;
  valuesPointer(): number;
  scalesPointer(): number;
  randomPointer(): number;
  extraPointer(): number;
  streamPointer(): number;
  exactPointer(): number;
  profilePointer(): number;
  weightsPointer(): number;
  resultsPointer(): number;
}

/** Options of `init()`. */
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

/** The state a discrete sampler hands to the exact path (EXACT, assembly/memory.ts). */
function exactDraw(w: WasmExports, stage: number): number {
  const slots = new Float64Array(w.memory.buffer, w.exactPointer(), 7);
  const word = new BigUint64Array(w.memory.buffer, w.exactPointer() + 16, 1)[0]!;
  const state = { parameter: slots[0]!, laplaceScale: slots[1]!, word, negative: slots[3] === 1, h: slots[4]!, y: slots[5]!, value: slots[6]! };
  return finishDraw(stage, state, () => BigInt.asUintN(64, w.exactWord()));
}

/**
 * What the module imports, bound to the instance once it exists: the CSPRNG pool's refill, and
 * the discrete samplers' exact path.
 */
function moduleImports(): { imports: WebAssembly.Imports; bind: (instance: WebAssembly.Instance) => WasmExports } {
  let w: WasmExports | undefined;
  return {
    imports: { env: { refillPool: () => refillPool(w!), exactDraw: (stage: number) => exactDraw(w!, stage) } },
    bind: (instance) => (w = instance.exports as unknown as WasmExports),
  };
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
