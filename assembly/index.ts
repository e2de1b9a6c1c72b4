// The WebAssembly module's exports: numbers and pointers only.
export { erfc, normalSf, normalLogSf, normalIsf, logGamma } from "./special";
export { gaussianDelta, gaussianLogDelta, gaussianMu, gaussianEpsilon } from "./privacy";
export { profileMoments, powerSums, fillScales } from "./allocate";
import { CHUNK, PROFILE, RESULTS, WEIGHTS } from "./memory";

/** Layout of the scratch memory, read once by the facade. */
export function chunkLength(): i32 { return CHUNK; }
export function profilePointer(): usize { return PROFILE; }
export function weightsPointer(): usize { return WEIGHTS; }
export function resultsPointer(): usize { return RESULTS; }
