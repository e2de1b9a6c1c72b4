// Gaussian and Laplace noise over long vectors (MATH.md section 8). Arguments are checked in full
// before any noise is drawn; then the vector streams through WebAssembly chunk by chunk: random
// words in, noise (scaled, and added to the values for the add* variants) out.
import { copyIn, forEachChunk, view } from './memory.js';
import { sourceOf, type RandomSource, type Rng, type Stream } from './rng.js';
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

export type Kernel = 'gaussianSamples' | 'laplaceSamples';

/** One scale for all coordinates, or one per coordinate. */
export function readScales(scales: unknown, length: number): number | Float64Array {
  if (typeof scales === 'number') return numberIn('scales', scales, { min: 0, max: MAX_SCALE });
  if (!(scales instanceof Float64Array)) {
    throw new TypeError(`dpnoise: \`scales\` must be a number or a Float64Array; got ${scales === null ? 'null' : typeof scales}.`);
  }
  return vector('scales', scales, SCALE_ENTRIES, { arrays: false, length });
}

/** A new zeroed array of `length` coordinates. */
export function newTarget(length: unknown): Float64Array {
  const n = numberIn('length', length, { min: 0, max: 2 ** 32 });
  if (!Number.isInteger(n)) throw new RangeError(`dpnoise: \`length\` must be an integer; got ${n}.`);
  return new Float64Array(n);
}

/** The caller's values, all finite (noise added to an infinity or NaN would hide nothing). */
export function readValues(values: unknown): Float64Array {
  return vector('values', values, VALUE_ENTRIES, { arrays: false, length: values instanceof Float64Array ? values.length : 0 });
}

function readSource(options: unknown): RandomSource {
  if (options === undefined) return sourceOf(undefined);
  return sourceOf(checkOptions('options', options, ['rng']).rng);
}

/**
 * Writes (or adds) noise, plus a `shared` term, into `target`, whose entry i is coordinate
 * origin + i of the vector, chunk by chunk. Everything has been validated.
 */
export function draw(kernel: Kernel, target: Float64Array, add: boolean, scales: number | Float64Array, stream: Stream, origin = 0, shared = 0): Float64Array {
  const w: WasmExports = wasm();
  const perCoordinate = typeof scales !== 'number';
  const scale = perCoordinate ? 1 : scales;
  stream.begin(w);
  forEachChunk(target.length, w.sampleChunkLength(), (start, n) => {
    const first = origin + start;
    stream.words(w, first, n);
    if (perCoordinate) copyIn(w, w.scalesPointer(), scales, start, n);
    if (add) copyIn(w, w.valuesPointer(), target, start, n);
    // The kernel stops early only when the CSPRNG's pool of extra words runs dry.
    for (let done = 0; (done = w[kernel](first, done, n, perCoordinate, scale, add, shared)) < n;) stream.refill(w, n);
    target.set(view(w, w.valuesPointer(), n), start);
  });
  return target;
}

function sample(kernel: Kernel, target: Float64Array, add: boolean, scales: unknown, options: unknown): Float64Array {
  const s = readScales(scales, target.length);
  const source = readSource(options);
  return draw(kernel, target, add, s, source.stream());
}

/**
 * A new Float64Array of `length` independent Gaussian noise values with standard deviations
 * `scales` (one number, or one per coordinate). |noise| < 13.71 standard deviations (the normal
 * tail beyond that, of probability below 1e-42, is not drawn).
 */
export function gaussianNoise(length: number, scales: number | Float64Array, options?: SampleOptions): Float64Array {
  return sample('gaussianSamples', newTarget(length), false, scales, options);
}

/** Adds Gaussian noise with standard deviations `scales` to `values` in place and returns it. */
export function addGaussianNoise(values: Float64Array, scales: number | Float64Array, options?: SampleOptions): Float64Array {
  return sample('gaussianSamples', readValues(values), true, scales, options);
}

/** A new Float64Array of `length` independent Laplace noise values with scales b = `scales`. */
export function laplaceNoise(length: number, scales: number | Float64Array, options?: SampleOptions): Float64Array {
  return sample('laplaceSamples', newTarget(length), false, scales, options);
}

/** Adds Laplace noise with scales b = `scales` to `values` in place and returns it. */
export function addLaplaceNoise(values: Float64Array, scales: number | Float64Array, options?: SampleOptions): Float64Array {
  return sample('laplaceSamples', readValues(values), true, scales, options);
}
