// The types of worker-source.ts, which scripts/build.mjs generates by bundling worker.ts;
// committed so that the sources type-check on a fresh clone before any build.
export declare const workerSource: string;
