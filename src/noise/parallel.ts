// Parallel sampling: a long vector split into ranges, one drawn by the calling thread and the
// others by pooled workers (worker-pool.ts). The seeded generator is counter-based, so under a
// seed the result is exactly the single-thread result. Where memory can be shared (Node, Bun,
// Deno, cross-origin-isolated pages) the workers write straight into it; elsewhere each range
// travels to its worker and back as a transferred copy.
import { copyOf, plainView, setAt } from '../core/arrays.js';
import { integerIn, readOptions } from '../core/validate.js';
import { cryptoStream, SeededStream, sourceOf } from './random.js';
import { drawValidated, type GroupScales, type Kernel, readLength, readScales, readValues, type SampleOptions, type Scales } from './samplers.js';
import type { Job } from './worker.js';
import { acquireWorkers, releaseWorker } from './worker-pool.js';

/**
 * Options of the parallel samplers.
 *
 * @group Sampling
 */
export interface ParallelOptions extends SampleOptions {
  /** Threads to use, the calling one included (default: the number of CPUs, at most 8). */
  threads?: number;
}

/**
 * The fewest coordinates given to one thread: below it, handing a range to a worker costs more
 * than it saves. (Where the ranges start does not matter for the noise: under a seed each
 * coordinate's noise depends only on its index.)
 */
const MIN_RANGE = 65536;

function defaultThreads(): number {
  const cpus = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2;
  return Math.max(1, Math.min(8, cpus));
}

/** Splits [0, n) into at most `threads` ranges of nearly equal length, each at least MIN_RANGE. */
function ranges(n: number, threads: number): Array<[number, number]> {
  const size = Math.max(MIN_RANGE, Math.ceil(n / threads));
  const out: Array<[number, number]> = [];
  for (let start = 0; start < n; start += size) out.push([start, Math.min(n, start + size)]);
  return out.length > 0 ? out : [[0, 0]];
}

/** Shared memory reaches workers where SharedArrayBuffer exists and the page, if any, is cross-origin isolated. */
function canShareMemory(): boolean {
  return typeof SharedArrayBuffer === 'function' && (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated !== false;
}

/** A copy of `source` (or zeros), over shared memory when `shared`. */
function workspace(length: number, shared: boolean, source?: Float64Array): Float64Array {
  const out = shared ? new Float64Array(new SharedArrayBuffer(8 * length)) : new Float64Array(length);
  if (source) setAt(out, source, 0);
  return out;
}

/** Everything a parallel call needs, validated and copied before anything asynchronous happens. */
interface ParallelCall {
  kernel: Kernel;
  add: boolean;
  /** A copy of the values (add) or zeros: every range's noise is drawn into it. */
  work: Float64Array;
  /** The scales, per-coordinate ones copied next to `work`. */
  scales: Scales;
  shared: boolean;
  ranges: Array<[number, number]>;
  stream: [bigint, bigint] | undefined;
}

function prepare(kernel: Kernel, length: number, values: Float64Array | undefined, scalesArg: unknown, options: unknown): ParallelCall {
  const o = options === undefined ? {} : readOptions('options', options, ['rng', 'threads']);
  const scales = readScales(scalesArg, length);
  const threads = o.threads === undefined ? defaultThreads() : integerIn('threads', o.threads, { min: 1, max: 64 });
  const stream = sourceOf(o.rng).stream();
  const shared = canShareMemory();
  return {
    kernel,
    add: values !== undefined,
    work: workspace(length, shared, values),
    scales:
      scales instanceof Float64Array
        ? workspace(length, shared, scales)
        : typeof scales === 'object'
          ? { ends: scales.ends.slice(), scales: scales.scales.slice() }
          : scales,
    shared,
    ranges: ranges(length, threads),
    stream: stream instanceof SeededStream ? [stream.key, stream.gamma] : undefined,
  };
}

/** The scales of coordinates [start, end): a view of shared memory, or a copy to transfer. */
function scalesOf({ scales, shared }: ParallelCall, start: number, end: number): Scales {
  if (!(scales instanceof Float64Array)) return scales;
  const view = plainView(scales, start, end - start);
  return shared ? view : copyOf(view);
}

/** Hands range [start, end) to a worker; resolves once its noise is in `work`. */
async function delegate(call: ParallelCall, worker: Awaited<ReturnType<typeof acquireWorkers>>[number], [start, end]: [number, number]): Promise<void> {
  const { kernel, add, work, shared, stream } = call;
  const scales = scalesOf(call, start, end);
  const view = plainView(work, start, end - start);
  const target = shared ? view : add ? copyOf(view) : undefined;
  const job: Job = { kernel, origin: start, length: end - start, add, scales, ...(target && { target }), ...(stream && { stream }) };
  const transfer = shared ? [] : [target?.buffer, scales instanceof Float64Array ? scales.buffer : undefined].filter((b) => b !== undefined);
  const drawn = await worker.run(job, transfer as Transferable[]);
  if (drawn) setAt(work, drawn, start);
}

async function drawParallel(call: ParallelCall): Promise<Float64Array> {
  const [[start, end], ...theirs] = call.ranges as [[number, number], ...Array<[number, number]>];
  const workers = await acquireWorkers(theirs.length);
  const settled = Promise.allSettled(theirs.map((range, k) => delegate(call, workers[k]!, range))).then((results) => {
    results.forEach((result, k) => {
      releaseWorker(workers[k]!, result.status === 'fulfilled');
    });
    return results;
  });
  // The calling thread draws the first range meanwhile.
  const stream = call.stream ? new SeededStream(call.stream[0], call.stream[1]) : cryptoStream;
  drawValidated(call.kernel, plainView(call.work, start, end - start), scalesOf(call, start, end), stream, { add: call.add, origin: start });
  const failed = (await settled).find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return call.work;
}

/** The vector a call draws into: its length, and the values for the add variants. */
type Input = () => { length: number; values?: Float64Array };

/** Validates and copies the arguments now (synchronously), then draws; errors come as a rejected Promise. */
function parallel(kernel: Kernel, input: Input, scales: unknown, options: unknown): Promise<Float64Array> {
  try {
    const { length, values } = input();
    return drawParallel(prepare(kernel, length, values, scales, options));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * A new array of the noise. Where threads share memory it is the shared workspace itself: copying
 * it out would cost the calling thread a pass over fresh memory, as much as drawing its range.
 */
function noise(kernel: Kernel, length: unknown, scales: unknown, options: unknown): Promise<Float64Array> {
  return parallel(kernel, () => ({ length: readLength(length) }), scales, options);
}

/** Adds the noise to `values`, which are read when called and change only once every range is drawn. */
function addNoise(kernel: Kernel, values: Float64Array, scales: unknown, options: unknown): Promise<Float64Array> {
  let plain: Float64Array | undefined;
  const input = () => {
    plain = readValues(values);
    return { length: plain.length, values: plain };
  };
  return parallel(kernel, input, scales, options).then((work) => {
    setAt(plain!, work, 0);
    return values;
  });
}

/**
 * Like gaussianNoise, drawn by several threads: the calling one and pooled workers. Under a seed,
 * equal to the single-thread result. Where threads share memory (Node, Bun, Deno,
 * cross-origin-isolated pages) the result is backed by a SharedArrayBuffer. A noise generator,
 * not a release (see gaussianMechanism).
 *
 * @example
 * ```ts
 * import { createRng, gaussianNoise, gaussianNoiseParallel } from 'dpnoise';
 *
 * const parallel = await gaussianNoiseParallel(1_000_000, 2.5, { threads: 2, rng: createRng({ seed: 7 }) });
 * const single = gaussianNoise(1_000_000, 2.5, { rng: createRng({ seed: 7 }) });
 * console.log(parallel.every((x, i) => x === single[i])); // true
 * ```
 *
 * @group Sampling
 */
export function gaussianNoiseParallel(length: number, scales: number | Float64Array | GroupScales, options?: ParallelOptions): Promise<Float64Array> {
  return noise('gaussianSamples', length, scales, options);
}

/**
 * Like addGaussianNoise, drawn by several threads; `values` is read when called and changes only
 * once every range is drawn.
 *
 * @example
 * ```ts
 * import { addGaussianNoiseParallel } from 'dpnoise';
 *
 * const values = new Float64Array(1_000_000).fill(10);
 * await addGaussianNoiseParallel(values, 0.5, { threads: 2 });
 * console.log(values[0]);
 * ```
 *
 * @group Sampling
 */
export function addGaussianNoiseParallel(values: Float64Array, scales: number | Float64Array | GroupScales, options?: ParallelOptions): Promise<Float64Array> {
  return addNoise('gaussianSamples', values, scales, options);
}

/**
 * Like laplaceNoise, drawn by several threads (see gaussianNoiseParallel).
 *
 * @example
 * ```ts
 * import { laplaceNoiseParallel } from 'dpnoise';
 *
 * const noise = await laplaceNoiseParallel(1_000_000, 2, { threads: 2 });
 * console.log(noise.length);
 * ```
 *
 * @group Sampling
 */
export function laplaceNoiseParallel(length: number, scales: number | Float64Array | GroupScales, options?: ParallelOptions): Promise<Float64Array> {
  return noise('laplaceSamples', length, scales, options);
}

/**
 * Like addLaplaceNoise, drawn by several threads; `values` is read when called and changes only
 * once every range is drawn.
 *
 * @example
 * ```ts
 * import { addLaplaceNoiseParallel } from 'dpnoise';
 *
 * const values = new Float64Array(1_000_000).fill(10);
 * await addLaplaceNoiseParallel(values, new Float64Array(1_000_000).fill(2), { threads: 2 });
 * console.log(values[0]);
 * ```
 *
 * @group Sampling
 */
export function addLaplaceNoiseParallel(values: Float64Array, scales: number | Float64Array | GroupScales, options?: ParallelOptions): Promise<Float64Array> {
  return addNoise('laplaceSamples', values, scales, options);
}
