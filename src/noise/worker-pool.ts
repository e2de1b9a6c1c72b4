// The sampling workers, kept alive between parallel calls: starting one (a thread, its module
// graph, an instance of the WebAssembly module) costs milliseconds, more than the work of a
// million coordinates. Idle workers do not keep Node's process alive.
//
// A worker is started from dist/noise/worker.js, in the form bundlers recognise
// (`new Worker(new URL('./worker.js', import.meta.url), ...)`: Vite, webpack 5 and Parcel emit the
// file). Where that file is not found (a bundler that does not, such as esbuild, or a bundled Node
// application), it is started once and for all from the bundled copy of its code in
// worker-source.ts instead (a blob: URL in browsers, which a strict Content Security Policy may
// refuse; `eval` in Node).
import { loadedModule } from '../wasm/loader.js';
import type { Job, Reply, Setup } from './worker.js';
import { workerSource } from './worker-source.js';

/** Node's module, named through a variable so that bundlers for other platforms leave it alone. */
const WORKER_THREADS = 'node:worker_threads';

/** A started worker, before the handshake: messages in, replies and failures out. */
interface Thread {
  post(message: Setup | Job, transfer: Transferable[]): void;
  listen(onReply: (reply: Reply) => void, onFailure: (error: Error) => void): void;
  /** Node: whether the worker keeps the process alive. */
  keepAlive(on: boolean): void;
  terminate(): void;
}

/** A worker ready for jobs, one at a time. */
export interface SamplingWorker {
  /** Runs a job; resolves with the drawn array, or undefined when the job wrote to shared memory. */
  run(job: Job, transfer: Transferable[]): Promise<Float64Array | undefined>;
  /** False once the worker has exited or failed (it may die while idle in the pool). */
  alive(): boolean;
  terminate(): void;
}

const failure = (detail: string) => new Error(`dpnoise: a sampling worker failed: ${detail}`);

/** Node's process, where there is one (Node, and the runtimes that mimic it: Bun, Deno). */
const hasProcess = typeof (globalThis as { process?: unknown }).process !== 'undefined';

async function nodeThread(fromFile: boolean): Promise<Thread> {
  const { Worker } = (await import(WORKER_THREADS)) as typeof import('node:worker_threads');
  const worker = fromFile ? new Worker(new URL('./worker.js', import.meta.url)) : new Worker(workerSource, { eval: true });
  return {
    post: (message, transfer) => worker.postMessage(message, transfer as never),
    listen(onReply, onFailure) {
      worker.on('message', onReply);
      worker.on('error', (error: Error) => onFailure(failure(error.message)));
      // A worker that exits without answering (killed, or out of memory) must not leave a call pending.
      worker.on('exit', (code: number) => onFailure(new Error(`dpnoise: a sampling worker exited (code ${code}) before returning its noise.`)));
    },
    keepAlive: (on) => (on ? worker.ref() : worker.unref()),
    terminate: () => void worker.terminate(),
  };
}

function webThread(fromFile: boolean): Thread {
  let worker: Worker;
  let source: string | undefined;
  if (fromFile) worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  else {
    source = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
    worker = new Worker(source);
  }
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onReply, onFailure) {
      worker.onmessage = (event: MessageEvent<Reply>) => onReply(event.data);
      // A script that fails to load gives a plain Event, with no message.
      worker.onerror = (event) => onFailure(failure(event.message ?? 'its script did not load'));
    },
    keepAlive() {},
    terminate() {
      worker.terminate();
      if (source) URL.revokeObjectURL(source);
    },
  };
}

/** Starts a worker and hands it the module; resolves once it is ready. */
async function handshake(fromFile: boolean, module: WebAssembly.Module): Promise<SamplingWorker> {
  const thread = typeof Worker === 'function' && !hasProcess ? webThread(fromFile) : await nodeThread(fromFile);
  let pending: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | undefined;
  let broken: Error | undefined;
  const answer = () =>
    new Promise<Reply>((resolve, reject) => {
      if (broken) reject(broken);
      else pending = { resolve, reject };
    });
  thread.listen(
    (reply) => {
      const p = pending;
      pending = undefined;
      p?.resolve(reply);
    },
    (error) => {
      broken ??= error;
      const p = pending;
      pending = undefined;
      p?.reject(error);
    },
  );
  const ready = answer();
  thread.post({ module }, []);
  const first = await ready.catch((error: Error) => {
    thread.terminate();
    throw error;
  });
  if (!('ready' in first)) {
    thread.terminate();
    throw failure('error' in first ? first.error : 'no handshake');
  }
  thread.keepAlive(false);
  return {
    async run(job, transfer) {
      const reply = answer();
      thread.keepAlive(true);
      thread.post(job, transfer);
      try {
        const r = await reply;
        if ('error' in r) throw failure(r.error);
        return 'result' in r ? r.result : undefined;
      } finally {
        thread.keepAlive(false);
      }
    },
    alive: () => broken === undefined,
    terminate: () => thread.terminate(),
  };
}

/** Whether workers start from the bundled source because worker.js did not load once. */
let fromSource = false;

/** Starts a sampling worker and waits until it has the module. */
export async function startWorker(): Promise<SamplingWorker> {
  const module = loadedModule(); // outside the try: not loaded is the caller's error, not the worker file's
  if (!fromSource) {
    try {
      return await handshake(true, module);
    } catch {
      fromSource = true;
    }
  }
  return handshake(false, module);
}

const idle: SamplingWorker[] = [];

/** Up to `count` idle workers, now (none are started); workers that died while idle are dropped. */
export function takeIdleWorkers(count: number): SamplingWorker[] {
  for (let i = idle.length - 1; i >= 0; i--) if (!idle[i]!.alive()) idle.splice(i, 1)[0]!.terminate();
  return idle.splice(0, count);
}

/** Returns workers to the pool; a worker whose job failed is terminated instead, whatever its state. */
export function releaseWorker(worker: SamplingWorker, healthy: boolean): void {
  if (healthy) idle.push(worker);
  else worker.terminate();
}
