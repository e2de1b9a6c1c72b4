// What the module imports from its host: fresh CSPRNG words when its pool runs dry mid-draw, and
// the discrete samplers' exact path when a draw's floating-point shortcut cannot decide. The exact
// path lives beside the discrete samplers (src/noise/discrete-exact.ts), which hand it here before
// they draw (this layer imports nothing above it).
import type { WasmExports } from './exports.js';

/** The bytes getRandomValues fills at most per call. */
const CRYPTO_CHUNK = 65536;

/** Fills `bytes` bytes of the module's memory at `pointer` from the platform CSPRNG. */
export function fillRandom(w: WasmExports, pointer: number, bytes: number): void {
  for (let done = 0; done < bytes; done += CRYPTO_CHUNK) {
    crypto.getRandomValues(new Uint8Array(w.memory.buffer, pointer + done, Math.min(CRYPTO_CHUNK, bytes - done)));
  }
}

/** Words per refill of the CSPRNG pool; 0 for the whole pool (tests lower it). */
let poolWords = 0;

/**
 * Tests only: refill the pool with `count` words at a time (0: the whole pool), to show that no
 * draw depends on where the pool runs dry.
 */
export function setPoolWordsForTesting(count: number): void {
  poolWords = count;
}

/** The module's request for fresh extra words, made mid-draw whenever the pool is empty. */
function refillPool(w: WasmExports): void {
  const count = poolWords > 0 ? Math.min(poolWords, w.extraWords()) : w.extraWords();
  fillRandom(w, w.extraPointer(), count * 8);
  w.usePoolExtras(count);
}

/** Finishes a discrete draw exactly from the module's state; set by setExactPath. */
export type ExactPath = (w: WasmExports, stage: number) => number;
let exactPath: ExactPath | undefined;

/** Installs the discrete samplers' exact path (src/noise/discrete-exact.ts), which every instance then calls. */
export function setExactPath(path: ExactPath): void {
  exactPath = path;
}

function exactDraw(w: WasmExports, stage: number): number {
  if (exactPath === undefined) throw new Error('dpnoise: internal error: a discrete draw needs the exact path, which was not installed.');
  return exactPath(w, stage);
}

/**
 * What the module imports, bound to the instance once it exists: the CSPRNG pool's refill, and
 * the discrete samplers' exact path.
 */
export function moduleImports(): { imports: WebAssembly.Imports; bind: (instance: WebAssembly.Instance) => WasmExports } {
  let w: WasmExports | undefined;
  return {
    imports: { env: { refillPool: () => refillPool(w!), exactDraw: (stage: number) => exactDraw(w!, stage) } },
    bind: (instance) => (w = instance.exports as unknown as WasmExports),
  };
}
