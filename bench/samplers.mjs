// Benchmark group "Samplers": Gaussian and Laplace noise, nanoseconds per sample.
//
// dpnoise is the built package (import 'dpnoise' resolves to dist/). Every dpnoise case is run
// with the CSPRNG (createRng(), the default) and a seeded generator (createRng({ seed })), one
// scale (a number) and per-coordinate scales (a Float64Array), as a fill (gaussianNoise /
// laplaceNoise: a new array each call) and as an add in place (addGaussianNoise /
// addLaplaceNoise on an array reused by every call). Baselines in the same run:
//   - pure JS (bench/baseline.mjs): Box-Muller and -log(U) with a random sign, with words from
//     crypto.getRandomValues (against dpnoise's CSPRNG) or xorshift128+ (against seeded);
//   - NumPy (bench/python_baseline.py, one spawn, run before the JavaScript timings so the two
//     never compete): np.random.default_rng(seed) (PCG64) standard_normal / laplace;
//   - the floor of any fill: new Float64Array(K).fill(0), a fresh array written once;
//   - the floor of a kernel (its words and copies, no noise) and the check of the scales every
//     call makes before drawing, which together bound how fast a call can be (issue 19).
// At each K all JavaScript cases are timed in one interleaved measureEach, so the (bimodal) cost
// of page-faulting fresh large arrays hits every fill alike.
import { addGaussianNoise, addLaplaceNoise, createRng, gaussianNoise, gaussianNoiseInto, laplaceNoise, laplaceNoiseInto } from 'dpnoise';
import * as baseline from './baseline.mjs';
import { fmt, fmtK, NA, NONE, times } from './format.mjs';

export const title = 'Samplers';

const KS = [1e3, 1e5, 1e7];
const BIG = 1e7;
/** The one scale; per-coordinate scales are 0.5 + (i % 10) / 10 (mean 0.95). */
const SCALE = 1.5;
const SEED = 20240601;
/** Timing per K: at 1e7 a call takes tens of ms, so a batch is mostly one call and warm-up two. */
const TIMING = {
  1e3: { seconds: 0.4, batches: 7 },
  1e5: { seconds: 0.4, batches: 7 },
  1e7: { seconds: 0.3, batches: 7, warmup: 0.05 },
};
const PY_TIMING = { seconds: 0.4, batches: 7, secondsByK: { [String(BIG)]: 0.3 }, batchesByK: { [String(BIG)]: 5 } };

/** The targets at K = 1e7. */
const CSPRNG_NS = 10;
const SEEDED_NS = 7;
const NUMPY_FACTOR = 2;

const DISTRIBUTIONS = [
  {
    name: 'Gaussian',
    fill: gaussianNoise,
    into: gaussianNoiseInto,
    add: addGaussianNoise,
    jsFill: baseline.gaussianNoise,
    jsAdd: baseline.addGaussianNoise,
    variance: (s) => s * s,
  },
  {
    name: 'Laplace',
    fill: laplaceNoise,
    into: laplaceNoiseInto,
    add: addLaplaceNoise,
    jsFill: baseline.laplaceNoise,
    jsAdd: baseline.addLaplaceNoise,
    variance: (s) => 2 * s * s,
  },
];
const SOURCES = [
  { name: 'CSPRNG', options: { rng: createRng() }, js: new baseline.CryptoWords(), jsName: 'getRandomValues' },
  { name: 'seeded', options: { rng: createRng({ seed: SEED }) }, js: new baseline.Xorshift128Plus(SEED), jsName: 'xorshift128+' },
];
const MODES = ['fill', 'into', 'add'];
const SCALINGS = ['one', 'per-coord'];

function perCoordinateScales(K) {
  const s = new Float64Array(K);
  for (let i = 0; i < K; i++) s[i] = 0.5 + (i % 10) / 10;
  return s;
}

/** The floor of any fill. A top-level function, so its optimised code is shared by every K. */
function freshZeros(K) {
  return new Float64Array(K).fill(0);
}

/** 64 KiB, the most crypto.getRandomValues fills per call (dpnoise fills 8192 words per chunk). */
const cryptoBuffer = new Uint8Array(65536);

/** The floor of any CSPRNG sampler: 8 bytes (one 64-bit word) per sample from getRandomValues. */
function cryptoWords(K) {
  const bytes = K * 8;
  for (let done = 0; done < bytes; done += cryptoBuffer.length) {
    const n = Math.min(cryptoBuffer.length, bytes - done);
    crypto.getRandomValues(n === cryptoBuffer.length ? cryptoBuffer : cryptoBuffer.subarray(0, n));
  }
  return cryptoBuffer[0];
}

/** Chunks of the kernel floor: dpnoise's sampling chunk (8192 coordinates). */
const floorScales = new Float64Array(8192);
const floorNoise = new Float64Array(8192);

/**
 * The floor of a CSPRNG sampler writing into a given array with per-coordinate scales (issue 19):
 * its random words, one pass over the scales (copied into a chunk) and one over the output (a
 * chunk copied out), chunk by chunk as dpnoise streams them, without any noise computed.
 */
function kernelFloor(K, scales, output) {
  for (let start = 0; start < K; start += floorScales.length) {
    const n = Math.min(floorScales.length, K - start);
    crypto.getRandomValues(cryptoBuffer.subarray(0, n * 8));
    floorScales.set(scales.subarray(start, start + n));
    output.set(n === floorNoise.length ? floorNoise : floorNoise.subarray(0, n), start);
  }
  return output[0];
}

/**
 * The check of per-coordinate scales that every call makes before it draws (issue 19): a call
 * whose last scale is invalid reads and checks every scale, then throws, drawing nothing.
 */
function scaleCheck(output, rejected) {
  try {
    gaussianNoiseInto(output, rejected);
  } catch {
    return output[0];
  }
  throw new Error('bench: a scale of -1 was accepted');
}

/** Minor page faults per fresh `new Float64Array(K).fill(0)` (mean over a few). */
function faultsPerFreshArray(K) {
  const before = process.resourceUsage().minorPageFault;
  for (let i = 0; i < 3; i++) _faultSink += freshZeros(K)[K - 1];
  return (process.resourceUsage().minorPageFault - before) / 3;
}
let _faultSink = 0;

function variance(a) {
  let m = 0;
  for (let i = 0; i < a.length; i++) m += a[i];
  m /= a.length;
  let v = 0;
  for (let i = 0; i < a.length; i++) v += (a[i] - m) ** 2;
  return v / a.length;
}

/** Every case as { dist, source, mode, scaling, dp, js }; dp and js are the functions timed. */
function cases(K, scales, values, output) {
  const out = [];
  for (const dist of DISTRIBUTIONS) {
    for (const source of SOURCES) {
      for (const mode of MODES) {
        for (const scaling of SCALINGS) {
          const s = scaling === 'one' ? SCALE : scales;
          const { options, js } = source;
          const dp =
            mode === 'fill' ? () => dist.fill(K, s, options) : mode === 'into' ? () => dist.into(output, s, options) : () => dist.add(values, s, options);
          // The pure-JS baseline has no "into": its add on a reused array is the closest.
          const jsFn = mode === 'fill' ? () => dist.jsFill(K, s, js) : () => dist.jsAdd(mode === 'into' ? output : values, s, js);
          out.push({ dist: dist.name, source: source.name, mode, scaling, dp, js: jsFn });
        }
      }
    }
  }
  return out;
}

/** Sanity checks: sample variances of every generator, seeded reproducibility. */
function sanity(ctx) {
  const K = 200_000;
  for (const dist of DISTRIBUTIONS) {
    const want = dist.variance(SCALE);
    for (const source of SOURCES) {
      const dp = variance(dist.fill(K, SCALE, source.options));
      const js = variance(dist.jsFill(K, SCALE, source.js));
      ctx.check(Math.abs(dp / want - 1) < 0.03, `dpnoise ${dist.name} ${source.name} sample variance ${dp}, expected ${want}`);
      ctx.check(Math.abs(js / want - 1) < 0.03, `pure-JS ${dist.name} ${source.jsName} sample variance ${js}, expected ${want}`);
    }
    const a = dist.fill(1000, SCALE, { rng: createRng({ seed: SEED }) });
    const b = dist.fill(1000, SCALE, { rng: createRng({ seed: SEED }) });
    ctx.check(
      a.every((x, i) => x === b[i]),
      `seeded dpnoise ${dist.name} is not reproducible`,
    );
  }
}

const MODE_LABEL = { fill: 'fill (new array)', into: 'into a given array', add: 'add in place' };
const SCALING_LABEL = { one: 'one', 'per-coord': 'per coordinate' };

export async function run(ctx) {
  // --- NumPy: one python3 process, before the JavaScript timings ---
  ctx.log('  python baselines ...');
  const py = ctx.python({ ...PY_TIMING, tasks: [{ id: 'samplers', kind: 'samplers', Ks: KS, seed: SEED, scale: SCALE }] });
  const pyRows = py.available ? py.results.samplers.rows : [];
  const numpyAt = (K, op) => pyRows.find((r) => r.K === K)?.[op];
  if (py.available) {
    const { normalVar, laplaceVar } = py.results.samplers;
    ctx.check(Math.abs(normalVar - 1) < 0.03 && Math.abs(laplaceVar - 2) < 0.06, `NumPy sample variances ${normalVar}, ${laplaceVar}`);
  }

  sanity(ctx);

  // --- JavaScript: everything at one K interleaved ---
  const ns = new Map(); // `${K} ${dist} ${source} ${mode} ${scaling} ${impl}` -> ns/sample
  const key = (K, c, impl) => `${K} ${c.dist} ${c.source} ${c.mode} ${c.scaling} ${impl}`;
  const floorNs = new Map();
  const cryptoNs = new Map();
  const kernelFloorNs = new Map();
  const checkNs = new Map();
  for (const K of KS) {
    ctx.log(`  K = ${fmtK(K)} ...`);
    const scales = perCoordinateScales(K);
    const values = new Float64Array(K); // reused by every add-in-place case at this K
    const output = new Float64Array(K); // reused by every "into" case at this K
    const rejected = scales.slice();
    rejected[K - 1] = -1;
    const all = cases(K, scales, values, output);
    const floors = [() => freshZeros(K), () => cryptoWords(K), () => kernelFloor(K, scales, output), () => scaleCheck(output, rejected)];
    const timings = ctx.measureEach([...floors, ...all.flatMap((c) => [c.dp, c.js])], { units: K, ...TIMING[K] });
    const labels = ['floor', 'getRandomValues', 'kernel floor', 'scale check', ...all.flatMap((c) => [key(K, c, 'dpnoise'), key(K, c, 'js')])];
    timings.forEach((r, i) => {
      if (r.spread > 0.5) ctx.log(`  (noisy: ${labels[i]}, spread ${fmt(r.spread)})`);
    });
    floorNs.set(K, timings[0].perUnit * 1e9);
    cryptoNs.set(K, timings[1].perUnit * 1e9);
    kernelFloorNs.set(K, timings[2].perUnit * 1e9);
    checkNs.set(K, timings[3].perUnit * 1e9);
    all.forEach((c, i) => {
      ns.set(key(K, c, 'dpnoise'), timings[floors.length + 2 * i].perUnit * 1e9);
      ns.set(key(K, c, 'js'), timings[floors.length + 1 + 2 * i].perUnit * 1e9);
    });
    ctx.check(values.every(Number.isFinite), 'add-in-place values are not all finite');
  }
  const get = (K, dist, source, mode, scaling, impl = 'dpnoise') => ns.get(`${K} ${dist} ${source} ${mode} ${scaling} ${impl}`);

  // --- Tables per distribution ---
  const distTable = (dist) => {
    const rows = [];
    for (const K of KS) {
      for (const source of SOURCES) {
        for (const mode of MODES) {
          for (const scaling of SCALINGS) {
            const dp = get(K, dist.name, source.name, mode, scaling);
            const js = get(K, dist.name, source.name, mode, scaling, 'js');
            const main = K === BIG && scaling === 'one';
            const b = (text) => (main ? `**${text}**` : text);
            rows.push([fmtK(K), source.name, MODE_LABEL[mode], SCALING_LABEL[scaling], b(fmt(dp)), fmt(js), times(js, dp)]);
          }
        }
      }
      rows.push([fmtK(K), NONE, '*fill floor*: `new Float64Array(K).fill(0)`', NONE, fmt(floorNs.get(K)), NONE, NONE]);
      rows.push([fmtK(K), NONE, '*CSPRNG floor*: `getRandomValues`, 8 bytes/sample', NONE, fmt(cryptoNs.get(K)), NONE, NONE]);
      rows.push([fmtK(K), NONE, '*kernel floor*: those words, scales copied in, output copied out', 'per coordinate', fmt(kernelFloorNs.get(K)), NONE, NONE]);
      rows.push([fmtK(K), NONE, '*scale check*: a call whose last scale is invalid (one error thrown)', 'per coordinate', fmt(checkNs.get(K)), NONE, NONE]);
    }
    return rows;
  };

  // --- NumPy side by side (one scale; NumPy's standard_normal and laplace(size=K) are unscaled) ---
  const NUMPY_OPS = [
    { op: 'normal', numpy: '`rng.standard_normal(K)`', dist: 'Gaussian', mode: 'fill', dp: '`gaussianNoise(K, s)`' },
    { op: 'normalOut', numpy: '`rng.standard_normal(out=buf)`', dist: 'Gaussian', mode: 'add', dp: '`addGaussianNoise(buf, s)`' },
    { op: 'normalAdd', numpy: '`x += s * rng.standard_normal(K)`', dist: 'Gaussian', mode: 'add', dp: '`addGaussianNoise(buf, s)`' },
    { op: 'laplace', numpy: '`rng.laplace(size=K)`', dist: 'Laplace', mode: 'fill', dp: '`laplaceNoise(K, s)`' },
    { op: 'laplaceAdd', numpy: '`x += rng.laplace(0, s, K)`', dist: 'Laplace', mode: 'add', dp: '`addLaplaceNoise(buf, s)`' },
    { op: 'floor', numpy: '`np.empty(K)`, `.fill(0)`', dist: undefined, mode: 'floor', dp: '`new Float64Array(K).fill(0)`' },
  ];
  const numpyRows = [];
  for (const K of KS) {
    for (const o of NUMPY_OPS) {
      const np = numpyAt(K, o.op);
      const cs = o.dist ? get(K, o.dist, 'CSPRNG', o.mode, 'one') : floorNs.get(K);
      const sd = o.dist ? get(K, o.dist, 'seeded', o.mode, 'one') : undefined;
      numpyRows.push([fmtK(K), o.numpy, fmt(np), o.dp, fmt(cs), times(np, cs), o.dist ? fmt(sd) : NONE, o.dist ? times(np, sd) : NONE]);
    }
  }

  // --- Targets at K = 1e7 ---
  // Reference NumPy operation: fill against the allocating call; add against the cheapest NumPy
  // way to get the same noise into an existing array (standard_normal(out=) for Gaussian; Laplace
  // has no out=, so the allocating laplace(size=K), which is cheaper than NumPy's in-place add).
  const reference = (dist, mode) =>
    dist === 'Gaussian'
      ? mode === 'fill'
        ? ['normal', '`standard_normal(K)`']
        : ['normalOut', '`standard_normal(out=buf)`'] // into and add: out=
      : mode === 'fill'
        ? ['laplace', '`laplace(size=K)`']
        : ['laplace', '`laplace(size=K)`'];
  const targetRows = [];
  const verdicts = [];
  const floorBig = floorNs.get(BIG);
  const faults = faultsPerFreshArray(BIG);
  const npFaults = py.available ? py.results.samplers.floorFaults : undefined;
  for (const dist of DISTRIBUTIONS) {
    for (const source of SOURCES) {
      for (const mode of MODES) {
        for (const scaling of SCALINGS) {
          const dp = get(BIG, dist.name, source.name, mode, scaling);
          const [op, opLabel] = reference(dist.name, mode);
          const np = numpyAt(BIG, op);
          const csprng = source.name === 'CSPRNG';
          const limit = csprng ? CSPRNG_NS : SEEDED_NS;
          const nsMet = dp <= limit;
          const ratio = np / dp;
          const ratioMet = !csprng || (Number.isFinite(ratio) ? ratio >= NUMPY_FACTOR : undefined);
          const met = nsMet && ratioMet === true;
          const verdict = met ? 'met' : '**NOT met**';
          const label = `${dist.name}, ${source.name}, ${MODE_LABEL[mode]}, ${SCALING_LABEL[scaling]} scale${scaling === 'one' ? '' : 's'}`;
          // The looser like-with-like reference for adds: NumPy's own in-place add.
          const inPlace = mode === 'add' ? numpyAt(BIG, dist.name === 'Gaussian' ? 'normalAdd' : 'laplaceAdd') : undefined;
          verdicts.push({ dist: dist.name, source: source.name, mode, scaling, met, nsMet, ratioMet, dp, ratio, inPlaceRatio: inPlace / dp });
          targetRows.push([
            label,
            fmt(dp),
            `≤ ${limit}: ${nsMet ? 'yes' : 'no'}`,
            mode === 'fill' ? fmt(dp - floorBig) : NONE,
            opLabel,
            fmt(np),
            times(np, dp),
            csprng ? `≥ ${NUMPY_FACTOR}×: ${ratioMet === undefined ? NA : ratioMet ? 'yes' : 'no'}` : NONE,
            mode === 'add' ? times(inPlace, dp) : NONE,
            verdict,
          ]);
        }
      }
    }
  }

  // --- Text ---
  const big = (dist, source, mode, scaling = 'one') => get(BIG, dist, source, mode, scaling);
  const caseName = (v) => `${v.dist} ${v.source} ${v.mode} ${v.scaling === 'one' ? 'one scale' : 'per-coordinate'}`;
  const why = (v) => [v.nsMet ? '' : `${fmt(v.dp)} ns`, v.ratioMet === false ? `${fmt(v.ratio)}× NumPy` : ''].filter(Boolean).join(', ');
  const metCases = verdicts.filter((v) => v.met);
  const failed = verdicts.filter((v) => !v.met);
  const summary =
    failed.length === 0
      ? `All ${verdicts.length} cases meet their targets at K = ${fmtK(BIG)}.`
      : `At K = ${fmtK(BIG)}, ${metCases.length} of ${verdicts.length} cases meet their targets` +
        (metCases.length ? ` (${metCases.map(caseName).join('; ')})` : '') +
        `; not met: ${failed.map((v) => `${caseName(v)} (${why(v) || 'NumPy n/a'})`).join('; ')}.`;
  const looser = verdicts.filter((v) => v.mode === 'add' && v.source === 'CSPRNG' && v.nsMet && v.ratioMet === false && v.inPlaceRatio >= NUMPY_FACTOR);
  const looserNote = looser.length
    ? ` Against NumPy's in-place add instead, these adds would meet the ${NUMPY_FACTOR}× target too: ${looser.map((v) => `${caseName(v)} (${fmt(v.inPlaceRatio)}×)`).join('; ')}.`
    : '';
  const gFill = big('Gaussian', 'CSPRNG', 'fill');
  const gAdd = big('Gaussian', 'CSPRNG', 'add');
  const fillNote =
    `What dominates a fill at K = ${fmtK(BIG)}: the fresh 80 MB Float64Array. \`new Float64Array(K).fill(0)\` alone costs ` +
    `${fmt(floorBig)} ns/element here, almost all page faults: V8 gets fresh zeroed memory for it that is faulted in 4 KiB at a time on first write ` +
    `(${fmt(faults)} minor faults per array, one per 4 KiB page, counted in this run). Transparent huge pages are in \`${ctx.thp ?? 'unknown'}\` mode, ` +
    `and NumPy madvises its large arrays for huge pages while V8 does not: NumPy's same fresh array costs ${fmt(numpyAt(BIG, 'floor'))} ns/element` +
    `${npFaults === undefined ? '' : ` (${fmt(npFaults)} minor faults)`}. CSPRNG Gaussian fill: ${fmt(gFill)} ns/sample, ` +
    `of which ${fmt(floorBig)} is that floor and ${fmt(gFill - floorBig)} the sampling; the same noise added into a reused array costs ${fmt(gAdd)}. ` +
    `NumPy's allocating calls pay only their own, cheaper floor, so a fill-vs-allocating ratio at K = ${fmtK(BIG)} mostly measures the two allocators.`;
  const cryptoNote =
    `Every CSPRNG case also pays for its random words: \`crypto.getRandomValues\` alone, 8 bytes per sample in 64 KiB calls as dpnoise draws them, ` +
    `costs ${fmt(cryptoNs.get(BIG))} ns/sample at K = ${fmtK(BIG)} (${fmt(cryptoNs.get(KS[0]))} at K = ${fmtK(KS[0])}, where the fixed cost of a call dominates).`;
  // Issue 19's aims for the continuous Gaussian kernel: into a reused array, CSPRNG, per-coordinate scales.
  const kernel = big('Gaussian', 'CSPRNG', 'into', 'per-coord');
  const kernelFloorBig = kernelFloorNs.get(BIG);
  const npOut = numpyAt(BIG, 'normalOut');
  const check = checkNs.get(BIG);
  const words = cryptoNs.get(BIG);
  const bound = kernelFloorBig + check;
  const kernelNote =
    `The continuous Gaussian kernel (\`gaussianNoiseInto\`, CSPRNG, per-coordinate scales, K = ${fmtK(BIG)}, issue 19): ${fmt(kernel)} ns, ` +
    `${times(kernel, kernelFloorBig)} its floor (*kernel floor*, ${fmt(kernelFloorBig)} ns: the random words, one pass over the scales and one over the output, no noise; aim 1.2×: ` +
    `${kernel <= 1.2 * kernelFloorBig ? 'met' : 'not met'}), and ${times(npOut, kernel)} faster than NumPy's \`standard_normal(out=)\` (aim 3×: ` +
    `${npOut / kernel >= 3 ? 'met' : 'not met'}). NumPy's ${fmt(npOut)} ns over 3 is ${fmt(npOut / 3)} ns, ${npOut / 3 < kernelFloorBig ? 'below' : 'above'} the floor here. ` +
    `Where the ${fmt(kernel)} ns go, from the rows above (same batches): ${fmt(words)} the random words (getRandomValues), ` +
    `${fmt(kernelFloorBig - words)} the copies of the scales into WebAssembly memory and of the noise out of it, ${fmt(check)} the check of the scales ` +
    `(*scale check*), and the remaining ${fmt(kernel - bound)} the ziggurat and the calls. No noise may be written before every scale is checked ` +
    `(a failed call changes nothing), and WebAssembly cannot read a JavaScript array in place, so a call costs at least the floor plus the check, ` +
    `${fmt(bound)} ns: ${times(bound, kernelFloorBig)} the floor and ${times(npOut, bound)} NumPy even if the ziggurat cost nothing.`;
  const numpyNote = py.available
    ? `NumPy: ${py.versions.numpy}, \`np.random.default_rng(${SEED})\` (${py.results.samplers.bitGenerator}), ziggurat samplers; medians of ` +
      `${PY_TIMING.batches} batches (${PY_TIMING.batchesByK[String(BIG)]} at K = ${fmtK(BIG)}, where calls are long and steady), measured in a separate process just before the JavaScript timings.`
    : `NumPy baseline n/a (${py.reason}).`;
  const commonText = (dist) =>
    `ns per sample (per coordinate), medians of ${TIMING[KS[0]].batches} batches (at K = ${fmtK(BIG)} mostly one call per batch); ` +
    `at each K all cases and both floors are interleaved. ` +
    `*Source*: CSPRNG is \`createRng()\` (crypto.getRandomValues, the default); seeded is \`createRng({ seed })\` (counter-based). ` +
    `*Scales*: one is the number ${SCALE}; per coordinate a Float64Array 0.5 + (i % 10)/10. ` +
    `*fill*: \`${dist === 'Gaussian' ? 'gaussianNoise' : 'laplaceNoise'}(K, scales, { rng })\`, a new array per call; ` +
    `*into*: \`${dist === 'Gaussian' ? 'gaussianNoiseInto' : 'laplaceNoiseInto'}(out, scales, { rng })\`, overwriting one reused array; ` +
    `*add in place*: \`${dist === 'Gaussian' ? 'addGaussianNoise' : 'addLaplaceNoise'}(values, scales, { rng })\` on one reused array. ` +
    `*Pure JS*: bench/baseline.mjs, ${dist === 'Gaussian' ? 'Box–Muller (both outputs used)' : '-log(U) with a random sign'}, ` +
    `53-bit uniforms from 64 KiB word buffers filled by crypto.getRandomValues (CSPRNG rows) or xorshift128+ (seeded rows). ` +
    `Ratios are baseline ÷ dpnoise (how many times faster dpnoise is).`;

  return [
    {
      heading: `Targets at K = ${fmtK(BIG)}`,
      text:
        `Targets: with the CSPRNG, at most ${CSPRNG_NS} ns/sample and at least ${NUMPY_FACTOR}× faster than NumPy's sampler measured in the same run; ` +
        `seeded, at most ${SEEDED_NS} ns/sample; the same for Laplace as for Gaussian (against NumPy's \`laplace\`). ` +
        `NumPy reference: a fill is compared with NumPy's allocating call, an add in place with the cheapest NumPy call that yields the noise ` +
        `for an existing array: \`standard_normal(out=buf)\` (which only writes, it does not add) and, as \`laplace\` has no \`out=\`, ` +
        `\`laplace(size=K)\` (cheaper than NumPy's own in-place add). NumPy's calls are unscaled, dpnoise's scaled. ` +
        `The verdict uses these stricter references; the column *NumPy in-place add ÷ dpnoise* gives the ratio against NumPy's own in-place add ` +
        `(\`x += s * rng.standard_normal(K)\`, \`x += rng.laplace(0, s, K)\`), the other like-with-like reading. ` +
        `*fill − floor*: the fill minus \`new Float64Array(K).fill(0)\` measured in the same batches.`,
      columns: [
        'case',
        'ns/sample',
        'ns target',
        'fill − floor',
        'NumPy reference',
        'NumPy ns',
        'NumPy ÷ dpnoise',
        'NumPy target',
        'NumPy in-place add ÷ dpnoise',
        'verdict',
      ],
      rows: targetRows,
      notes: [summary + looserNote, fillNote, cryptoNote, kernelNote],
    },
    ...DISTRIBUTIONS.map((dist) => ({
      heading: `${dist.name} noise: ns per sample`,
      text: commonText(dist.name),
      columns: ['K', 'source', 'call', 'scales', 'dpnoise ns', 'pure JS ns', 'JS ÷ dpnoise'],
      rows: distTable(dist),
    })),
    {
      heading: 'dpnoise and NumPy side by side (one scale): ns per sample',
      text:
        `Like with like: dpnoise fills against NumPy's allocating calls, dpnoise adds in place against NumPy writing or adding into an existing array. ` +
        `Ratios are NumPy ÷ dpnoise (how many times faster dpnoise is). ` +
        `The last row of each K compares the two platforms' cost of a fresh array written once.`,
      columns: ['K', 'NumPy', 'NumPy ns', 'dpnoise', 'CSPRNG ns', 'NumPy ÷ CSPRNG', 'seeded ns', 'NumPy ÷ seeded'],
      rows: numpyRows,
      notes: [numpyNote],
    },
  ];
}
