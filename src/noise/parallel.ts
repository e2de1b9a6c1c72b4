// Parallel sampling: very long vectors split into ranges drawn by worker threads (Node's
// worker_threads, or module Web Workers). The seeded generator is counter-based, so under a
// seed the result is exactly the single-thread result. Starting workers costs tens of
// milliseconds: worth it from about 1e7 coordinates.
import { copyOf, plainView } from '../core/arrays.js';
import { sourceOf, SeededStream } from './random.js';
import { type GroupScales, newTarget, readScales, readValues, type Kernel, type SampleOptions, type Scales } from './samplers.js';
import { integerIn, readOptions } from '../core/validate.js';
import type { Job } from './worker.js';

/** Node's module, named through a variable so that bundlers for other platforms leave it alone. */
const WORKER_THREADS = 'node:worker_threads';

/** Options of the parallel samplers. */
export interface ParallelOptions extends SampleOptions {
  /** Worker threads to use (default: the number of CPUs, at most 8). */
  threads?: number;
}

/**
 * The fewest coordinates given to one worker: below it, starting the worker costs more than it
 * saves. (Where the ranges start does not matter for the noise: under a seed each coordinate's
 * noise depends only on its index.)
 */
const MIN_RANGE = 65536;

interface Port {
  post(job: Job, transfer: Transferable[]): void;
  result: Promise<Float64Array>;
  terminate(): void;
}

/** Starts one sampling worker (exported for the tests). */
export async function startWorker(): Promise<Port> {
  const url = new URL('./worker.js', import.meta.url);
  let settle!: { resolve: (r: Float64Array) => void; reject: (e: Error) => void };
  const result = new Promise<Float64Array>((resolve, reject) => (settle = { resolve, reject }));
  const onMessage = (data: { result?: Float64Array; error?: string }) =>
    data.result ? settle.resolve(data.result) : settle.reject(new Error(`dpnoise: a sampling worker failed: ${data.error}`));
  if (typeof Worker === 'function' && typeof (globalThis as { process?: unknown }).process === 'undefined') {
    const worker = new Worker(url, { type: 'module' });
    worker.onmessage = (event) => onMessage(event.data);
    worker.onerror = (event) => settle.reject(new Error(`dpnoise: a sampling worker failed: ${event.message}`));
    return { post: (job, transfer) => worker.postMessage(job, transfer), result, terminate: () => worker.terminate() };
  }
  const { Worker: NodeWorker } = (await import(WORKER_THREADS)) as typeof import('node:worker_threads');
  const worker = new NodeWorker(url);
  worker.on('message', onMessage);
  worker.on('error', (error: Error) => settle.reject(error));
  // A worker that exits without answering (killed, or out of memory) must not leave the call pending.
  worker.on('exit', (code: number) => settle.reject(new Error(`dpnoise: a sampling worker exited (code ${code}) before returning its noise.`)));
  return { post: (job, transfer) => worker.postMessage(job, transfer as never), result, terminate: () => void worker.terminate() };
}

function defaultThreads(): number {
  const cpus = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2;
  return Math.max(1, Math.min(8, cpus));
}

/** Splits [0, n) into at most `threads` ranges of nearly equal length, each at least MIN_RANGE. */
function ranges(n: number, threads: number): Array<[number, number]> {
  const size = Math.max(MIN_RANGE, Math.ceil(n / threads));
  const out: Array<[number, number]> = [];
  for (let start = 0; start < n; start += size) out.push([start, Math.min(n, start + size)]);
  return out;
}

/** Everything a parallel call needs, validated and copied before anything asynchronous happens. */
interface ParallelCall {
  kernel: Kernel;
  target: Float64Array;
  add: boolean;
  /** The range of each worker, with its own copies of the values (add) and the per-coordinate scales. */
  parts: Array<{ start: number; end: number; values: Float64Array | undefined; scales: Scales }>;
  stream: [bigint, bigint] | undefined;
  threads: number;
}

function prepare(kernel: Kernel, target: Float64Array, add: boolean, scalesArg: unknown, options: unknown): ParallelCall {
  const o = options === undefined ? {} : readOptions('options', options, ['rng', 'threads']);
  const scales = readScales(scalesArg, target.length);
  const threads = o.threads === undefined ? defaultThreads() : integerIn('threads', o.threads, { min: 1, max: 64 });
  const stream = sourceOf(o.rng).stream();
  const parts = ranges(target.length, threads).map(([start, end]) => ({
    start,
    end,
    values: add ? copyOf(plainView(target, start, end - start)) : undefined,
    scales:
      scales instanceof Float64Array
        ? copyOf(plainView(scales, start, end - start))
        : typeof scales === 'object'
          ? { ends: scales.ends.slice(), scales: scales.scales.slice() }
          : scales,
  }));
  return { kernel, target, add, parts, threads, stream: stream instanceof SeededStream ? [stream.key, stream.gamma] : undefined };
}

async function drawParallel({ kernel, target, parts, stream }: ParallelCall): Promise<Float64Array> {
  const workers = await Promise.all(parts.map(() => startWorker()));
  try {
    const results = parts.map(({ start, end, values, scales }, k) => {
      const job: Job = { kernel, origin: start, length: end - start, scales, ...(values && { values }), ...(stream && { stream }) };
      workers[k]!.post(job, [values?.buffer, scales instanceof Float64Array ? scales.buffer : undefined].filter((b) => b !== undefined) as Transferable[]);
      return workers[k]!.result;
    });
    // Nothing is written to `target` until every range has been drawn.
    const drawn = await Promise.all(results);
    drawn.forEach((part, k) => {
      target.set(part, parts[k]!.start);
    });
    return target;
  } finally {
    for (const worker of workers) worker.terminate();
  }
}

/** Validates and copies the arguments now (synchronously), then draws; errors come as a rejected Promise. */
function parallel(kernel: Kernel, target: () => Float64Array, add: boolean, scales: unknown, options: unknown): Promise<Float64Array> {
  try {
    return drawParallel(prepare(kernel, target(), add, scales, options));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Like gaussianNoise, drawn by worker threads; under a seed, equal to the single-thread result. */
export function gaussianNoiseParallel(length: number, scales: number | Float64Array | GroupScales, options?: ParallelOptions): Promise<Float64Array> {
  return parallel('gaussianSamples', () => newTarget(length), false, scales, options);
}

/** Like addGaussianNoise, drawn by worker threads; `values` is read when called and changes only once all are done. */
export function addGaussianNoiseParallel(values: Float64Array, scales: number | Float64Array | GroupScales, options?: ParallelOptions): Promise<Float64Array> {
  return parallel('gaussianSamples', () => readValues(values), true, scales, options).then(() => values);
}

/** Like laplaceNoise, drawn by worker threads. */
export function laplaceNoiseParallel(length: number, scales: number | Float64Array | GroupScales, options?: ParallelOptions): Promise<Float64Array> {
  return parallel('laplaceSamples', () => newTarget(length), false, scales, options);
}

/** Like addLaplaceNoise, drawn by worker threads; `values` is read when called and changes only once all are done. */
export function addLaplaceNoiseParallel(values: Float64Array, scales: number | Float64Array | GroupScales, options?: ParallelOptions): Promise<Float64Array> {
  return parallel('laplaceSamples', () => readValues(values), true, scales, options).then(() => values);
}
