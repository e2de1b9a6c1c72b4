// exp, log and expm1 as the WebAssembly module computes them: the same figures on every engine, where
// Math.exp and Math.log may differ in the last bit between engines (docs/mechanisms.md,
// "Floating-point safety"). By name, for the layers above calibrate/ (which do not call the
// module) and for the Renyi accountant's bounds (math/log-bounds.ts, engine/rdp.ts).
import { wasm } from '../wasm/loader.js';

/** e^x, the module's. */
export const exp = (x: number): number => wasm().exp(x);

/** ln x, the module's. */
export const log = (x: number): number => wasm().log(x);

/** e^x - 1, the module's. */
export const expm1 = (x: number): number => wasm().expm1(x);
