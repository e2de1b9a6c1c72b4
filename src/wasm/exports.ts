// What the WebAssembly module exports (assembly/index.ts), mirrored by hand: test/wasm/loader.test.ts
// checks every name and parameter count here against the exports of both builds.

/** The module's exports (assembly/index.ts): numbers and pointers only. */
export interface WasmExports {
  readonly memory: WebAssembly.Memory;
  /** 1 for the build compiled with WebAssembly SIMD, 0 for the scalar one. */
  hasSimd(): number;
  /** AssemblyScript's exp, log, expm1 and pow: the same results on every engine (assembly/math/elementary.ts). */
  exp(x: number): number;
  log(x: number): number;
  expm1(x: number): number;
  pow(x: number, y: number): number;
  erfc(x: number): number;
  normalSf(x: number): number;
  normalLogSf(x: number): number;
  normalIsf(p: number): number;
  logGamma(x: number): number;
  gaussianDelta(mu: number, epsilon: number): number;
  gaussianLogDelta(mu: number, epsilon: number): number;
  gaussianMu(epsilon: number, delta: number): number;
  gaussianEpsilon(mu: number, delta: number): number;
  zcdpDelta(rho: number, epsilon: number): number;
  zcdpEpsilon(rho: number, delta: number): number;
  zcdpMu(epsilon: number, delta: number, upper: number): number;
  /** The accountant's working memory (assembly/accounting/arena.ts): `bytes` bytes from the returned pointer (0: memory could not grow). */
  arena(bytes: number): number;
  /** FFT convolution (assembly/accounting/fft.ts); `work` holds 2n doubles, n a power of two >= the result's length; `tw` the twiddles of size m >= n. */
  convolve(a: number, na: number, b: number, nb: number, out: number, work: number, n: number, tw: number, m: number): void;
  square(a: number, na: number, out: number, work: number, n: number, tw: number, m: number): void;
  /** The times-fold circular self-convolution of a, period n; with `sums` (not 0) the error bound's two frequency sums written there. */
  power(
    a: number,
    na: number,
    times: number,
    out: number,
    outLength: number,
    work: number,
    n: number,
    tw: number,
    m: number,
    slack: number,
    sums: number,
  ): void;
  /** The product of several real sequences' spectra, period n (productStart, a productStep per factor, productEnd: the circular convolution and the error bound's sums). */
  productStart(spectrum: number, moduli: number, slopes: number, n: number): void;
  productStep(a: number, na: number, n: number, work: number, tw: number, m: number, slack: number, spectrum: number, moduli: number, slopes: number): void;
  productEnd(spectrum: number, moduli: number, slopes: number, out: number, n: number, work: number, tw: number, m: number, sums: number): void;
  twiddles(tw: number, n: number): void;
  /** ln of the moment generating function of the n masses at x (plus an l1 error e1) at `count` rates of one sign, upper bounds (assembly/accounting/moments.ts). */
  logMoments(x: number, n: number, e1: number, rates: number, count: number, out: number): void;
  /**
   * Privacy-loss distributions (assembly/accounting/pld.ts): kind 0 Gaussian (parameter mu), 1 Laplace and 2 randomized
   * response (epsilon0), 3 discrete Laplace (scale t, `extra` the sensitivity d); direction 0 remove, 1 add.
   */
  hockeyDelta(kind: number, parameter: number, extra: number, rate: number, direction: number, epsilon: number): number;
  subsampledGrid(rate: number, direction: number, lower: number, h: number, n: number, losses: number, factors: number, directs: number): void;
  gridDeltas(kind: number, parameter: number, extra: number, losses: number, factors: number, directs: number, n: number, deltas: number): void;
  connectDots(h: number, n: number, deltas: number, probs: number): number;
  floorBins(
    kind: number,
    parameter: number,
    extra: number,
    rate: number,
    direction: number,
    lower: number,
    h: number,
    tilt: number,
    n: number,
    intoP: number,
    intoQ: number,
  ): void;
  floorDelta(massP: number, massQ: number, n: number, lower: number, h: number, tilt: number, errorP: number, errorQ: number, epsilon: number): number;
  floorEpsilon(massP: number, massQ: number, n: number, lower: number, h: number, tilt: number, errorP: number, errorQ: number, delta: number): number;
  pldDelta(probs: number, n: number, lower: number, h: number, infinity: number, slack: number, epsilon: number): number;
  pldEpsilon(probs: number, n: number, lower: number, h: number, infinity: number, slack: number, delta: number): number;
  /** Random allocation (assembly/accounting/allocation.ts): masses of e^D, D ~ N(mean, sd^2), on a grid of step g. */
  lognormalGrid(mean: number, sd: number, g: number, n: number, up: boolean, widen: number, into: number): number;
  lognormalMass(mean: number, sd: number, a: number, b: number): number;
  profileMoments(n: number): void;
  powerSums(n: number, weighted: boolean, a1: number, b1: number, a2: number, b2: number, a3: number, b3: number): void;
  fillScales(n: number, weighted: boolean, alpha: number, gamma: number, c: number): void;
  seededWords(first: number, count: number): void;
  useSeededExtras(): void;
  usePoolExtras(count: number): void;
  resumePoolExtras(): void;
  /** Zeroes the scratch a call leaves that depends on its words or values (the first n chunk entries, used pool words; after a discrete draw the exact and batch state; assembly/noise/random.ts). */
  scrub(n: number, discrete: boolean): void;
  /** The next extra word of the coordinate being drawn (a signed i64 as a bigint), for the exact path. */
  exactWord(): bigint;
  /** E|X|^p of the staircase of sensitivity 1 (assembly/calibrate/staircase.ts). */
  staircaseMoment(p: number, gamma: number, epsilon: number): number;
  /** The optimal split's budgets for log nu over n log weights in PROFILE (into WEIGHTS when `write`); their sum. */
  staircaseSplit(n: number, logNu: number, write: boolean): number;
  /** Shapes into WEIGHTS and moments in place of the n budgets in PROFILE. */
  staircaseShapes(n: number, p: number): void;
  /** The staircase table's budgets (log eps = first + t step) and its columns: log(-V_p'), best shape. */
  staircaseTableGrid(first: number, step: number): void;
  staircaseSlopePointer(): number;
  staircaseShapePointer(): number;
  /** flags: PER_COORDINATE | ADD (assembly/noise/samplers.ts); `shared` is added to every coordinate; noise written at `into`, values read at `from`, scales at `scales`. */
  gaussianSamples(first: number, n: number, flags: number, scale: number, shared: number, into: number, from: number, scales: number): void;
  laplaceSamples(first: number, n: number, flags: number, scale: number, shared: number, into: number, from: number, scales: number): void;
  /** Values rounded to `grid` (ADD), exact integer noise added, scaled back by `grid`; values read at `from`, scales at `scales`, output written at `into` (scratch chunks or a caller's vectors, copied within the module). */
  discreteGaussianSamples(first: number, n: number, flags: number, scale: number, grid: number, into: number, from: number, scales: number): void;
  discreteLaplaceSamples(first: number, n: number, flags: number, scale: number, grid: number, into: number, from: number, scales: number): void;
  /** Exact discrete staircase noise in grid steps: steps D (SCALES), discrete Laplace scales t = 1/eps (EPSILONS), high parts r (SHAPES). */
  discreteStaircaseSamples(first: number, n: number, flags: number, scale: number, grid: number): void;
  /** Staircase noise with per-coordinate step widths (SCALES), budgets (EPSILONS) and shapes (SHAPES); flags: ADD. */
  staircaseSamples(first: number, n: number, flags: number): void;
  /** Radii of the joint staircase in `dimension` dimensions (in step widths), budgets in EPSILONS and shapes in SHAPES. */
  staircaseRadiusSamples(first: number, n: number, flags: number, dimension: number): void;
  /** The samplers' flags (assembly/noise/samplers.ts, discrete.ts): one scale per coordinate, add to the values, the same work for every output. */
  flagPerCoordinate(): number;
  flagAdd(): number;
  /** Tests: every discrete draw through the exact path. */
  setExactOnly(on: boolean): void;
  /** -ln(u 2^-63) for 1 <= u < 2^63, as the discrete Laplace inversion computes it (tests). */
  minusLogUniformOf(u: bigint): number;
  /** minusLogUniformOf as the SIMD build's lanes compute it, from u rounded to a double (tests). */
  minusLogUniformPairOf(u: bigint): number;
  /** Correlated sums on the grid, a chunk: the sums in SCALES and the noise just drawn in VALUES; the release to SCALES; 1, or 0 when a term is beyond 2^52. */
  correlatedRelease(n: number, s: number, cg: number, z: number, inverseGrid: number, outputGrid: number): number;
  /** The index of the first of the n doubles at `start` outside [min, max] (0 allowed when `zero`; NaN never), or -1. */
  firstOutside(start: number, n: number, min: number, max: number, zero: boolean): number;
  /** Holds `bytes` bytes from heapStart() for the caller's vectors, growing memory as needed (assembly/memory.ts); 0, nothing changed, if it cannot grow. */
  reserveVectors(bytes: number): number;
  /** Where the caller's vectors start. */
  heapStart(): number;
  /** exp(-x) as the SIMD build's lanes compute it, by the small-x polynomial if `small` (tests; Math.exp(-x) in the scalar build). */
  expMinusPairOf(x: number, small: boolean): number;
  /** The cell draws' table of a discrete Gaussian variance parameter, or -1 outside their range. */
  cellTableOf(scale: number): number;
  /** A cell table's column splits (128 i32: threshold << 8 | alias), entry factors (128 f64: S / H_e, the tail's 2^19 / H_tail) and S. */
  cellSplitsPointer(table: number): number;
  cellFactorsPointer(table: number): number;
  cellSize(table: number): number;
  chunkLength(): number;
  sampleChunkLength(): number;
  extraWords(): number;
  valuesPointer(): number;
  scalesPointer(): number;
  epsilonsPointer(): number;
  shapesPointer(): number;
  randomPointer(): number;
  extraPointer(): number;
  streamPointer(): number;
  exactPointer(): number;
  profilePointer(): number;
  weightsPointer(): number;
  resultsPointer(): number;
}
