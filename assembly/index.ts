// The WebAssembly module's exports: numbers and pointers only.
export { erfc, normalSf, normalLogSf, normalIsf, logGamma } from "./noise/special";
export { gaussianDelta, gaussianLogDelta, gaussianMu, gaussianEpsilon } from "./noise/profile";
export { profileMoments, powerSums, fillScales } from "./calibrate/allocations";
import { CHUNK, PROFILE, RESULTS, WEIGHTS } from "./memory";

/** Layout of the scratch memory, read once by the facade. */
export function chunkLength(): i32 { return CHUNK; }
export function profilePointer(): usize { return PROFILE; }
export function weightsPointer(): usize { return WEIGHTS; }
export function resultsPointer(): usize { return RESULTS; }
export { seededWords, useSeededExtras, usePoolExtras, resumePoolExtras, exactWord } from "./noise/random";
export { gaussianSamples, laplaceSamples } from "./noise/samplers";
import { EXACT, EXTRA, EXTRA_WORDS, RANDOM, SAMPLE_CHUNK, SCALES, STREAM, VALUES } from "./memory";
export function sampleChunkLength(): i32 { return SAMPLE_CHUNK; }
export function extraWords(): i32 { return EXTRA_WORDS; }
export function valuesPointer(): usize { return VALUES; }
export function scalesPointer(): usize { return SCALES; }
export function randomPointer(): usize { return RANDOM; }
export function extraPointer(): usize { return EXTRA; }
export function streamPointer(): usize { return STREAM; }
export function exactPointer(): usize { return EXACT; }
export { discreteLaplaceSamples, discreteGaussianSamples, setExactOnly } from "./noise/discrete";
