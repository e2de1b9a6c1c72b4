// The worker side of parallel sampling (parallel.ts): draws the noise of one range of
// coordinates and posts it back. Runs under Node's worker_threads and as a module Web Worker.
import { cryptoStream, SeededStream } from './random.js';
import { drawValidated, type Kernel, type Scales } from './samplers.js';
import { init } from '../wasm/loader.js';

/** Node's module, named through a variable so that bundlers for other platforms leave it alone. */
const WORKER_THREADS = 'node:worker_threads';

/** One range of a parallel call: coordinates [origin, origin + length). */
export interface Job {
  kernel: Kernel;
  origin: number;
  length: number;
  /** The values of the range, for the add variants. */
  values?: Float64Array;
  scales: Scales;
  /** Key and gamma of the seeded stream; the CSPRNG when absent. */
  stream?: [bigint, bigint];
}

async function run(job: Job): Promise<Float64Array> {
  await init();
  const target = job.values ?? new Float64Array(job.length);
  const stream = job.stream ? new SeededStream(job.stream[0], job.stream[1]) : cryptoStream;
  return drawValidated(job.kernel, target, job.scales, stream, { add: job.values !== undefined, origin: job.origin });
}

type Post = (message: unknown, transfer: Transferable[]) => void;

function serve(post: Post) {
  return (job: Job) =>
    run(job).then(
      (result) => post({ result }, [result.buffer]),
      (error: unknown) => post({ error: String(error) }, []),
    );
}

const scope = globalThis as unknown as { WorkerGlobalScope?: unknown; onmessage: unknown; postMessage: Post };
if (scope.WorkerGlobalScope !== undefined) {
  const handle = serve((message, transfer) => scope.postMessage(message, transfer));
  scope.onmessage = (event: MessageEvent<Job>) => handle(event.data);
} else {
  void (import(WORKER_THREADS) as Promise<typeof import('node:worker_threads')>).then(({ parentPort }) => {
    const port = parentPort!;
    const handle = serve((message, transfer) => port.postMessage(message, transfer as never));
    port.on('message', handle);
  });
}
