/** The cross-runtime workload (workload.js): plain JSON-able numbers. */
export function workload(dpnoise: typeof import('../../src/index.js')): Record<string, unknown>;
