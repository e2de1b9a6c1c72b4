// Benchmark group "In-place vectors" (issue 46 §3): noise drawn into vectors that live in the
// WebAssembly module's memory (wasmVector), against the same calls on Float64Arrays and against
// NumPy writing into a preallocated buffer, in one run; and the mechanisms' default grid release
// against continuous on the same vectors.
//
// dpnoise is the built package (import 'dpnoise' resolves to dist/). Baselines in the same run:
//   - the same dpnoise call on Float64Arrays (the copies in and out of the module that the
//     vectors avoid);
//   - NumPy (bench/python_baseline.py, kind inPlace; one spawn, before the JavaScript timings so the
//     two never compete): standard_normal(out=buf) and the scaling (buf *= s, or np.multiply by
//     the per-coordinate scales into buf); for Laplace, which has no out=, laplace(0, s).
// At each K all JavaScript cases of a table are timed in one interleaved measureEach.
import { availableParallelism, loadavg } from 'node:os';
import { createRng, gaussianMechanism, gaussianNoiseInto, laplaceMechanism, laplaceNoiseInto, wasmVector } from 'dpnoise';
import { fmt, fmtK, NA, times } from './format.mjs';

export const title = 'In-place vectors';

const KS = [1e6, 1e7];
const BIG = 1e7;
const SCALE = 1.5;
const SEED = 20240601;
/** Issue 46 §3's aims: at K = 1e7, per-coordinate Gaussian noise at least 3x NumPy's out= plus scaling; grid within 1.5x continuous on the same vectors. */
const NUMPY_AIM = 3;
const GRID_AIM = 1.5;
const ROUNDS = 3;
const TIMING = { 1e6: { seconds: 0.4, batches: 7 }, 1e7: { seconds: 0.3, batches: 7, warmup: 0.05 } };
const RELEASE_TIMING = { 1e6: { seconds: 0.4, batches: 7 }, 1e7: { seconds: 0.6, batches: 5, warmup: 0.05 } };

const perCoordinate = (K) => Float64Array.from({ length: K }, (_, i) => 0.5 + (i % 10) / 10);
const sensitivity = (K) => Float64Array.from({ length: K }, (_, i) => 1 / (1 + (i % 100)));

const DISTRIBUTIONS = [
  { name: 'Gaussian', into: gaussianNoiseInto, numpy: { one: 'normalOutScaled', 'per-coord': 'normalOutScales' } },
  { name: 'Laplace', into: laplaceNoiseInto, numpy: { one: 'laplaceScaled', 'per-coord': 'laplaceScales' } },
];
const NUMPY_LABEL = {
  normalOutScaled: '`standard_normal(out=buf)`; `buf *= s`',
  normalOutScales: '`standard_normal(out=buf)`; `np.multiply(buf, scales, out=buf)`',
  laplaceScaled: '`laplace(0, s, K)` (no `out=`)',
  laplaceScales: '`laplace(0, scales)` (no `out=`)',
};
const SOURCES = [
  { name: 'CSPRNG', options: () => ({ rng: createRng() }) },
  { name: 'seeded', options: () => ({ rng: createRng({ seed: SEED }) }) },
];
const SCALINGS = ['one', 'per-coord'];

/** Checks that the vector calls draw what the array calls draw (seeded), so the two rows time the same noise. */
function sameNoise(ctx) {
  const K = 20_000;
  const scales = perCoordinate(K);
  const v = wasmVector(K);
  const s = wasmVector(K);
  s.values.set(scales);
  for (const d of DISTRIBUTIONS) {
    d.into(v, s, { rng: createRng({ seed: 1 }) });
    const a = d.into(new Float64Array(K), scales, { rng: createRng({ seed: 1 }) });
    ctx.check(
      a.every((x, i) => x === v.values[i]),
      `${d.name}: a WasmVector does not get the array's noise`,
    );
  }
  v.free();
  s.free();
}

/** Times the grid and continuous releases at K on arrays and on vectors, interleaved; adds their rows and verdicts. */
function releaseTimes(ctx, K, out, releaseRows, gridVerdicts) {
  ctx.log(`  K = ${fmtK(K)}: releases ...`);
  const lambda = sensitivity(K);
  const query = Float64Array.from({ length: K }, (_, i) => 10 + i / 3);
  const queryVector = wasmVector(K);
  queryVector.values.set(query);
  const released = wasmVector(K);
  const releases = [];
  for (const [name, make] of [
    ['Laplace', (mode) => laplaceMechanism({ sensitivity: lambda, epsilon: 1, mode })],
    ['Gaussian', (mode) => gaussianMechanism({ sensitivity: lambda, epsilon: 1, delta: 1e-6, mode })],
  ]) {
    const grid = make('grid');
    const continuous = make('continuous');
    releases.push({
      name,
      fns: [
        () => continuous.release(query, { out }),
        () => grid.release(query, { out }),
        () => continuous.release(queryVector, { out: released }),
        () => grid.release(queryVector, { out: released }),
      ],
    });
  }
  const rt = ctx.measureEach(
    releases.flatMap((r) => r.fns),
    { units: K, ...RELEASE_TIMING[K] },
  );
  releases.forEach((r, i) => {
    const [ca, ga, cv, gv] = rt.slice(4 * i, 4 * i + 4).map((t) => t.perUnit * 1e9);
    const met = gv / cv <= GRID_AIM;
    releaseRows.push([fmtK(K), r.name, fmt(ca), fmt(ga), times(ga, ca), fmt(cv), fmt(gv), times(gv, cv), met ? 'yes' : '**no**']);
    gridVerdicts.push(`${r.name} at K = ${fmtK(K)}: ${times(gv, cv)} on vectors (${times(ga, ca)} on arrays)`);
  });
  queryVector.free();
  released.free();
}

/** One round of the samplers at every K, all cases of a K interleaved: per case { K, c, arrayNs, vectorNs }, in a fixed order. */
function samplerRound(ctx) {
  const measured = [];
  for (const K of KS) {
    const scales = perCoordinate(K);
    const out = new Float64Array(K);
    const outVector = wasmVector(K);
    const scalesVector = wasmVector(K);
    scalesVector.values.set(scales);
    const cases = [];
    for (const d of DISTRIBUTIONS) {
      for (const source of SOURCES) {
        for (const scaling of SCALINGS) {
          const o = source.options();
          const array = scaling === 'one' ? () => d.into(out, SCALE, o) : () => d.into(out, scales, o);
          const vector = scaling === 'one' ? () => d.into(outVector, SCALE, o) : () => d.into(outVector, scalesVector, o);
          cases.push({ d, source, scaling, array, vector });
        }
      }
    }
    const timings = ctx.measureEach(
      cases.flatMap((c) => [c.array, c.vector]),
      { units: K, ...TIMING[K] },
    );
    for (const [i, c] of cases.entries()) measured.push({ K, c, arrayNs: timings[2 * i].perUnit * 1e9, vectorNs: timings[2 * i + 1].perUnit * 1e9 });
    outVector.free();
    scalesVector.free();
  }
  return measured;
}

const median = (xs) => {
  const a = [...xs].sort((x, y) => x - y);
  return a.length % 2 ? a[(a.length - 1) / 2] : 0.5 * (a[a.length / 2 - 1] + a[a.length / 2]);
};

export async function run(ctx) {
  // NumPy runs in its own process between the rounds of JavaScript timings (before the first,
  // after each): a round is compared with the mean of the NumPy runs on either side of it, so a
  // change of the shared host's load hits both sides alike; the tables give the median over the rounds.
  const numpy = () => ctx.python({ seconds: 0.4, batches: 7, tasks: [{ id: 'inPlace', kind: 'inPlace', Ks: KS, seed: SEED, scale: SCALE }] });
  const loadBefore = loadavg()[0];
  ctx.log('  python baselines ...');
  const py = numpy();
  const pyRuns = [py];
  sameNoise(ctx);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    ctx.log(`  round ${r + 1} of ${ROUNDS}: samplers, then NumPy ...`);
    rounds.push(samplerRound(ctx));
    if (py.available) pyRuns.push(numpy());
  }
  /** NumPy's time for `op` at K beside round r: the mean of the runs before and after it. */
  const numpyBeside = (r, K, op) => {
    const at = (run) => (run?.available ? run.results.inPlace.rows.find((row) => row.K === K)?.[op] : undefined);
    const [before, after] = [at(pyRuns[r]), at(pyRuns[r + 1])];
    return before === undefined || after === undefined ? undefined : 0.5 * (before + after);
  };

  const samplerRows = [];
  const releaseRows = [];
  const verdicts = [];
  const gridVerdicts = [];
  for (const [i, { K, c }] of rounds[0].entries()) {
    const op = c.d.numpy[c.scaling];
    const arrayNs = median(rounds.map((round) => round[i].arrayNs));
    const vectorNs = median(rounds.map((round) => round[i].vectorNs));
    const numpyNs = rounds.map((_, r) => numpyBeside(r, K, op));
    const ratios = py.available ? rounds.map((round, r) => numpyNs[r] / round[i].vectorNs) : [];
    const np = py.available ? median(numpyNs) : undefined;
    const ratio = py.available ? median(ratios) : undefined;
    const main = K === BIG && c.d.name === 'Gaussian';
    const b = (text) => (main ? `**${text}**` : text);
    samplerRows.push([
      fmtK(K),
      c.d.name,
      c.source.name,
      c.scaling === 'one' ? 'one' : 'per coordinate',
      fmt(arrayNs),
      b(fmt(vectorNs)),
      times(median(rounds.map((round) => round[i].arrayNs / round[i].vectorNs)), 1),
      NUMPY_LABEL[op],
      np === undefined ? NA : fmt(np),
      ratio === undefined ? NA : b(times(ratio, 1)),
      ratios.map((x) => times(x, 1)).join(', ') || NA,
    ]);
    if (main) verdicts.push({ c, np, vectorNs, arrayNs, ratio, ratios });
  }
  const out = new Float64Array(BIG);
  for (const K of KS) releaseTimes(ctx, K, K === BIG ? out : new Float64Array(K), releaseRows, gridVerdicts);

  const loadNote = `The host's load average (1 minute) was ${fmt(loadBefore)} at the start of the group and ${fmt(loadavg()[0])} at its end, on ${availableParallelism()} logical cores shared with other processes: absolute times vary from run to run, the interleaved ratios less.`;
  const numpyNote = py.available
    ? `NumPy ${py.versions.numpy}, \`np.random.default_rng(${SEED})\` (${py.results.inPlace.bitGenerator}), medians of 7 batches, measured in a separate process before the first round of JavaScript timings and after each (${ROUNDS} rounds): a round's ratio takes the mean of the NumPy runs on either side of it, and the tables give medians over the rounds; NumPy's scaling is a second pass over the buffer, as \`standard_normal\` has no scale argument.`
    : `NumPy baseline n/a (${py.reason}).`;
  const verdictNote = verdicts
    .map(({ c, np, vectorNs, arrayNs, ratio, ratios }) => {
      const verdict = ratio === undefined ? NA : ratio >= NUMPY_AIM ? 'met' : '**not met**';
      return `Gaussian, ${c.source.name}, ${c.scaling === 'one' ? 'one scale' : 'per-coordinate scales'}: ${fmt(vectorNs)} ns on a WasmVector (${fmt(arrayNs)} on a Float64Array), ${ratio === undefined ? NA : times(ratio, 1)} NumPy's ${np === undefined ? NA : fmt(np)} ns, rounds ${ratios.map((x) => times(x, 1)).join(', ')} (aim ${NUMPY_AIM}×: ${verdict})`;
    })
    .join('; ');
  return [
    {
      heading: 'Noise into a preallocated vector: WebAssembly memory, Float64Array and NumPy, ns per coordinate',
      text:
        `\`gaussianNoiseInto(out, scales, { rng })\` and \`laplaceNoiseInto\`, overwriting one reused vector: *Float64Array* is \`out\` (and per-coordinate \`scales\`) in JavaScript memory, streamed through the module's scratch buffers; *WasmVector* is \`out\` (and \`scales\`) made by \`wasmVector(K)\`, drawn into where it is. ` +
        `Medians over ${ROUNDS} rounds of the medians of ${TIMING[BIG].batches} batches, all cases of a K interleaved within a round. *Source*: CSPRNG is \`createRng()\` (crypto.getRandomValues, the default), seeded is \`createRng({ seed })\`. *Scales*: one is the number ${SCALE}; per coordinate 0.5 + (i % 10)/10, NumPy's too. ` +
        `Ratios are the baseline ÷ the WasmVector call (how many times faster the vector is). Aim (issue 46 §3): at K = ${fmtK(BIG)}, per-coordinate Gaussian noise on vectors at least ${NUMPY_AIM}× NumPy's \`standard_normal(out=)\` plus the scaling.`,
      columns: [
        'K',
        'noise',
        'source',
        'scales',
        'Float64Array ns',
        'WasmVector ns',
        'Float64Array ÷ WasmVector',
        'NumPy',
        'NumPy ns',
        'NumPy ÷ WasmVector',
        'NumPy ÷ WasmVector, each round',
      ],
      rows: samplerRows,
      notes: [verdictNote, numpyNote, loadNote],
    },
    {
      heading: 'Mechanism release on vectors: grid mode (the default) against continuous, ns per coordinate (CSPRNG)',
      text:
        `laplaceMechanism({ sensitivity: 1/(1 + i % 100), epsilon: 1 }) and gaussianMechanism({ ..., delta: 1e-6 }), release(query, { out }) with the default mode 'grid' and with mode: 'continuous', interleaved, medians of ${RELEASE_TIMING[BIG].batches} batches at K = ${fmtK(BIG)} (${RELEASE_TIMING[KS[0]].batches} below), the CSPRNG: ` +
        `*arrays* with a Float64Array query and out, *vectors* with both made by wasmVector. On vectors the continuous kernels read the query and write out where they are; the grid kernels (exact discrete noise, docs/noise.md, "Exact discrete noise") take the vectors' addresses too and copy each chunk of the query in and of the output out inside the module (their later rounds of trials work in the scratch buffers), with no copy through JavaScript. Aim (issue 46 §3): grid within ${GRID_AIM}× continuous on the same vectors.`,
      columns: [
        'K',
        'noise',
        'continuous ns, arrays',
        'grid ns, arrays',
        'grid ÷ continuous, arrays',
        'continuous ns, vectors',
        'grid ns, vectors',
        'grid ÷ continuous, vectors',
        `within ${GRID_AIM}×`,
      ],
      rows: releaseRows,
      notes: [`${gridVerdicts.join('; ')}.`],
    },
  ];
}
