// Gaussian and Laplace noise over long vectors (MATH.md section 8). Arguments are checked in full
// before any noise is drawn; then the vector streams through WebAssembly chunk by chunk: random
// words in, noise (scaled, and added to the values for the add* variants) out.
import { copyIn, forEachChunk, view } from './memory.js';
import { sourceOf, type RandomSource, type Rng } from './rng.js';
import { type Entries, numberIn, options as checkOptions, vector } from './validate.js';
import { wasm, type WasmExports } from './wasm.js';

export interface SampleOptions {
  /** The random source (default: the platform CSPRNG). */
  rng?: Rng;
}

/** Scales are at most 1e150, so that no noise value can overflow (|noise| < 46 scales). */
const MAX_SCALE = 1e150;
const SCALE_ENTRIES: Entries = { min: 0, max: MAX_SCALE, basic: 'a finite number >= 0', range: `a number >= 0 and <= ${MAX_SCALE}` };
const VALUE_ENTRIES: Entries = { min: -Number.MAX_VALUE, max: Number.MAX_VALUE, basic: 'a finite number', range: 'a finite number' };

type Kernel = 'gaussianSamples' | 'laplaceSamples';

/** One scale for all coordinates, or one per coordinate. */
function readScales(scales: unknown, length: number): number | Float64Array {
  if (typeof scales === 'number') return numberIn('scales', scales, { min: 0, max: MAX_SCALE });
  if (!(scales instanceof Float64Array)) {
    throw new TypeError(`dpnoise: \`scales\` must be a number or a Float64Array; got ${scales === null ? 'null' : typeof scales}.`);
  }
  return vector('scales', scales, SCALE_ENTRIES, { arrays: false, length });
}

function readLength(length: unknown): number {
  const n = numberIn('length', length, { min: 0, max: 2 ** 32 });
  if (!Number.isInteger(n)) throw new RangeError(`dpnoise: \`length\` must be an integer; got ${n}.`);
  return n;
}

function readSource(options: unknown): RandomSource {
  if (options === undefined) return sourceOf(undefined);
  return sourceOf(checkOptions('options', options, ['rng']).rng);
}

/** Writes (or adds) noise into `target`, chunk by chunk. Everything has been validated. */
function draw(kernel: Kernel, target: Float64Array, add: boolean, scales: number | Float64Array, source: RandomSource): Float64Array {
  const w: WasmExports = wasm();
  const perCoordinate = typeof scales !== 'number';
  const scale = perCoordinate ? 1 : scales;
  source.begin(w);
  forEachChunk(target.length, w.sampleChunkLength(), (start, n) => {
    source.words(w, start, n);
    if (perCoordinate) copyIn(w, w.scalesPointer(), scales, start, n);
    if (add) copyIn(w, w.valuesPointer(), target, start, n);
    // The kernel stops early only when the CSPRNG's pool of extra words runs dry.
    for (let done = 0; (done = w[kernel](start, done, n, perCoordinate, scale, add)) < n;) source.refill(w, n);
    target.set(view(w, w.valuesPointer(), n), start);
  });
  return target;
}

function fill(kernel: Kernel, length: unknown, scales: unknown, options: unknown): Float64Array {
  const n = readLength(length);
  const s = readScales(scales, n);
  const source = readSource(options);
  return draw(kernel, new Float64Array(n), false, s, source);
}

function addTo(kernel: Kernel, values: unknown, scales: unknown, options: unknown): Float64Array {
  const target = vector('values', values, VALUE_ENTRIES, { arrays: false, length: values instanceof Float64Array ? values.length : 0 });
  const s = readScales(scales, target.length);
  const source = readSource(options);
  return draw(kernel, target, true, s, source);
}

/**
 * A new Float64Array of `length` independent Gaussian noise values with standard deviations
 * `scales` (one number, or one per coordinate). |noise| < 13.71 standard deviations (the normal
 * tail beyond that, of probability below 1e-42, is not drawn).
 */
export function gaussianNoise(length: number, scales: number | Float64Array, options?: SampleOptions): Float64Array {
  return fill('gaussianSamples', length, scales, options);
}

/** Adds Gaussian noise with standard deviations `scales` to `values` in place and returns it. */
export function addGaussianNoise(values: Float64Array, scales: number | Float64Array, options?: SampleOptions): Float64Array {
  return addTo('gaussianSamples', values, scales, options);
}

/** A new Float64Array of `length` independent Laplace noise values with scales b = `scales`. */
export function laplaceNoise(length: number, scales: number | Float64Array, options?: SampleOptions): Float64Array {
  return fill('laplaceSamples', length, scales, options);
}

/** Adds Laplace noise with scales b = `scales` to `values` in place and returns it. */
export function addLaplaceNoise(values: Float64Array, scales: number | Float64Array, options?: SampleOptions): Float64Array {
  return addTo('laplaceSamples', values, scales, options);
}
