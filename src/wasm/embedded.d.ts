// The types of embedded.ts, which scripts/build.mjs generates from the two builds (base64 strings);
// committed so that the sources type-check on a fresh clone before any build.
export declare const scalarWasm: string;
export declare const simdWasm: string;
