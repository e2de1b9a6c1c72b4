/** The cross-runtime workload (workload.js): plain JSON-able numbers. */
export function workload(dpnoise: typeof import('../../dist/index.js')): Record<string, unknown>;
