// Parallel sampling: a long vector split into ranges, one drawn by the calling thread and the
// others by pooled workers (worker-pool.ts). The seeded generator is counter-based, so under a
// seed the result is exactly the single-thread result. Where memory can be shared (Node, Bun,
// Deno, cross-origin-isolated pages) the workers write straight into it; elsewhere each range
// travels to its worker and back as a transferred copy. A worker that fails (cannot start, or
// dies) has its range drawn by the calling thread instead, so a call never fails half-drawn.
import { copyOf, plainView, setAt } from '../core/arrays.js';
import { integerIn, readOptions } from '../core/validate.js';
import { cryptoStream, SeededStream, sourceOf } from './random.js';
import { drawValidated, type Kernel, readLength, readScales, readValues, type SampleOptions, type Scales, type ScalesArgument } from './samplers.js';
import { judge, threadsPay } from './thread-gate.js';
import type { Job } from './worker.js';
import { releaseWorker, startWorker, takeIdleWorkers } from './worker-pool.js';
import { giveBack, takeShared } from './workspace.js';

/**
 * Options of the parallel samplers.
 *
 * @group Sampling
 */
export interface ParallelOptions extends SampleOptions {
  /**
   * Threads to use at most, the calling one included (default: the number of CPUs, at most 8).
   * Never more than the host's CPUs where the engine tells them: a thread without a core of its own
   * only slows the others. After a call that threads made slower than one thread would have
   * been (busy cores), the next calls use one thread for a while (thread-gate.ts).
   */
  threads?: number;
}

/**
 * The fewest coordinates given to one thread: below it, handing a range to a worker costs more
 * than it saves. Measured with two threads on 2 idle CPUs (bench/RESULTS.md, "Parallel"): at
 * 131072 coordinates (two ranges of 65536) adding noise took 1.02 times one thread's time, at 2e5
 * it took 0.81; 98304 keeps the calls that split above that crossover. Busy cores are the thread
 * gate's to judge (thread-gate.ts). (Where the ranges start does not matter for the noise: under a
 * seed each coordinate's noise depends only on its index, so the split never changes a result.)
 */
export const MIN_RANGE = 98304;

/** The host's CPUs, where the engine tells (browsers, Deno, Bun, Node from 21). */
function hostCpus(): number | undefined {
  const cpus = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  return cpus === undefined ? undefined : Math.max(1, cpus);
}

/** Splits [0, n) into at most `threads` ranges whose lengths differ by at most 1, each at least MIN_RANGE (or one range). */
export function ranges(n: number, threads: number): Array<[number, number]> {
  const count = Math.max(1, Math.min(threads, Math.floor(n / MIN_RANGE)));
  const out: Array<[number, number]> = [];
  for (let k = 0; k < count; k++) out.push([Math.floor((k * n) / count), Math.floor(((k + 1) * n) / count)]);
  return out;
}

/** Shared memory reaches workers where SharedArrayBuffer exists and the page, if any, is cross-origin isolated. */
function canShareMemory(): boolean {
  return typeof SharedArrayBuffer === 'function' && (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated !== false;
}

/** Everything a parallel call needs, validated before anything is drawn. */
interface ParallelCall {
  kernel: Kernel;
  /** The caller's values (add variants; a plain view, read only synchronously), else undefined. */
  values: Float64Array | undefined;
  /** Where the noise ends up: the values, or a new array. */
  result: Float64Array;
  /** The validated scales (per-coordinate ones: a plain view of the caller's, read only synchronously). */
  scales: Scales;
  shared: boolean;
  ranges: Array<[number, number]>;
  stream: [bigint, bigint] | undefined;
}

function prepare(kernel: Kernel, length: number, values: Float64Array | undefined, scalesArg: unknown, options: unknown): ParallelCall {
  const o = options === undefined ? {} : readOptions('options', options, ['rng', 'threads']);
  const scales = readScales(scalesArg, length);
  const cpus = hostCpus();
  const asked = o.threads === undefined ? Math.min(8, cpus ?? 2) : integerIn('threads', o.threads, { min: 1, max: 64 });
  const threads = threadsPay() ? Math.min(asked, cpus ?? asked) : 1;
  const stream = sourceOf(o.rng).stream();
  return {
    kernel,
    values,
    result: values ?? new Float64Array(length),
    scales: typeof scales === 'object' && !(scales instanceof Float64Array) ? { ends: scales.ends.slice(), scales: scales.scales.slice() } : scales,
    shared: canShareMemory(),
    ranges: ranges(length, threads),
    stream: stream instanceof SeededStream ? [stream.key, stream.gamma] : undefined,
  };
}

/** A copy of `array`'s range [start, end), in `into` (shared memory) or a new array to transfer. */
function copyRange(array: Float64Array, [start, end]: [number, number], into: Float64Array | undefined): Float64Array {
  const view = plainView(array, start, end - start);
  if (!into) return copyOf(view);
  setAt(into, view, start);
  return plainView(into, start, end - start);
}

/**
 * Hands the workers their ranges, copied now (the caller may change its arrays once the call
 * returns): values and per-coordinate scales, into reused shared memory (`work`, `scalesWork`) or
 * as copies to transfer. Idle workers get their job at once; the others once started. One promise
 * per range: the drawn array when it was transferred, undefined once written into `work`; and
 * whether every worker was already running (only then does the call's time judge the threads).
 */
function delegate(call: ParallelCall, work: Float64Array | undefined, scalesWork: Float64Array | undefined, theirs: Array<[number, number]>) {
  const { kernel, values, scales, stream } = call;
  const jobs = theirs.map((range): Job => {
    const [start, end] = range;
    const target = values ? copyRange(values, range, work) : work && plainView(work, start, end - start);
    return {
      kernel,
      origin: start,
      length: end - start,
      add: values !== undefined,
      scales: scales instanceof Float64Array ? copyRange(scales, range, scalesWork) : scales,
      ...(target && { target }),
      ...(stream && { stream }),
    };
  });
  const idle = takeIdleWorkers(theirs.length);
  const promises = jobs.map(async (job, k) => {
    const worker = idle[k] ?? (await startWorker());
    const transfer = work ? [] : [job.target?.buffer, job.scales instanceof Float64Array ? job.scales.buffer : undefined].filter((b) => b !== undefined);
    try {
      const drawn = await worker.run(job, transfer as Transferable[]);
      releaseWorker(worker, true);
      return drawn;
    } catch (error) {
      releaseWorker(worker, false);
      throw error;
    }
  });
  return { promises, pooled: idle.length === theirs.length };
}

/**
 * Resolves once the caller's synchronous code and queued microtasks have run (a macrotask), so
 * that what they write into the workers' ranges of `values` is overwritten by the result.
 */
function afterPendingMicrotasks(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));
}

async function drawParallel(call: ParallelCall): Promise<Float64Array> {
  const { kernel, values, result, shared, ranges } = call;
  const stream = call.stream ? new SeededStream(call.stream[0], call.stream[1]) : cryptoStream;
  const add = values !== undefined;
  // The calling thread draws a range into `result` (the add variants: into `values`, in place).
  const drawHere = ([start, end]: [number, number]) => {
    const scales = call.scales instanceof Float64Array ? plainView(call.scales, start, end - start) : call.scales;
    drawValidated(kernel, plainView(result, start, end - start), scales, stream, { add, origin: start });
  };
  const [mine, ...theirs] = ranges as [[number, number], ...Array<[number, number]>];
  // One range: drawn at once, as the one-thread sampler draws it.
  if (theirs.length === 0) {
    drawHere(mine);
    return result;
  }
  // Shared memory reused between calls, for the workers' ranges (a new array each call would cost its page faults).
  const work = shared ? takeShared(result.length) : undefined;
  const scalesWork = shared && call.scales instanceof Float64Array ? takeShared(result.length) : undefined;
  const began = performance.now();
  // The workers' ranges are copied out of the caller's arrays before the calling thread draws its own.
  const { promises: jobs, pooled } = delegate(call, work, scalesWork, theirs);
  const drawing = performance.now();
  drawHere(mine);
  const mineMs = performance.now() - drawing;
  const settled = await Promise.allSettled(jobs);
  await afterPendingMicrotasks(); // with every worker failed at once, nothing else would wait for the caller's own code
  settled.forEach((s, k) => {
    const range = theirs[k]!;
    const [from, to] = range;
    // A worker that failed (could not start, or died) has its range drawn here instead: the same
    // noise under a seed, fresh CSPRNG noise otherwise (what the worker drew was never seen),
    // added to `values` as they are now, which the caller has not written since the call.
    if (s.status === 'rejected') drawHere(range);
    else setAt(result, s.value ?? plainView(work!, from, to - from), from);
  });
  if (pooled) judge(performance.now() - began, result.length, mine[1] - mine[0], mineMs);
  // Reused only after a call whose workers all finished (a failed worker may be stopped mid-write).
  const failed = settled.some((s) => s.status === 'rejected');
  if (!failed && work) giveBack(work);
  if (!failed && scalesWork) giveBack(scalesWork);
  return result;
}

/** The vector a call draws into: its length, and the values for the add variants. */
type Input = () => { length: number; values?: Float64Array };

/** Validates the arguments and copies the workers' share now (synchronously), then draws; errors come as a rejected Promise. */
function parallel(kernel: Kernel, input: Input, scales: unknown, options: unknown): Promise<Float64Array> {
  try {
    const { length, values } = input();
    return drawParallel(prepare(kernel, length, values, scales, options));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A new array of the noise. */
function noise(kernel: Kernel, length: unknown, scales: unknown, options: unknown): Promise<Float64Array> {
  return parallel(kernel, () => ({ length: readLength(length) }), scales, options);
}

/**
 * Adds the noise to `values`, read when called: the calling thread's range in place before the
 * call returns, the workers' ranges once they are drawn (the caller writes to it only then).
 */
function addNoise(kernel: Kernel, values: Float64Array, scales: unknown, options: unknown): Promise<Float64Array> {
  const input = () => {
    const plain = readValues(values);
    return { length: plain.length, values: plain };
  };
  return parallel(kernel, input, scales, options).then(() => values);
}

/**
 * Like gaussianNoise, drawn by several threads: the calling one and pooled workers. Under a seed,
 * equal to the single-thread result. Where threads share memory (Node, Bun, Deno,
 * cross-origin-isolated pages) workers write into shared memory reused between calls. A noise
 * generator, not a release (see gaussianMechanism).
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
export function gaussianNoiseParallel(length: number, scales: ScalesArgument, options?: ParallelOptions): Promise<Float64Array> {
  return noise('gaussianSamples', length, scales, options);
}

/**
 * Like addGaussianNoise, drawn by several threads; `values` is read when called and holds the
 * result once the promise resolves (write to it only then): the calling thread's range changes
 * in place before the call returns, the workers' ranges once they are drawn.
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
export function addGaussianNoiseParallel(values: Float64Array, scales: ScalesArgument, options?: ParallelOptions): Promise<Float64Array> {
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
export function laplaceNoiseParallel(length: number, scales: ScalesArgument, options?: ParallelOptions): Promise<Float64Array> {
  return noise('laplaceSamples', length, scales, options);
}

/**
 * Like addLaplaceNoise, drawn by several threads; `values` is read when called and holds the
 * result once the promise resolves (write to it only then): the calling thread's range changes
 * in place before the call returns, the workers' ranges once they are drawn.
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
export function addLaplaceNoiseParallel(values: Float64Array, scales: ScalesArgument, options?: ParallelOptions): Promise<Float64Array> {
  return addNoise('laplaceSamples', values, scales, options);
}
