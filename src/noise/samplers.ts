// Gaussian and Laplace noise over long vectors (docs/noise.md, "Samplers"). Arguments are checked in full
// before any noise is drawn; then the vector streams through WebAssembly chunk by chunk: random
// words in, noise (scaled, and added to the values for the add* variants) out. A caller's vector
// in the module's memory (wasm-vector.ts) is drawn into, and read, where it is.
import { MAX_SCALE } from '../core/domains.js';
import { isFloat64Array, lengthOfArray, plainView, setAt } from '../core/arrays.js';
import { chunkOf, copyIn, forEachChunk, view } from '../wasm/chunks.js';
import { firstOutsideInModule } from '../wasm/checks.js';
import { Block, holdsVectors } from '../wasm/heap.js';
import { useExactPath } from './discrete-exact.js';
import { readRng, type Rng, type Stream } from './random.js';
import { describe, type Entries, FINITE_ENTRIES, integerIn, numberIn, readOptions, readSizes, vector } from '../core/validate.js';
import { wasm, type WasmExports } from '../wasm/loader.js';
import { isWasmVector, moduleBlock, viewOf, type WasmVector } from './wasm-vector.js';

/**
 * One scale per group of consecutive coordinates: coordinates [n_0 + ... + n_(g-1), ... + n_g) get scales[g].
 *
 * @group Sampling
 */
export interface GroupScales {
  /** The number of coordinates in each group, in order; they add up to the length. */
  sizes: Float64Array | readonly number[];
  /** One scale per group. */
  scales: Float64Array | readonly number[];
}

/**
 * Noise scales for a sampler: one number for every coordinate, one per coordinate (a Float64Array,
 * an array of numbers or a WasmVector), or one per group ({ sizes, scales }).
 *
 * @group Sampling
 */
export type ScalesArgument = number | Float64Array | readonly number[] | WasmVector | GroupScales;

/** Validated scales: one for all, one per coordinate, or per group with cumulative ends. */
export type ArrayScales = number | Float64Array | { ends: Float64Array; scales: Float64Array };
/** Validated scales, or a caller's vector of them in the module's memory. */
export type Scales = ArrayScales | Block;

/**
 * Options of the samplers and of every `release`.
 *
 * @group Sampling
 */
export interface SampleOptions {
  /** The random source (default: the platform CSPRNG). */
  rng?: Rng;
}

/** Scales are at most 1e150, so that no noise value can overflow (|noise| < 46 scales). */
const SCALE_ENTRIES: Entries = { min: 0, max: MAX_SCALE, basic: 'a finite number >= 0', range: `a number >= 0 and <= ${MAX_SCALE}` };

export type Kernel =
  | 'gaussianSamples'
  | 'laplaceSamples'
  | 'discreteLaplaceSamples'
  | 'discreteGaussianSamples'
  | 'staircaseSamples'
  | 'staircaseRadiusSamples'
  | 'discreteStaircaseSamples';

/** vector() with its range check run in the module for long arrays (wasm/checks.ts): the same answer, faster. */
export function moduleVector(name: string, value: unknown, entries: Entries, options: Parameters<typeof vector>[3] = {}): Float64Array {
  return vector(name, value, entries, { ...options, check: firstOutsideInModule });
}

/**
 * One scale for all coordinates, one per coordinate, or one per group ({ sizes, scales }). A
 * caller's vector is checked where it is and, `inPlace`, read there (else copied).
 */
export function readScales(scales: unknown, length: number): ArrayScales;
export function readScales(scales: unknown, length: number, inPlace: true): Scales;
export function readScales(scales: unknown, length: number, inPlace = false): Scales {
  if (typeof scales === 'number') return numberIn('scales', scales, { min: 0, max: MAX_SCALE });
  if (isWasmVector(scales)) {
    const block = moduleBlock('scales', scales, SCALE_ENTRIES, { length });
    return inPlace ? block : viewOf(block).slice();
  }
  if (isFloat64Array(scales) || Array.isArray(scales)) return moduleVector('scales', scales, SCALE_ENTRIES, { length });
  if (typeof scales === 'object' && scales !== null) {
    const groups = readOptions('scales', scales, ['sizes', 'scales']);
    const sizes = readSizes('scales.sizes', groups.sizes);
    const perGroup = vector('scales.scales', groups.scales, SCALE_ENTRIES, { length: sizes.length });
    const ends = new Float64Array(sizes.length);
    sizes.reduce((end, n, g) => (ends[g] = end + n), 0);
    if (ends[ends.length - 1] !== length) {
      throw new RangeError(`dpnoise: the group sizes in \`scales.sizes\` must add up to the length, ${length}; got ${ends[ends.length - 1]}.`);
    }
    return { ends, scales: perGroup };
  }
  throw new TypeError(
    `dpnoise: \`scales\` must be a number, a Float64Array or an array of numbers, or { sizes, scales }; got ${scales === null ? 'null' : typeof scales}.`,
  );
}

/** Writes the scales of coordinates [first, first + out.length) from groups into `out`. */
function expandGroups(out: Float64Array, { ends, scales }: { ends: Float64Array; scales: Float64Array }, first: number): void {
  let lo = 0;
  for (let hi = ends.length - 1; lo < hi; ) {
    const mid = (lo + hi) >> 1;
    if (ends[mid]! > first) hi = mid;
    else lo = mid + 1;
  }
  for (let i = 0, g = lo; i < out.length; g++) {
    const end = Math.min(out.length, ends[g]! - first);
    out.fill(scales[g]!, i, end);
    i = end;
  }
}

/** A vector length: a whole number of coordinates up to 2^32. */
export function readLength(length: unknown): number {
  return integerIn('length', length, { min: 0, max: 2 ** 32 });
}

/** A new zeroed array of `length` coordinates. */
export function newTarget(length: unknown): Float64Array {
  return new Float64Array(readLength(length));
}

/** A Float64Array the caller lends for the noise (its contents are overwritten, not read); with `vectors`, a WasmVector too. */
export function outputArray(out: unknown): Float64Array;
export function outputArray(out: unknown, vectors: true): Float64Array | Block;
export function outputArray(out: unknown, vectors = false): Float64Array | Block {
  if (vectors && isWasmVector(out)) return moduleBlock('out', out);
  if (!isFloat64Array(out)) throw new TypeError(`dpnoise: \`out\` must be a Float64Array; got ${describe(out)}.`);
  return plainView(out);
}

/**
 * The caller's values (a Float64Array, or with `vectors` a WasmVector read where it is), all finite (noise added
 * to an infinity or NaN would hide nothing); private, so never shown in an error.
 */
export function readValues(values: unknown): Float64Array;
export function readValues(values: unknown, vectors: true): Float64Array | Block;
export function readValues(values: unknown, vectors = false): Float64Array | Block {
  if (vectors && isWasmVector(values)) return moduleBlock('values', values, FINITE_ENTRIES, { length: values.length, private: true });
  return moduleVector('values', values, FINITE_ENTRIES, {
    arrays: false,
    length: isFloat64Array(values) ? lengthOfArray(values) : 0,
    private: true,
  });
}

/** How drawValidated draws. */
export interface DrawOptions {
  /** Add the noise to the target's values (default: overwrite them). */
  add?: boolean;
  /** With `add`: read the values from here (as long as the target) instead of from the target. */
  source?: Float64Array | Block;
  /** The coordinate of the target's first entry in the stream (default 0). */
  origin?: number;
  /** Continuous kernels: a term added to every coordinate (default 0). */
  shared?: number;
  /** Discrete kernels: the values are rounded to this grid, and the output scaled by it (default 1: integers already). */
  grid?: number;
  /** The staircase kernels: per-coordinate budgets (the discrete one: t = 1/eps) and shapes (the discrete one: high parts r), the scales being the step widths. */
  staircase?: { epsilons: Float64Array; gammas: Float64Array };
  /** Instead of copying each chunk's noise (in the module's values buffer) to the target: what to do with it, for the target's entries [start, start + n). */
  finish?: (w: WasmExports, start: number, n: number) => void;
}

let drawing = false;

/** The kernels that take their values, source and scales where they are (assembly/noise/samplers.ts, and discrete.ts, which copies them in and out inside the module); the others use the scratch chunks. */
const IN_PLACE_KERNELS: ReadonlySet<Kernel> = new Set(['gaussianSamples', 'laplaceSamples', 'discreteLaplaceSamples', 'discreteGaussianSamples']);

/**
 * Writes (or adds) noise into `target`, whose entry i is coordinate origin + i of the vector,
 * chunk by chunk. Validates nothing: the arguments have been checked, and `target` and the scales
 * are plain arrays (core/arrays.ts) or blocks of the module's memory, so no caller code runs while
 * drawing; nesting a draw inside another is refused all the same. Blocks are read and written
 * where they are by the kernels that can, else copied through the scratch chunks.
 */
export function drawValidated<T extends Float64Array | Block>(kernel: Kernel, target: T, scales: Scales, stream: Stream, how: DrawOptions = {}): T {
  if (drawing) throw new Error('dpnoise: a sampler was called while another one was drawing; calls cannot be nested.');
  const w: WasmExports = wasm(); // before the flag: without a module (no init() outside Node) this throws, and later calls must not see a draw under way
  drawing = true;
  try {
    const { add = false, origin = 0 } = how;
    const discrete = kernel.startsWith('discrete');
    if (discrete) useExactPath();
    const extra = discrete ? (how.grid ?? 1) : (how.shared ?? 0);
    // The kernels' flags, as the module defines them.
    const flags = (typeof scales === 'number' ? 0 : w.flagPerCoordinate()) | (add ? w.flagAdd() : 0);
    const scale = typeof scales === 'number' ? scales : 1;
    const inPlace = IN_PLACE_KERNELS.has(kernel) && !how.finish;
    const values = how.source ?? target;
    stream.begin(w);
    forEachChunk(target.length, w.sampleChunkLength(), (start, n) => {
      const first = origin + start;
      stream.words(w, first, n);
      // Where the kernel reads and writes this chunk: in place for blocks, else the scratch chunks.
      const at = (place: Float64Array | Block, scratch: number) => (inPlace && place instanceof Block ? place.pointer + 8 * start : scratch);
      let scalesAt = w.scalesPointer();
      if (scales instanceof Float64Array || scales instanceof Block) {
        scalesAt = at(scales, scalesAt);
        if (scalesAt === w.scalesPointer()) copyIn(w, scalesAt, scales, start, n);
      } else if (typeof scales === 'object') expandGroups(view(w, scalesAt, n), scales, first);
      if (how.staircase) {
        copyIn(w, w.epsilonsPointer(), how.staircase.epsilons, start, n);
        copyIn(w, w.shapesPointer(), how.staircase.gammas, start, n);
      }
      const from = add ? at(values, w.valuesPointer()) : w.valuesPointer();
      if (add && from === w.valuesPointer()) copyIn(w, from, values, start, n);
      const into = at(target, w.valuesPointer());
      w[kernel](first, n, flags, scale, extra, into, from, scalesAt);
      if (how.finish) how.finish(w, start, n);
      else if (into === w.valuesPointer()) setAt(chunkOf(w, target, start, n), view(w, into, n), 0);
    });
    return target;
  } finally {
    if (holdsVectors(w)) w.scrub(target.length, kernel.startsWith('discrete'));
    drawing = false;
  }
}

/** Validates `scales` and the options `{ rng }`, then draws into `target` (validated by the caller). */
function validateAndDraw<T extends Float64Array | Block>(kernel: Kernel, target: T, add: boolean, scales: unknown, options: unknown): T {
  const s = readScales(scales, target.length, true);
  return drawValidated(kernel, target, s, readRng(options).stream(), { add });
}

// The samplers are noise generators, not releases: noise added in floating point can leak
// through the low bits of the result (docs/mechanisms.md, "Floating-point safety"). Releases go through
// the mechanisms (gaussianMechanism, laplaceMechanism, correlatedSum), exact on a grid by default.

/**
 * A new Float64Array of `length` independent Gaussian noise values with standard deviations
 * `scales` (one number, one per coordinate, or one per group). A noise generator, not a release:
 * for a private release use gaussianMechanism, floating-point safe by default.
 *
 * @example
 * ```ts
 * import { gaussianNoise } from 'dpnoise';
 *
 * // Standard deviation 2.5 for every coordinate; one per coordinate; one
 * // per group (2 coordinates at 1, then 3 at 10).
 * const iid = gaussianNoise(1000, 2.5);
 * const perCoordinate = gaussianNoise(3, new Float64Array([1, 2, 4]));
 * const perGroup = gaussianNoise(5, { sizes: [2, 3], scales: [1, 10] });
 * console.log(iid.length, perCoordinate, perGroup);
 * ```
 *
 * @group Sampling
 */
export function gaussianNoise(length: number, scales: ScalesArgument, options?: SampleOptions): Float64Array {
  return validateAndDraw('gaussianSamples', newTarget(length), false, scales, options);
}

/**
 * Writes Gaussian noise into `out` (overwriting it) and returns it: gaussianNoise without
 * allocating, the fast path for long vectors drawn again and again (a fresh array's page faults
 * can cost more than the noise). `out` may be a WasmVector, drawn into where it is (no copy out
 * of WebAssembly). A noise generator, not a release (see gaussianMechanism).
 *
 * @example
 * ```ts
 * import { gaussianNoiseInto } from 'dpnoise';
 *
 * const noise = new Float64Array(1e6);
 * for (let step = 0; step < 3; step++) {
 *   gaussianNoiseInto(noise, 1.5); // overwritten every step, nothing allocated
 *   console.log(noise[0]);
 * }
 * ```
 *
 * @group Sampling
 */
export function gaussianNoiseInto<T extends Float64Array | WasmVector>(out: T, scales: ScalesArgument, options?: SampleOptions): T {
  validateAndDraw('gaussianSamples', outputArray(out, true), false, scales, options);
  return out;
}

/**
 * Adds Gaussian noise with standard deviations `scales` to `values` in place and returns it;
 * `values` may be a WasmVector, read and written where it is. A noise generator, not a
 * floating-point-safe release: for that use gaussianMechanism.
 *
 * @example
 * ```ts
 * import { addGaussianNoise, calibrateGaussian } from 'dpnoise';
 *
 * const sensitivity = [0.1, 0.2, 0.4, 0.8];
 * const { scales } = calibrateGaussian({ sensitivity, epsilon: 1, delta: 1e-6 });
 * const values = new Float64Array([12.5, 7.25, 3.0, 0.5]);
 * addGaussianNoise(values, scales); // in place
 * console.log(values);
 * ```
 *
 * @group Sampling
 */
export function addGaussianNoise<T extends Float64Array | WasmVector>(values: T, scales: ScalesArgument, options?: SampleOptions): T {
  validateAndDraw('gaussianSamples', readValues(values, true), true, scales, options);
  return values;
}

/**
 * A new Float64Array of `length` independent Laplace noise values with scales b = `scales`. A
 * noise generator, not a release: for a private release use laplaceMechanism.
 *
 * @example
 * ```ts
 * import { laplaceNoise } from 'dpnoise';
 *
 * // A scale b_i per coordinate.
 * const noise = laplaceNoise(4, new Float64Array([0.5, 1, 1, 2]));
 * console.log(noise);
 * ```
 *
 * @group Sampling
 */
export function laplaceNoise(length: number, scales: ScalesArgument, options?: SampleOptions): Float64Array {
  return validateAndDraw('laplaceSamples', newTarget(length), false, scales, options);
}

/**
 * Writes Laplace noise into `out` (overwriting it) and returns it: laplaceNoise without
 * allocating; `out` may be a WasmVector, drawn into where it is. A noise generator, not a release.
 *
 * @example
 * ```ts
 * import { laplaceNoiseInto } from 'dpnoise';
 *
 * const noise = new Float64Array(1e6);
 * for (let step = 0; step < 3; step++) {
 *   laplaceNoiseInto(noise, 0.5); // overwritten every step, nothing allocated
 *   console.log(noise[0]);
 * }
 * ```
 *
 * @group Sampling
 */
export function laplaceNoiseInto<T extends Float64Array | WasmVector>(out: T, scales: ScalesArgument, options?: SampleOptions): T {
  validateAndDraw('laplaceSamples', outputArray(out, true), false, scales, options);
  return out;
}

/**
 * Adds Laplace noise with scales b = `scales` to `values` in place and returns it; `values` may
 * be a WasmVector, read and written where it is. A noise generator, not a floating-point-safe
 * release: for that use laplaceMechanism.
 *
 * @example
 * ```ts
 * import { addLaplaceNoise, calibrateLaplace } from 'dpnoise';
 *
 * const sensitivity = [0.1, 0.2, 0.4, 0.8];
 * const { scales } = calibrateLaplace({ sensitivity, epsilon: 1 });
 * const values = new Float64Array([12.5, 7.25, 3.0, 0.5]);
 * addLaplaceNoise(values, scales); // in place
 * console.log(values);
 * ```
 *
 * @group Sampling
 */
export function addLaplaceNoise<T extends Float64Array | WasmVector>(values: T, scales: ScalesArgument, options?: SampleOptions): T {
  validateAndDraw('laplaceSamples', readValues(values, true), true, scales, options);
  return values;
}
