// exp and log as the WebAssembly module computes them: the same figures on every engine, where
// Math.exp and Math.log may differ in the last bit between engines (docs/mechanisms.md,
// "Floating-point safety"). For the layers above calibrate/, which do not call the module.
import { wasm } from '../wasm/loader.js';

/** e^x, the module's. */
export const exp = (x: number): number => wasm().exp(x);

/** ln x, the module's. */
export const log = (x: number): number => wasm().log(x);
