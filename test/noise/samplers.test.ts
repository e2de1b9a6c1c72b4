import { afterEach, describe, expect, it } from 'vitest';
import {
  addGaussianNoise,
  addLaplaceNoise,
  createRng,
  gaussianNoise,
  gaussianNoiseInto,
  laplaceNoise,
  laplaceNoiseInto,
  normalSf,
  type WasmVector,
  wasmVector,
} from '../../src/index.js';
import { setPoolWordsForTesting } from '../../src/wasm/host.js';
import { wasm, type WasmExports } from '../../src/wasm/loader.js';
import { builds, expectWithheld } from '../helpers.js';
import { autocorrelation, countBeyond, countZ, kolmogorovSmirnov, moments, scaled } from '../stats.js';

const N = 1_000_000;
const normalCdf = (x: number) => 1 - normalSf(x);
const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));

/** Runs a statistic on the data and on the same data drawn with the scale 5% off (power). */
function withPower<T>(data: Float64Array, statistic: (d: Float64Array) => T, rejects: (t: T) => boolean): void {
  expect(rejects(statistic(data)), 'rejects good data').toBe(false);
  expect(rejects(statistic(scaled(data, 1.05))), 'rejects data 5% too wide').toBe(true);
  expect(rejects(statistic(scaled(data, 0.95))), 'rejects data 5% too narrow').toBe(true);
}

describe('Gaussian noise: distribution (fixed seeds, every test also shown to reject a 5% scale error)', () => {
  const sigma = 2.5;
  const data = gaussianNoise(N, sigma, { rng: createRng({ seed: 'gaussian-distribution' }) });
  const unit = scaled(data, 1 / sigma);

  it('Kolmogorov-Smirnov against N(0, sigma^2) on 1e6 samples', () => {
    withPower(
      unit,
      (d) => kolmogorovSmirnov(d, normalCdf),
      (r) => r.rejects,
    ); // statistical: KS at alpha = 0.001 (test/stats.ts)
  });

  // Statistical: each moment within 5 standard errors (the normal law's: 1, sqrt 6, sqrt 24 and
  // sqrt 2 over sqrt N), and the variance of data 5% off outside them.
  it('moments: mean 0, variance 1, skewness 0, kurtosis 3', () => {
    const m = moments(unit);
    expect(Math.abs(m.mean)).toBeLessThan(5 / Math.sqrt(N));
    expect(Math.abs(m.skewness)).toBeLessThan(5 * Math.sqrt(6 / N));
    expect(Math.abs(m.kurtosis - 3)).toBeLessThan(5 * Math.sqrt(24 / N));
    withPower(
      unit,
      (d) => moments(d).variance,
      (v) => Math.abs(v - 1) > 5 * Math.sqrt(2 / N),
    );
  });

  it('tail frequency beyond 3 standard deviations', () => {
    // Statistical: the count within 5 standard errors (z-score) of its expectation.
    const p3 = 2 * normalSf(3);
    withPower(
      unit,
      (d) => countZ(countBeyond(d, 3), p3 * N),
      (z) => Math.abs(z) > 5,
    );
  });

  it('no correlation between neighbouring coordinates, nor across a chunk boundary', () => {
    // Statistical: 5 standard errors of a correlation of N pairs, 1 / sqrt(N).
    for (const lag of [1, 2, 8192]) expect(Math.abs(autocorrelation(unit, lag))).toBeLessThan(5 / Math.sqrt(N));
    // Power: a neighbour correlation of 0.01 is caught.
    const correlated = unit.map((x, i) => x + 0.01 * (unit[i - 1] ?? 0));
    expect(Math.abs(autocorrelation(correlated, 1))).toBeGreaterThan(5 / Math.sqrt(N));
  });
});

describe('the CSPRNG path (not reproducible, so tested at alpha = 1e-6, which still has power)', () => {
  const critical = Math.sqrt(-Math.log(0.5e-6) / 2) / Math.sqrt(N);
  it.each([
    ['Gaussian', () => gaussianNoise(N, 1), normalCdf],
    ['Laplace', () => laplaceNoise(N, 1), laplaceCdf(1)],
  ] as const)('%s: Kolmogorov-Smirnov on 1e6 samples', (_, draw, cdf) => {
    withPower(
      draw(),
      (d) => kolmogorovSmirnov(d, cdf).d,
      (d) => d > critical,
    );
  });
});

describe('Laplace noise: distribution', () => {
  const b = 0.75;
  const data = laplaceNoise(N, b, { rng: createRng({ seed: 'laplace-distribution' }) });
  const unit = scaled(data, 1 / b);

  it('Kolmogorov-Smirnov against Laplace(b) on 1e6 samples', () => {
    withPower(
      unit,
      (d) => kolmogorovSmirnov(d, laplaceCdf(1)),
      (r) => r.rejects,
    ); // statistical: KS at alpha = 0.001 (test/stats.ts)
  });

  // Statistical, with the Laplace law's standard errors: the mean 5 sqrt(2 / N); the skewness
  // 0.05 = 6.3 standard errors (sqrt(63 / N) = 0.0079); the kurtosis 0.3 = 8.7 standard errors
  // (sqrt(1188 / N) = 0.034); the variance 5 sqrt(20 / N) (mu_4 - mu_2^2 = 24 - 4).
  it('moments: mean 0, variance 2 b^2, kurtosis 6', () => {
    const m = moments(unit);
    expect(Math.abs(m.mean)).toBeLessThan(5 * Math.sqrt(2 / N));
    expect(Math.abs(m.skewness)).toBeLessThan(0.05);
    expect(Math.abs(m.kurtosis - 6)).toBeLessThan(0.3);
    withPower(
      unit,
      (d) => moments(d).variance,
      (v) => Math.abs(v - 2) > 5 * Math.sqrt(20 / N),
    );
  });

  it('tail frequencies beyond 3 and 5 standard deviations', () => {
    for (const t of [3, 5]) {
      const p = Math.exp(-t * Math.SQRT2); // P(|L| > t sd), sd = sqrt(2) b
      withPower(
        unit,
        (d) => countZ(countBeyond(d, t * Math.SQRT2), p * N),
        (z) => Math.abs(z) > 5,
      ); // statistical: 5 standard errors
    }
  });

  it('never returns an infinity or NaN, and no neighbour correlation', () => {
    expect(unit.every(Number.isFinite)).toBe(true);
    expect(Math.abs(autocorrelation(unit, 1))).toBeLessThan(5 / Math.sqrt(N)); // statistical: 5 standard errors
  });
});

/** Draws n samples with the kernel directly, in chunks of `chunk`, from a fixed seeded stream. */
function kernelDraw(w: WasmExports, kernel: 'gaussianSamples' | 'laplaceSamples', n: number, chunk: number): Float64Array {
  new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set([0x0123456789abcdefn, 0x9e3779b97f4a7c15n]);
  w.useSeededExtras();
  const out = new Float64Array(n);
  for (let start = 0; start < n; start += chunk) {
    const m = Math.min(chunk, n - start);
    w.seededWords(start, m);
    w[kernel](start, m, 0, 1, 0, w.valuesPointer(), w.valuesPointer(), w.scalesPointer());
    out.set(new Float64Array(w.memory.buffer, w.valuesPointer(), m), start);
  }
  return out;
}

/** Primary words that send every draw into the base layer's tail: layer 0, largest magnitude. */
const TAIL_WORD = {
  gaussianSamples: (negative: boolean) => (((1n << 52n) - 1n) << 9n) | (negative ? 1n << 8n : 0n), // sign bit 8
  laplaceSamples: (negative: boolean) => (((1n << 53n) - 1n) << 11n) | (negative ? 1n : 0n), // sign bit 0
};

function tailWords(w: WasmExports, n: number, kernel: 'gaussianSamples' | 'laplaceSamples'): void {
  const words = Array.from({ length: n }, (_, i) => TAIL_WORD[kernel](i % 2 === 1));
  new BigUint64Array(w.memory.buffer, w.randomPointer(), n).set(words);
}

const minimum = (a: Float64Array) => a.reduce((m, x) => Math.min(m, x), Infinity);

describe('the tails: every draw forced into the ziggurat tail', () => {
  const w = wasm();
  const chunk = w.sampleChunkLength();

  function tailSample(kernel: 'gaussianSamples' | 'laplaceSamples', n: number): Float64Array {
    new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set([0xfeedn, 0x9e3779b97f4a7c15n]);
    w.useSeededExtras();
    const out = new Float64Array(n);
    tailWords(w, chunk, kernel); // the kernel reads RANDOM and leaves it as it is
    for (let start = 0; start < n; start += chunk) {
      w[kernel](start, chunk, 0, 1, 0, w.valuesPointer(), w.valuesPointer(), w.scalesPointer());
      out.set(new Float64Array(w.memory.buffer, w.valuesPointer(), chunk), start);
    }
    return out;
  }

  it('normal tail beyond r = 3.654: the conditional law, and frequencies beyond 5 and 6 sd', () => {
    const r = 3.6541528853610088;
    const n = 8192 * 1024;
    const tail = tailSample('gaussianSamples', n).map(Math.abs);
    expect(minimum(tail)).toBeGreaterThanOrEqual(r);
    const conditional = (x: number) => 1 - normalSf(x) / normalSf(r);
    // Statistical: KS at alpha = 0.001 (test/stats.ts), and tail counts within 5 standard errors.
    withPower(
      tail.subarray(0, 1 << 20),
      (d) => kolmogorovSmirnov(d, conditional),
      (t) => t.rejects,
    );
    for (const t of [5, 6]) {
      const p = normalSf(t) / normalSf(r);
      withPower(
        tail,
        (d) => countZ(countBeyond(d, t), p * n),
        (z) => Math.abs(z) > 5,
      );
    }
  });

  it('exponential tail: r + Exp(1), memoryless, never truncated', () => {
    const r = 7.697117470131049;
    const n = 8192 * 64;
    const tail = tailSample('laplaceSamples', n).map(Math.abs);
    expect(minimum(tail)).toBeGreaterThanOrEqual(r);
    withPower(
      tail,
      (d) => kolmogorovSmirnov(d, (x) => 1 - Math.exp(-(x - r))),
      (t) => t.rejects,
    ); // statistical: KS at alpha = 0.001 (test/stats.ts)
  });

  it('no cut-off: extreme extra words take the normal tail past 13.71 standard deviations (a 53-bit uniform could not)', () => {
    // Pool words chosen to push both exponentials of the normal tail into the exponential's own
    // tail k times: E >= 7.697 k, so r + E1/r passes 13.71 once E1 > 36.7 and 2 E2 > (E1/r)^2.
    const exponentialTail = ((1n << 53n) - 1n) << 11n; // layer 0, largest magnitude
    const exponentialSmall = 1n << 11n; // layer 0, magnitude 1: accepted at once, value ~ 0
    const words = (k: number) => [...Array(k).fill(exponentialTail), exponentialSmall];
    for (const [k1, k2, beyond] of [
      [5, 8, 13.71],
      [8, 19, 20],
      [12, 42, 28.5],
    ] as const) {
      const pool = [...words(k1), ...words(k2)];
      new BigUint64Array(w.memory.buffer, w.extraPointer(), pool.length).set(pool);
      w.usePoolExtras(pool.length);
      tailWords(w, 1, 'gaussianSamples');
      w.gaussianSamples(0, 1, 0, 1, 0, w.valuesPointer(), w.valuesPointer(), w.scalesPointer());
      const x = new Float64Array(w.memory.buffer, w.valuesPointer(), 1)[0]!;
      expect(x, `exponentials of ${k1} and ${k2} tail restarts`).toBeGreaterThan(beyond);
      expect(Number.isFinite(x)).toBe(true);
    }
    w.usePoolExtras(0); // the next draw refills the pool from the CSPRNG
  });
});

describe('a draw never depends on where the CSPRNG pool of extra words runs dry', () => {
  const w = wasm();
  const chunk = w.sampleChunkLength();
  afterEach(() => setPoolWordsForTesting(0));

  /** n forced-tail draws with the CSPRNG, the pool refilled `poolWords` words at a time. */
  function forcedTail(kernel: 'gaussianSamples' | 'laplaceSamples', n: number, poolWords: number): Float64Array {
    setPoolWordsForTesting(poolWords);
    w.usePoolExtras(0);
    w.resumePoolExtras();
    const out = new Float64Array(n);
    tailWords(w, chunk, kernel);
    for (let start = 0; start < n; start += chunk) {
      w[kernel](start, chunk, 0, 1, 0, w.valuesPointer(), w.valuesPointer(), w.scalesPointer());
      out.set(new Float64Array(w.memory.buffer, w.valuesPointer(), chunk), start);
    }
    return out;
  }

  it.each([1, 2, 3, 5, 8])('pool of %i words: the slow paths keep their tail law (normal beyond 5 sd; exponential beyond r + 2)', (poolWords) => {
    const r = 3.6541528853610088;
    const n = 8192 * 16;
    const normal = forcedTail('gaussianSamples', n, poolWords).map(Math.abs);
    const p = normalSf(5) / normalSf(r);
    // Statistical: tail counts within 5 standard errors (z-scores).
    withPower(
      normal,
      (d) => countZ(countBeyond(d, 5), p * n),
      (z) => Math.abs(z) > 5,
    );
    const re = 7.697117470131049;
    const exponential = forcedTail('laplaceSamples', 8192 * 16, poolWords).map(Math.abs);
    const beyond = (x: number) => Math.exp(-(x - re));
    withPower(
      exponential,
      (d) => countZ(countBeyond(d, re + 2), beyond(re + 2) * d.length),
      (z) => Math.abs(z) > 5,
    );
  });
});

describe('the seeded generator is counter-based', () => {
  it('gives the same noise for every chunk size and for the scalar and SIMD builds', () => {
    for (const kernel of ['gaussianSamples', 'laplaceSamples'] as const) {
      const reference = kernelDraw(builds[0]![1], kernel, 50_000, 8192);
      for (const [, w] of builds) {
        for (const chunk of [8192, 1000, 777, 1]) {
          if (chunk === 1) expect(kernelDraw(w, kernel, 3000, 1)).toEqual(reference.subarray(0, 3000));
          else expect(kernelDraw(w, kernel, 50_000, chunk)).toEqual(reference);
        }
      }
    }
  });

  it('two fresh generators with one seed agree on any prefix; successive calls never repeat', () => {
    for (const draw of [gaussianNoise, laplaceNoise]) {
      const long = draw(100_000, 1, { rng: createRng({ seed: 7 }) });
      const short = draw(1000, 1, { rng: createRng({ seed: 7n }) });
      expect(short).toEqual(long.subarray(0, 1000));
      const rng = createRng({ seed: 7 });
      const first = draw(1000, 1, { rng });
      const second = draw(1000, 1, { rng });
      expect(first).toEqual(short);
      // Statistical: 1000 pairs, standard error 1 / sqrt(1000) = 0.032, so 0.15 is 4.7 of them.
      expect(Math.abs(autocorrelation(Float64Array.from([...first, ...second]), 1000))).toBeLessThan(0.15);
      expect(second.some((x, i) => x === first[i])).toBe(false);
    }
  });

  it('different seeds, and the types of seeds, give different streams', () => {
    const a = gaussianNoise(8, 1, { rng: createRng({ seed: 1 }) });
    for (const seed of [2, '1', new Uint8Array([1]), 'dpnoise']) {
      expect(gaussianNoise(8, 1, { rng: createRng({ seed }) })).not.toEqual(a);
    }
  });

  it('no-regression snapshot of seeded output', () => {
    const rng = () => createRng({ seed: 'snapshot' });
    expect(Array.from(gaussianNoise(6, 1, { rng: rng() }))).toMatchInlineSnapshot(`
      [
        1.875755028813968,
        0.3787173496981532,
        0.07703654015991801,
        1.2154844958259665,
        -0.5586080142972882,
        -0.8680949655815623,
      ]
    `);
    expect(Array.from(laplaceNoise(6, 1, { rng: rng() }))).toMatchInlineSnapshot(`
      [
        0.31684544909376633,
        -0.07313631989285924,
        0.2597872859690947,
        0.23513605314006075,
        -1.3039867697897554,
        0.42670645066164276,
      ]
    `);
  });

  it('the CSPRNG default gives fresh noise on every call', () => {
    expect(createRng().seeded).toBe(false);
    expect(gaussianNoise(16, 1)).not.toEqual(gaussianNoise(16, 1));
  });
});

describe('scales and the add variants', () => {
  it('per-coordinate scales are respected, and a zero scale gives exactly zero noise', () => {
    const pattern = [0, 0.5, 2, 1];
    const scales = Float64Array.from({ length: 400_000 }, (_, i) => pattern[i % 4]!);
    const noise = gaussianNoise(scales.length, scales, { rng: createRng({ seed: 3 }) });
    pattern.forEach((s, k) => {
      const part = noise.filter((_, i) => i % 4 === k);
      if (s === 0) expect(part.every((x) => Object.is(x, 0))).toBe(true);
      else expect(Math.abs(moments(part).variance / (s * s) - 1)).toBeLessThan(5 * Math.sqrt(2 / part.length)); // statistical: 5 standard errors
    });
    const laplace = laplaceNoise(8, Float64Array.from([0, 1, 0, 1, 0, 1, 0, 1]));
    expect(laplace.filter((_, i) => i % 2 === 0).every((x) => Object.is(x, 0))).toBe(true);
  });

  it('addGaussianNoise adds in place exactly what gaussianNoise draws', () => {
    const values = Float64Array.from({ length: 20_000 }, (_, i) => i - 5000);
    const copy = Float64Array.from(values);
    const noise = gaussianNoise(values.length, 3, { rng: createRng({ seed: 11 }) });
    const returned = addGaussianNoise(values, 3, { rng: createRng({ seed: 11 }) });
    expect(returned).toBe(values);
    values.forEach((x, i) => {
      expect(x).toBe(copy[i]! + noise[i]!);
    });
    const lap = laplaceNoise(100, 2, { rng: createRng({ seed: 12 }) });
    expect(addLaplaceNoise(new Float64Array(100).fill(1), 2, { rng: createRng({ seed: 12 }) })).toEqual(lap.map((x) => 1 + x));
  });

  it('the Into variants overwrite a given array with exactly the noise the allocating ones draw', () => {
    const out = new Float64Array(20_000).fill(NaN);
    expect(gaussianNoiseInto(out, 2, { rng: createRng({ seed: 13 }) })).toBe(out);
    expect(out).toEqual(gaussianNoise(20_000, 2, { rng: createRng({ seed: 13 }) }));
    expect(laplaceNoiseInto(out, 1, { rng: createRng({ seed: 14 }) })).toEqual(laplaceNoise(20_000, 1, { rng: createRng({ seed: 14 }) }));
    expect(() => gaussianNoiseInto([1, 2] as never, 1)).toThrow(/`out` must be a Float64Array; got an array of length 2/);
  });

  it('takes scales as an array of numbers as every other option does', () => {
    expect(gaussianNoise(3, [1, 2, 4], { rng: createRng({ seed: 5 }) })).toEqual(
      gaussianNoise(3, Float64Array.from([1, 2, 4]), { rng: createRng({ seed: 5 }) }),
    );
  });

  it('length 0 and length 1 work', () => {
    expect(gaussianNoise(0, 1).length).toBe(0);
    expect(laplaceNoise(1, 1).length).toBe(1);
  });
});

describe('bad input throws before any noise is drawn, and leaves values unchanged', () => {
  const values = () => Float64Array.from([1, 2, 3]);
  it.each<[string, () => unknown, typeof TypeError, RegExp]>([
    ['negative scale', () => gaussianNoise(3, -1), RangeError, /`scales` must be a number >= 0 and <= 1e\+150; got -1\./],
    ['NaN scale', () => laplaceNoise(3, NaN), RangeError, /`scales` .* got NaN\./],
    ['infinite scale', () => gaussianNoise(3, Infinity), RangeError, /`scales`/],
    ['NaN in scales', () => gaussianNoise(3, Float64Array.from([1, NaN, 1])), RangeError, /`scales\[1\]` must be a finite number >= 0; got NaN\./],
    ['scales of the wrong length', () => gaussianNoise(3, new Float64Array(2)), RangeError, /`scales.length` must be 3/],
    ['scales as an array with a bad entry', () => gaussianNoise(3, [1, '1', 1] as never), TypeError, /`scales\[1\]` must be a number; got "1"\./],
    [
      'scales of another type',
      () => gaussianNoise(3, 'wide' as never),
      TypeError,
      /`scales` must be a number, a Float64Array or an array of numbers, or \{ sizes, scales \}; got string/,
    ],
    ['fractional length', () => gaussianNoise(2.5, 1), RangeError, /`length` must be an integer; got 2.5\./],
    ['negative length', () => laplaceNoise(-1, 1), RangeError, /`length`/],
    ['values not a Float64Array', () => addGaussianNoise([1, 2] as never, 1), TypeError, /`values` must be a Float64Array; got an array\./],
    ['unknown option', () => gaussianNoise(3, 1, { seed: 1 } as never), TypeError, /unknown option `seed`/],
    ['rng not from createRng', () => gaussianNoise(3, 1, { rng: {} as never }), TypeError, /`rng` must be a generator made by createRng/],
    ['bad seed', () => createRng({ seed: 1.5 }), RangeError, /`seed` must be a safe integer/],
    ['seed of a wrong type', () => createRng({ seed: {} as never }), TypeError, /`seed` must be a number, bigint, string or Uint8Array/],
  ])('%s', (_, call, ErrorType, message) => {
    expect(call).toThrow(ErrorType);
    expect(call).toThrow(message);
  });

  it('a failed add leaves values unchanged', () => {
    for (const [v, scales] of [
      [values(), Float64Array.from([1, -1, 1])],
      [Float64Array.from([1, NaN, 3]), 1],
      [Float64Array.from([1, 2, Infinity]), 1],
    ] as const) {
      const before = Float64Array.from(v);
      expect(() => addGaussianNoise(v, scales)).toThrow(RangeError);
      expect(() => addLaplaceNoise(v, scales)).toThrow(RangeError);
      expect(Array.from(v)).toEqual(Array.from(before));
    }
  });

  it('the values noise is added to are private: an error names `values`, never their content', async () => {
    await expectWithheld(() => addGaussianNoise('SECRET-123' as never, 1), TypeError, ['`values` must be a Float64Array'], ['SECRET', '123']);
    await expectWithheld(() => addLaplaceNoise([31415.92] as never, 1), TypeError, ['`values` must be a Float64Array'], ['31415']);
  });
});

describe('long vectors', () => {
  it('K = 1e8 works and wasm memory does not grow', () => {
    const w = wasm();
    const before = w.memory.buffer.byteLength;
    const values = new Float64Array(1e8);
    addGaussianNoise(values, 1, { rng: createRng({ seed: 8 }) });
    expect(w.memory.buffer.byteLength).toBe(before);
    expect(Number.isFinite(values[99_999_999]!) && values[99_999_999] !== 0).toBe(true);
    let sum2 = 0;
    for (let i = 0; i < 1e8; i += 97) sum2 += values[i]! ** 2;
    // Statistical: the mean of 1.03e6 squares, standard error sqrt(2 / 1.03e6) = 0.0014: 0.01 is 7 of them.
    expect(Math.abs(sum2 / Math.ceil(1e8 / 97) - 1)).toBeLessThan(0.01);
  });
});

describe('WasmVectors: the same noise drawn where the vector is (docs/noise.md, "Vectors in WebAssembly memory")', () => {
  const K = 20_000; // three chunks of the scratch buffers
  const seeded = () => ({ rng: createRng({ seed: 'in-place' }) });
  const values = Float64Array.from({ length: K }, (_, i) => 100 + i / 3);
  const perCoordinate = Float64Array.from({ length: K }, (_, i) => 0.5 + (i % 10) / 10);
  const vectorOf = (a: Float64Array): WasmVector => {
    const v = wasmVector(a.length);
    v.values.set(a);
    return v;
  };
  const SCALES: [string, () => number | Float64Array | WasmVector | { sizes: number[]; scales: number[] }][] = [
    ['one scale', () => 1.5],
    ['per-coordinate scales, a Float64Array', () => perCoordinate],
    ['per-coordinate scales, a WasmVector', () => vectorOf(perCoordinate)],
    ['per-group scales', () => ({ sizes: [K / 4, (3 * K) / 4], scales: [1, 3] })],
  ];
  const SAMPLERS = [
    ['Gaussian', gaussianNoiseInto, addGaussianNoise],
    ['Laplace', laplaceNoiseInto, addLaplaceNoise],
  ] as const;

  for (const [family, into, add] of SAMPLERS) {
    it.each(SCALES)(`${family}: into and add on a WasmVector equal the Float64Array calls to the bit (%s)`, (_, scales) => {
      const s = scales();
      const plainScales = typeof s === 'object' && 'free' in s ? perCoordinate : s;
      const out = wasmVector(K);
      expect(into(out, s, seeded())).toBe(out);
      expect(out.values).toEqual(into(new Float64Array(K), plainScales, seeded()));
      const v = vectorOf(values);
      expect(add(v, s, seeded())).toBe(v);
      expect(v.values).toEqual(add(values.slice(), plainScales, seeded()));
      for (const vector of [out, v, s]) if (typeof vector === 'object' && 'free' in vector) vector.free();
    });

    it(`${family}: one vector as both the values and the scales`, () => {
      const v = vectorOf(perCoordinate);
      add(v, v, seeded());
      expect(v.values).toEqual(add(perCoordinate.slice(), perCoordinate, seeded()));
      v.free();
    });

    it(`${family}: bad input throws before any noise is drawn, and leaves the vectors unchanged`, () => {
      const v = vectorOf(values);
      const badScales = vectorOf(perCoordinate);
      badScales.values[K - 1] = -1; // the last, read after every other
      expect(() => add(v, badScales, seeded())).toThrow(`\`scales[${K - 1}]\` must be a finite number >= 0; got -1.`);
      expect(() => into(v, badScales, seeded())).toThrow(RangeError);
      const short = wasmVector(K - 1);
      expect(() => add(v, short, seeded())).toThrow(`\`scales.length\` must be ${K} (one entry per coordinate); got ${K - 1}.`);
      expect(v.values).toEqual(values);
      v.values[K - 1] = Number.NaN;
      expect(() => add(v, 1, seeded())).toThrow(`\`values[${K - 1}]\` must be a finite number; got NaN.`);
      v.values[K - 1] = Number.POSITIVE_INFINITY;
      expect(() => add(v, 1, seeded())).toThrow(`\`values[${K - 1}]\` must be a finite number; got Infinity.`);
      v.values[K - 1] = 12.5;
      expect(() => add(v, 2e150, seeded())).toThrow(RangeError);
      expect(v.values.subarray(0, K - 1)).toEqual(values.subarray(0, K - 1));
      expect(v.values[K - 1]).toBe(12.5);
      for (const vector of [v, badScales, short]) vector.free();
    });
  }
});
