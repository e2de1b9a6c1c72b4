// The WebAssembly module's exports: numbers and pointers only. src/wasm/exports.ts mirrors them
// (test/wasm/loader.test.ts checks the two against each other for both builds).
export { exp, log, expm1, pow } from "./math/elementary";
export { erfc, normalSf, normalLogSf, normalIsf, logGamma } from "./math/special";
export { gaussianDelta, gaussianLogDelta, gaussianMu, gaussianEpsilon } from "./accounting/profile";
export { zcdpDelta, zcdpEpsilon, zcdpMu } from "./accounting/zcdp";
export { arena } from "./accounting/arena";
export { convolve, power, productEnd, productStart, productStep, square, twiddles } from "./accounting/fft";
export { hockeyDelta, subsampledGrid, gridDeltas, connectDots, floorBins, floorDelta, floorEpsilon, pldDelta, pldEpsilon } from "./accounting/pld";
export { lognormalGrid, lognormalMass } from "./accounting/allocation";
export { logMoments } from "./accounting/moments";
export { profileMoments, powerSums, fillScales } from "./calibrate/allocations";
export { staircaseMoment, staircaseSplit, staircaseShapes, staircaseTableGrid, staircaseSlopePointer, staircaseShapePointer } from "./calibrate/staircase";
export { seededWords, useSeededExtras, usePoolExtras, resumePoolExtras, exactWord, scrub } from "./noise/random";
export { gaussianSamples, laplaceSamples } from "./noise/samplers";
export { discreteLaplaceSamples, discreteGaussianSamples, discreteStaircaseSamples, setExactOnly } from "./noise/discrete";
export { correlatedRelease } from "./noise/correlated";
export { minusLogUniformOf, minusLogUniformPairOf } from "./noise/log-uniform";
export { cellTableOf, cellSplitsPointer, cellFactorsPointer, cellSize } from "./noise/cells";
export { expMinusPairOf } from "./noise/exp-lanes";
export { firstOutside } from "./checks";
export { reserveVectors } from "./memory";
export { staircaseSamples, staircaseRadiusSamples } from "./noise/staircase";
import { CHUNK, EPSILONS, EXACT, EXTRA, EXTRA_WORDS, HEAP, PROFILE, RANDOM, RESULTS, SAMPLE_CHUNK, SCALES, SHAPES, STREAM, VALUES, WEIGHTS } from "./memory";

import { ADD, PER_COORDINATE } from "./noise/samplers";

/** The samplers' flags, read by the host from here (never mirrored by hand). */
export function flagPerCoordinate(): i32 { return PER_COORDINATE; }
export function flagAdd(): i32 { return ADD; }

/** Whether this build was compiled with WebAssembly SIMD. */
export function hasSimd(): bool { return ASC_FEATURE_SIMD; }

// The layout of the scratch memory, read by the host.
export function chunkLength(): i32 { return CHUNK; }
export function sampleChunkLength(): i32 { return SAMPLE_CHUNK; }
export function extraWords(): i32 { return EXTRA_WORDS; }
export function profilePointer(): usize { return PROFILE; }
export function weightsPointer(): usize { return WEIGHTS; }
export function resultsPointer(): usize { return RESULTS; }
export function valuesPointer(): usize { return VALUES; }
export function scalesPointer(): usize { return SCALES; }
export function epsilonsPointer(): usize { return EPSILONS; }
export function shapesPointer(): usize { return SHAPES; }
export function randomPointer(): usize { return RANDOM; }
export function extraPointer(): usize { return EXTRA; }
export function streamPointer(): usize { return STREAM; }
export function exactPointer(): usize { return EXACT; }
/** Where the caller's vectors start (memory.ts). */
export function heapStart(): usize { return HEAP; }
