// Benchmark group "Calibration": mu0(eps, delta) per call, and per-coordinate allocations.
//
// dpnoise is the built package (import 'dpnoise' resolves to dist/). Baselines in the same run:
// bench/baseline.mjs (pure JavaScript, same mathematics, no WebAssembly), SciPy/NumPy through
// bench/python_baseline.py (one spawn for the whole group), and, for allocations, the floor
// "just write the output array": new Float64Array(K) filled with c * lambda_i.
import { calibrateGaussian, calibrateLaplace, gaussianMu } from 'dpnoise';
import * as baseline from './baseline.mjs';
import { fmt, fmtK, NONE, times } from './format.mjs';

export const title = 'Calibration';

const EPSILONS = [0.1, 0.5, 1, 4];
const DELTAS = [1e-5, 1e-10];
const PAIRS = EPSILONS.flatMap((eps) => DELTAS.map((delta) => [eps, delta]));
/** Each pair is run with eps * (1 + k 1e-7), k = 0..31, so no two calls see the same input. */
const JITTER = Array.from({ length: 32 }, (_, k) => 1 + k * 1e-7);

const KS = [1e3, 1e6, 1e7];
/** Privacy level of the allocation benchmarks; eps is jittered per call like above. */
const ALLOC_EPS = 1;
const ALLOC_DELTA = 1e-6;
const ALLOC_AIM = 3; // dpnoise p = 2 Gaussian allocation within 3x of writing the output array
const MU_AIM_US = 5;

/** lambda_i = 1/(1 + i % 1000): non-uniform, 1000 distinct values, no zeros. */
function profile(K) {
  const lambda = new Float64Array(K);
  for (let i = 0; i < K; i++) lambda[i] = 1 / (1 + (i % 1000));
  return lambda;
}

/**
 * The floor for any allocation: allocate the output and write one computed value per coordinate.
 * A top-level function (not a closure per K), so its optimised code never depends on one closure.
 */
function writeScaled(lambda, c) {
  const out = new Float64Array(lambda.length);
  for (let i = 0; i < lambda.length; i++) out[i] = c * lambda[i];
  return out;
}

/** Weights w_i = 0.5 + (i % 10) / 10 for the weighted case. */
function weightsFor(K) {
  const w = new Float64Array(K);
  for (let i = 0; i < K; i++) w[i] = 0.5 + (i % 10) / 10;
  return w;
}

/** 1e-5 rather than 0.00001. */
const sci = (x) => x.toExponential();

function jittered(pairs) {
  return pairs.flatMap(([eps, delta]) => JITTER.map((f) => [eps * f, delta]));
}

/** mu0 implementations timed (interleaved) over every input, in microseconds per call. */
function timeMu(ctx, impls, inputs, seconds) {
  const fns = impls.map((mu0) => () => {
    let s = 0;
    for (let i = 0; i < inputs.length; i++) s += mu0(inputs[i][0], inputs[i][1]);
    return s;
  });
  return ctx.measureEach(fns, { units: inputs.length, seconds }).map((r) => r.perUnit * 1e6);
}

function maxRelativeDifference(values, reference) {
  let worst = 0;
  values.forEach((v, i) => {
    worst = Math.max(worst, Math.abs(v / reference[i] - 1));
  });
  return worst;
}

/** The allocation cases: [label, (lambda, weights, eps) => scales]. The first is the main one. */
const CASES = [
  ['Gaussian optimal p=2', (sensitivity, _w, epsilon) => calibrateGaussian({ sensitivity, epsilon, delta: ALLOC_DELTA }).scales],
  ['Gaussian iid', (sensitivity, _w, epsilon) => calibrateGaussian({ sensitivity, epsilon, delta: ALLOC_DELTA, allocation: 'iid' }).scales],
  ['Gaussian spr', (sensitivity, _w, epsilon) => calibrateGaussian({ sensitivity, epsilon, delta: ALLOC_DELTA, allocation: 'spr' }).scales],
  ['Gaussian optimal p=1', (sensitivity, _w, epsilon) => calibrateGaussian({ sensitivity, epsilon, delta: ALLOC_DELTA, errorPower: 1 }).scales],
  ['Gaussian optimal p=2, weighted', (sensitivity, weights, epsilon) => calibrateGaussian({ sensitivity, weights, epsilon, delta: ALLOC_DELTA }).scales],
  ['Laplace optimal p=2', (sensitivity, _w, epsilon) => calibrateLaplace({ sensitivity, epsilon }).scales],
  ['Laplace optimal p=1', (sensitivity, _w, epsilon) => calibrateLaplace({ sensitivity, epsilon, errorPower: 1 }).scales],
];

/** A call-counting wrapper that gives every call a slightly different epsilon. */
function withEpsilon(f) {
  let call = 0;
  return () => f(ALLOC_EPS * (1 + (call++ % 64) * 1e-9));
}

export async function run(ctx) {
  // --- SciPy / NumPy: one synchronous python3 process for the whole group, run before the
  // JavaScript timings so the two never compete for the machine ---
  ctx.log('  python baselines ...');
  const py = ctx.python({
    seconds: 0.5,
    tasks: [
      { id: 'mu-stats', kind: 'gaussianMu', impl: 'stats', pairs: PAIRS, jitter: JITTER.slice(0, 8) },
      { id: 'mu-special', kind: 'gaussianMu', impl: 'special', pairs: PAIRS, jitter: JITTER },
      ...PAIRS.map((pair, i) => ({ id: `mu-stats-${i}`, kind: 'gaussianMu', impl: 'stats', pairs: [pair], jitter: JITTER.slice(0, 8), seconds: 0.3 })),
      ...PAIRS.map((pair, i) => ({ id: `mu-special-${i}`, kind: 'gaussianMu', impl: 'special', pairs: [pair], jitter: JITTER, seconds: 0.3 })),
      { id: 'alloc', kind: 'allocation', Ks: KS, eps: ALLOC_EPS, delta: ALLOC_DELTA },
    ],
  });
  const pyResult = (id) => (py.available ? py.results[id] : undefined);

  // --- mu0 per call ---
  ctx.log('  gaussianMu ...');
  const all = jittered(PAIRS);
  const muRows = [];
  const [dpAll, jsAll] = timeMu(ctx, [gaussianMu, baseline.gaussianMu], all, 0.6);
  const row = (label, dp, js, stats, special) => [label, fmt(dp), fmt(js), times(js, dp), fmt(stats), times(stats, dp), fmt(special), times(special, dp)];
  muRows.push(row('**all 8 pairs**', dpAll, jsAll, pyResult('mu-stats')?.us, pyResult('mu-special')?.us));
  PAIRS.forEach((pair, i) => {
    const inputs = jittered([pair]);
    const [dp, js] = timeMu(ctx, [gaussianMu, baseline.gaussianMu], inputs, 0.3);
    muRows.push(row(`eps ${pair[0]}, delta ${sci(pair[1])}`, dp, js, pyResult(`mu-stats-${i}`)?.us, pyResult(`mu-special-${i}`)?.us));
  });
  const dpMu = PAIRS.map(([e, d]) => gaussianMu(e, d));
  const agreement = [
    `pure JS mu0 within ${maxRelativeDifference(
      PAIRS.map(([e, d]) => baseline.gaussianMu(e, d)),
      dpMu,
    ).toExponential(1)} relative of dpnoise`,
  ];
  if (py.available) {
    agreement.push(`SciPy (stats) within ${maxRelativeDifference(pyResult('mu-stats').mu0, dpMu).toExponential(1)}`);
    agreement.push(`SciPy (special) within ${maxRelativeDifference(pyResult('mu-special').mu0, dpMu).toExponential(1)}`);
  }

  // --- allocations ---
  const byCase = CASES.map(() => []);
  const pyAlloc = pyResult('alloc');
  const aim = []; // [K, dpnoise / write] for the main case
  let perCallK1 = 0; // microseconds per p = 2 call at the smallest K
  for (const K of KS) {
    ctx.log(`  allocations, K = ${fmtK(K)} ...`);
    const lambda = profile(K);
    const weights = weightsFor(K);
    const write = (eps) => writeScaled(lambda, eps * 0.5);
    const js = (eps) => baseline.calibrateGaussianOptimal(lambda, eps, ALLOC_DELTA);
    const cases = CASES.map(
      ([, f]) =>
        (eps) =>
          f(lambda, weights, eps),
    );
    // All of them interleaved, so the (bimodal) cost of fresh large arrays hits them alike.
    const timings = ctx.measureEach([write, js, ...cases].map(withEpsilon), { units: K, seconds: K >= 1e7 ? 0.7 : 0.5, batches: 9 });
    const noisy = timings.findIndex((r) => r.spread > 1);
    if (noisy >= 0) ctx.log(`  (noisy: ${['write', 'pure JS', ...CASES.map(([l]) => l)][noisy]} at K = ${fmtK(K)}, spread ${fmt(timings[noisy].spread)})`);
    const [writeNs, jsNs, ...dpNs] = timings.map((r) => r.perUnit * 1e9);
    const numpy = pyAlloc?.find((r) => r.K === K)?.ns;

    CASES.forEach(([label], index) => {
      const dp = dpNs[index];
      const main = index === 0;
      if (main) aim.push([K, dp / writeNs]);
      if (main && K === KS[0]) perCallK1 = (dp * K) / 1e3;
      byCase[index].push([
        main ? `**${label}**` : label,
        fmtK(K),
        fmt(dp),
        fmt(writeNs),
        times(dp, writeNs),
        main ? fmt(jsNs) : NONE,
        main ? times(jsNs, dp) : NONE,
        main ? fmt(numpy) : NONE,
        main ? times(numpy, dp) : NONE,
      ]);
    });

    if (K === KS[0]) {
      // the baseline computes the same scales (dpnoise adds a 2^-36 safety margin)
      const a = CASES[0][1](lambda, weights, ALLOC_EPS);
      const b = baseline.calibrateGaussianOptimal(lambda, ALLOC_EPS, ALLOC_DELTA);
      ctx.check(maxRelativeDifference(b, a) < 1e-9, 'pure-JS p=2 allocation differs from dpnoise');
    }
  }
  const allocRows = byCase.flat();

  const numpyFloor = pyAlloc
    ? `NumPy's own floor (\`lam * c\`, a fresh array): ${pyAlloc.map((r) => `${fmt(r.floorNs)}`).join(', ')} ns/coord at K = ${KS.map(fmtK).join(', ')}. ` +
      `NumPy asks for transparent huge pages on large arrays, V8's ArrayBuffers are page-faulted in 4 KiB at a time, ` +
      `which likely explains most of the JavaScript write floor at K = 1e7 (THP mode here: ${ctx.thp ?? 'unknown'}).`
    : undefined;
  const stats = pyResult('mu-stats');
  const special = pyResult('mu-special');
  const pyNote = py.available
    ? `Where SciPy's time goes: a brentq solve makes about ${fmt(stats.evaluations)} delta evaluations (2 Q calls each), ` +
      `and one scalar \`scipy.stats.norm.sf\` call costs ${fmt(stats.sfUs)} µs (\`scipy.special.ndtr\`: ${fmt(special.sfUs)} µs), ` +
      `so the stats version is almost all per-call overhead of scipy.stats.`
    : `SciPy baseline n/a (${py.reason}).`;
  return [
    {
      heading: 'gaussianMu(eps, delta): microseconds per call',
      text:
        `Warm calls over eps in {${EPSILONS.join(', ')}} x delta in {${DELTAS.map(sci).join(', ')}}, each eps jittered ` +
        `(eps * (1 + k 1e-7), 32 values of k; 8 for SciPy stats, which is slow) so no call repeats an input. ` +
        `Ratios are baseline time / dpnoise time (how many times faster dpnoise is). ` +
        `*Pure JS*: bench/baseline.mjs, Cody erfc + bisection on 1/mu (Algorithm 1) to 1e-12. ` +
        `*SciPy stats*: scipy.stats.norm.sf/isf + brentq (rtol 1e-13), the typical Python code; ` +
        `*SciPy special*: the same with scipy.special.ndtr/ndtri. Aim: dpnoise under ${MU_AIM_US} µs.`,
      columns: ['(eps, delta)', 'dpnoise µs', 'pure JS µs', 'JS ÷ dpnoise', 'SciPy stats µs', 'stats ÷ dpnoise', 'SciPy special µs', 'special ÷ dpnoise'],
      rows: muRows,
      notes: [
        `Aim (< ${MU_AIM_US} µs per call, mean over the 8 pairs): ${dpAll < MU_AIM_US ? 'met' : 'NOT met'} (${fmt(dpAll)} µs).`,
        `Agreement: ${agreement.join('; ')}.`,
        pyNote,
      ],
    },
    {
      heading: 'Allocations: nanoseconds per coordinate',
      text:
        `The whole calibrate call (validation, mu0, sums, output array) for lambda_i = 1/(1 + i % 1000), ` +
        `eps = ${ALLOC_EPS} (jittered per call), delta = ${sci(ALLOC_DELTA)}; weighted: w_i = 0.5 + (i % 10)/10. ` +
        `*write*: \`new Float64Array(K)\` filled with \`c * lambda[i]\`, the floor for any allocation. ` +
        `*pure JS*: bench/baseline.mjs (mu0 by bisection, then sqrt(Delta_1 lambda_i) / mu0 in a loop); ` +
        `*NumPy*: \`np.sqrt(lam.sum() * lam) / mu0\` with the SciPy-stats mu0. ` +
        `Baselines only for the main case (p = 2 Gaussian optimal).`,
      columns: ['case', 'K', 'dpnoise ns/coord', 'write ns/coord', 'dpnoise ÷ write', 'pure JS ns/coord', 'JS ÷ dpnoise', 'NumPy ns/coord', 'NumPy ÷ dpnoise'],
      rows: allocRows,
      notes: [
        `Aim (p = 2 Gaussian optimal within ${ALLOC_AIM}× of writing the output array): ` +
          aim.map(([K, r]) => `K = ${fmtK(K)} ${r <= ALLOC_AIM ? 'met' : 'NOT met'} (${fmt(r)}×)`).join(', ') +
          '.',
        `At K = ${fmtK(KS[0])} a p = 2 call takes ${fmt(perCallK1)} µs in all, of which mu0 is about ${fmt(dpAll)} µs ` +
          `(table above); argument checks, the result object and allocating the array make up much of the rest.`,
        ...(numpyFloor ? [numpyFloor] : []),
        `The write floor is bimodal for K >= 1e6 (a fresh array is sometimes page-faulted in anew, sometimes reused ` +
          `from memory malloc kept), and the batches of all columns are interleaved so they see the same mix; ` +
          `still, expect ratios at K >= 1e6 to move by a few tens of percent between runs.`,
      ],
    },
  ];
}
