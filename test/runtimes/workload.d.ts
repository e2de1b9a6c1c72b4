/** The cross-runtime workload (workload.js): plain JSON-able numbers. */
export function workload(dpnoise: typeof import('../../src/index.js')): Record<string, unknown>;
/** The workload and the parallel check (workload.js), as runtimes started as processes print them. */
export function report(dpnoise: typeof import('../../src/index.js')): Promise<{ workload: Record<string, unknown>; parallelEqual: boolean }>;
