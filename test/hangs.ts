// Calls at the extremes of every public number's accepted range, for the tests that no call hangs
// (fuzz.test.ts runs the quick grid, fuzz.long.test.ts the full one), and the check they share.
import * as dpnoise from '../src/index.js';

/**
 * The most CPU time one call may take. The accountant's work per call is budgeted (2^24 grid
 * points of distributions, about a second here: src/engine/accountant.ts, CALL_WORK); the
 * sums over those distributions come on top.
 */
export const LIMIT_MS = 5000;

type Call = [what: string, call: () => unknown];

/**
 * Each call's CPU time (the process's, not the wall clock, which other processes on a busy
 * machine stretch) and what it gave: a number >= 0 or a range 0 <= lower <= upper (Infinity
 * allowed: no privacy claimed), or the library's TypeError or RangeError. The calls that took
 * more than LIMIT_MS and those that gave anything else.
 */
export function slowOrWrong(calls: readonly Call[]): { slow: string[]; wrong: string[] } {
  const slow: string[] = [];
  const wrong: string[] = [];
  for (const [what, call] of calls) {
    const start = process.cpuUsage();
    try {
      const x = call();
      const range = x as { lower: number; upper: number };
      if (typeof x === 'number' ? !(x >= 0) : !(range.lower >= 0 && range.upper >= range.lower)) wrong.push(`${what}: ${JSON.stringify(x)}`);
    } catch (error) {
      if (!(error instanceof RangeError || error instanceof TypeError) || !String(error.message).startsWith('dpnoise: '))
        wrong.push(`${what}: ${String(error)}`);
    }
    const { user, system } = process.cpuUsage(start);
    const elapsed = (user + system) / 1000;
    if (elapsed > LIMIT_MS) slow.push(`${what}: ${Math.round(elapsed)} ms`);
  }
  return { slow, wrong };
}

/** The groups of calls, each named: the full grid, or its quick corner (the extremes only). */
export function hangCases(size: 'quick' | 'full'): Array<[string, Call[]]> {
  const full = size === 'full';
  /** The full list, or its quick part. */
  const pick = <T>(all: T[], quick: T[]) => (full ? all : quick);
  const DELTAS = pick([1e-300, 1e-100, 1e-10, 0.1, 0.5], [1e-300, 0.5]);
  const EPSILONS = pick([0, 1e-10, 1, 100, 1e4], [0, 1e4]);
  const RATES = pick([1e-300, 1e-10, 1e-3, 0.5, 1], [1e-300, 1]);
  /** Privacy losses sensitivity / scale across their range: scales and sensitivities from 2^-400 to 2^400 give 2^-800 to 2^800. */
  const RATIOS = pick([2 ** -800, 1e-100, 1e-10, 1e-3, 1, 10, 1e3, 1e4, 1e5, 1e10, 1e100, 2 ** 800], [2 ** -800, 1e-10, 1, 1e4, 2 ** 800]);
  const SIZES = pick([2 ** -400, 1, 2 ** 400], [2 ** -400, 2 ** 400]);

  /** epsilon at every delta, delta at every epsilon and bounds at every delta, each on a privacy object made afresh (nothing cached). */
  const curves = (what: string, make: () => dpnoise.Privacy): Call[] => [
    ...DELTAS.map((d): Call => [`${what}: epsilon(${d})`, () => make().epsilon(d)]),
    ...EPSILONS.map((e): Call => [`${what}: delta(${e})`, () => make().delta(e)]),
    ...DELTAS.map((d): Call => [`${what}: bounds(${d})`, () => make().bounds(d)]),
  ];
  /** A scale and a sensitivity within 2^-400 to 2^400 whose ratio is `ratio`. */
  const pair = (ratio: number) => (ratio >= 1 ? { scale: 2 ** -400, sensitivity: 2 ** -400 * ratio } : { scale: 2 ** 400, sensitivity: 2 ** 400 * ratio });

  // The calls of issue 47 of the tracker, each once never returning (mu below 1e-40 at a delta below delta(0)).
  const reported: Call[] = (
    [
      [1, 1e-50, 1e-300],
      [1, 1e-100, 1e-300],
      [1, 1e-60, 1e-100],
      [1, 1e-40, 1e-60],
      [1e50, 1e-120, 1e-180],
    ] as const
  ).map(([scale, sensitivity, delta]) => [
    `gaussian scale ${scale} sensitivity ${sensitivity}: epsilon(${delta})`,
    () => dpnoise.gaussianPrivacy({ scales: [scale], sensitivity: [sensitivity] }).epsilon(delta),
  ]);

  const privacyObjects: Call[] = [];
  for (const ratio of RATIOS) {
    const { scale, sensitivity } = pair(ratio);
    for (const [family, make] of [
      ['gaussian', dpnoise.gaussianPrivacy],
      ['laplace', dpnoise.laplacePrivacy],
    ] as const) {
      privacyObjects.push(...curves(`${family} scale ${scale} sensitivity ${sensitivity}`, () => make({ scales: [scale], sensitivity: [sensitivity] })));
      privacyObjects.push(
        ...curves(`${family} scales ${scale}, 2 x ${scale}`, () => make({ scales: [scale, 2 * scale], sensitivity: [sensitivity, sensitivity] })),
      );
    }
    // A thousand Laplace coordinates of three scales: the accountant composes their pairs (the
    // full grid only: at the extremes each call takes its whole work budget, about 2 s).
    if (!full) continue;
    const scales = Array.from({ length: 1000 }, (_, i) => scale * (1 + (i % 3)));
    privacyObjects.push(
      ...curves(`laplace 1000 coordinates, scale ${scale} sensitivity ${sensitivity}`, () =>
        dpnoise.laplacePrivacy({ scales, sensitivity: scales.map(() => sensitivity) }),
      ),
    );
  }

  const calibrations: Call[] = [];
  for (const epsilon of pick([1e-10, 1e-3, 1, 100, 1e3, 1e4], [1e-10, 1e4]))
    for (const sensitivity of SIZES) {
      const two = [sensitivity, sensitivity / 2];
      for (const delta of DELTAS) {
        const options = { epsilon, delta, sensitivity: two };
        calibrations.push([`calibrateGaussian ${JSON.stringify(options)}`, () => dpnoise.calibrateGaussian(options).scales[0]]);
        calibrations.push([`calibrateLaplace ${JSON.stringify(options)}`, () => dpnoise.calibrateLaplace(options).scales[0]]);
        const hundred = { epsilon, delta, sensitivity: new Array(100).fill(sensitivity) };
        calibrations.push([`calibrateLaplace 100 coordinates ${epsilon} ${delta} ${sensitivity}`, () => dpnoise.calibrateLaplace(hundred).scales[0]]);
      }
      calibrations.push([`calibrateLaplace ${epsilon} ${sensitivity}`, () => dpnoise.calibrateLaplace({ epsilon, sensitivity: two }).scales[0]]);
      for (const errorPower of pick([1, 2, 8], [1, 8])) {
        calibrations.push([
          `calibrateStaircase ${epsilon} ${sensitivity} p ${errorPower}`,
          () => dpnoise.calibrateStaircase({ epsilon, errorPower, sensitivity: two }).error,
        ]);
        const many = new Array(1000).fill(sensitivity);
        calibrations.push([
          `calibrateStaircase 1000 coordinates ${epsilon} ${sensitivity} p ${errorPower}`,
          () => dpnoise.calibrateStaircase({ epsilon, errorPower, sensitivity: many }).error,
        ]);
      }
      for (const mode of ['grid', 'continuous'] as const) {
        calibrations.push(
          ...curves(`staircaseMechanism ${mode} ${epsilon} ${sensitivity}`, () => dpnoise.staircaseMechanism({ epsilon, sensitivity: two, mode }).privacy),
        );
        // The mechanisms' certified ranges: at the extremes each takes its whole work budget (the full grid only).
        if (!full) continue;
        for (const delta of DELTAS) {
          const options = { epsilon, delta, sensitivity: two, mode };
          calibrations.push([`gaussianMechanism ${JSON.stringify(options)}: bounds`, () => dpnoise.gaussianMechanism(options).privacy.bounds(delta)]);
          calibrations.push([`laplaceMechanism ${JSON.stringify(options)}: bounds`, () => dpnoise.laplaceMechanism(options).privacy.bounds(delta)]);
        }
      }
    }

  const sampling: Call[] = [];
  const gaussian = (scale: number) => dpnoise.gaussianPrivacy({ scales: [scale], sensitivity: [1] });
  const laplace = (scale: number) => dpnoise.laplacePrivacy({ scales: [scale], sensitivity: [1] });
  for (const scale of pick([2 ** -400, 1e-3, 0.1, 1, 10, 2 ** 400], [2 ** -400, 0.1, 2 ** 400])) {
    for (const rate of RATES) {
      sampling.push(...curves(`subsample gaussian scale ${scale} rate ${rate}`, () => dpnoise.subsample(gaussian(scale), { rate })));
      sampling.push(...curves(`subsample laplace scale ${scale} rate ${rate}`, () => dpnoise.subsample(laplace(scale), { rate })));
    }
    for (const times of pick([1, 1000, 2 ** 20, 2 ** 53 - 1], [2 ** 53 - 1])) {
      const step = () => dpnoise.subsample(gaussian(scale), { rate: 0.01 });
      sampling.push(...curves(`compose ${times} subsampled gaussian scale ${scale}`, () => dpnoise.compose([{ privacy: step(), times }])));
      sampling.push(
        ...curves(`compose ${times} laplace and a gaussian, scale ${scale}`, () => dpnoise.compose([{ privacy: laplace(scale), times }, gaussian(scale)])),
      );
    }
    for (const steps of pick([2, 1000, 2 ** 53 - 1], [2 ** 53 - 1])) {
      sampling.push(...curves(`randomAllocation gaussian scale ${scale} steps ${steps}`, () => dpnoise.randomAllocation(gaussian(scale), { steps })));
      sampling.push(...curves(`subsample gaussian scale ${scale} 1 of ${steps}`, () => dpnoise.subsample(gaussian(scale), { size: 1, population: steps })));
    }
  }

  const dpsgd: Call[] = [];
  for (const noise of ['gaussian', 'laplace'] as const)
    for (const epsilon of pick([1e-3, 1, 1e4], [1e-3, 1e4]))
      for (const delta of DELTAS)
        for (const rate of pick([1e-300, 1e-3, 1], [1e-300, 1]))
          for (const steps of pick([1, 1000, 1e9], [1e9])) {
            const options = { layerSizes: [10, 20], clipNorms: [1, 2], batch: { rate }, steps, epsilon, delta, noise };
            dpsgd.push([`dpsgd ${JSON.stringify(options)}`, () => dpnoise.dpsgd(options).noiseMultiplier]);
          }

  return [
    ['the calls reported never to return', reported],
    ['Gaussian and Laplace privacy objects: scales and sensitivities from 2^-400 to 2^400, one coordinate, two and (full grid) a thousand', privacyObjects],
    [
      "calibrations (Gaussian, Laplace with and without delta, the staircase) and the mechanisms' privacy (full grid: its ranges), epsilon up to 1e4",
      calibrations,
    ],
    ['subsampling, composition and random allocation: rates from 1e-300 to 1, up to 2^53 - 1 releases', sampling],
    ['dpsgd: rates from 1e-300 to 1, up to 1e9 steps, epsilon up to 1e4', dpsgd],
  ];
}
