/**
 * The `dpnoise` entry: calibration, mechanisms, samplers, accounting and budgets, with no dependency.
 *
 * @module dpnoise
 */
// dpnoise: the default entry. The public API is api.ts's exports and init(), which here loads the
// WebAssembly module embedded in the package (nothing to serve or bundle; optional in Node).
import './wasm/embedded-init.js'; // lets Node instantiate on first use, even when init() is not imported
export * from './api.js';
export { init, type InitOptions } from './wasm/embedded-init.js';
