// The worker side of parallel sampling (parallel.ts, worker-pool.ts). The first message brings
// the compiled module (so the worker does not compile it again); each later one is a job: draw
// the noise of one range of coordinates, into shared memory when the job's target lives there,
// else into a new array posted back. Runs under Node's worker_threads and as a Web Worker, from
// dist/noise/worker.js or from the bundled copy in worker-source.ts.
import { cryptoStream, SeededStream } from './random.js';
import { drawValidated, type Kernel, type Scales } from './samplers.js';
import { loadModule } from '../wasm/loader.js';

/** Node's module, named through a variable so that bundlers for other platforms leave it alone. */
const WORKER_THREADS = 'node:worker_threads';

/** The first message a worker receives. */
export interface Setup {
  module: WebAssembly.Module;
}

/** One range of a parallel call: coordinates [origin, origin + length). */
export interface Job {
  kernel: Kernel;
  origin: number;
  length: number;
  /** Where the noise goes: the values for `add`, else any contents (overwritten) or absent (a new array). Shared memory is written in place; anything else is posted back. */
  target?: Float64Array;
  add: boolean;
  scales: Scales;
  /** Key and gamma of the seeded stream; the CSPRNG when absent. */
  stream?: [bigint, bigint];
}

/** What a worker answers: once ready, then once per job. */
export type Reply = { ready: true } | { done: true } | { result: Float64Array } | { error: string };

type Post = (message: Reply, transfer: Transferable[]) => void;

function run(job: Job, post: Post): void {
  const target = job.target ?? new Float64Array(job.length);
  const stream = job.stream ? new SeededStream(job.stream[0], job.stream[1]) : cryptoStream;
  drawValidated(job.kernel, target, job.scales, stream, { add: job.add, origin: job.origin });
  if (typeof SharedArrayBuffer === 'function' && target.buffer instanceof SharedArrayBuffer) post({ done: true }, []);
  else post({ result: target }, [target.buffer]);
}

function serve(post: Post): (message: Setup | Job) => void {
  let ready = false;
  return (message) => {
    try {
      if (ready) return run(message as Job, post);
      void loadModule((message as Setup).module).then(
        () => {
          ready = true;
          post({ ready: true }, []);
        },
        (error: unknown) => post({ error: String(error) }, []),
      );
    } catch (error) {
      post({ error: String(error) }, []);
    }
  };
}

const scope = globalThis as unknown as { WorkerGlobalScope?: unknown; onmessage: unknown; postMessage: Post };
if (scope.WorkerGlobalScope !== undefined) {
  const handle = serve((message, transfer) => scope.postMessage(message, transfer));
  scope.onmessage = (event: MessageEvent<Setup | Job>) => handle(event.data);
} else {
  void (import(WORKER_THREADS) as Promise<typeof import('node:worker_threads')>).then(({ parentPort }) => {
    const port = parentPort!;
    const handle = serve((message, transfer) => port.postMessage(message, transfer as never));
    port.on('message', handle);
  });
}
