// The built package (dist/), for the tests of what users run: worker threads, runtimes, the
// attacks through them. Loaded by URL at run time (`npm test` builds first) and typed by the
// sources, so that the tests type-check on a fresh clone before any build.
const load = (path: string) => import(new URL(`../dist/${path}`, import.meta.url).href);

export const built = (await load('index.js')) as typeof import('../src/index.js');
export const builtWorkerPool = (await load('noise/worker-pool.js')) as typeof import('../src/noise/worker-pool.js');
export const builtThreadGate = (await load('noise/thread-gate.js')) as typeof import('../src/noise/thread-gate.js');
