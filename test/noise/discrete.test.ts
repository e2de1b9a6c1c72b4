// The exact discrete Laplace and discrete Gaussian samplers (assembly/noise/discrete.ts) on the build
// of the test project: their laws, the fast path against the exact path (src/noise/discrete-exact.ts),
// and random words running out. What does not depend on the build loaded (the exact path's law, the
// SIMD build against the scalar one) is in discrete-builds.test.ts; the longest checks of the CSPRNG
// path in discrete.long.test.ts (npm run test:long).
import { afterEach, describe, expect, it } from 'vitest';
import { cellTable, compareWithExp } from '../../src/noise/discrete-exact.js';
import { wasm } from '../../src/wasm/loader.js';
import { builds } from '../helpers.js';
import {
  chunk,
  chiSquare,
  csprngDraws,
  type DiscreteKernel,
  expectCsprngPmf,
  expectLaw,
  gaussianCdf,
  laplaceCdf,
  rejectsCsprng,
  rejectsSeeded,
  seededDraws,
} from './discrete-laws.js';

const w = wasm();

// Laplace scales t and Gaussian variances s covering every branch: below the cells' range (t < 8,
// s < 64: discrete.ts's samplers), its first width (w = 0: t in [8, 16), s in [64, 256)), both
// ends of tiers, and wide cells up to 2^40 grid steps.
const LAPLACE_SCALES = [0.7, 1, 3, 7.99, 8, 15.99, 31.9, 32, 1000.5, 3e5, 2 ** 39 * 1.97];
const GAUSSIAN_VARIANCES = [0.4, 1, 2, 10, 63.9, 64, 255.9, 256, 400, 1e6 + 0.5, 1e10, 2 ** 79 * 1.03];

describe("the inversion's logarithm (assembly/noise/log-uniform.ts)", () => {
  it('-ln(u 2^-63) is within 2^-46 of the true value at the ends, the slice edges and random words', () => {
    const w = wasm();
    // The reference: 63 ln 2 - ln u, with u split so that each part converts exactly; its own
    // roundings (63 ln 2 and a total up to 44) are within 2^-47.
    const reference = (u: bigint) => {
      if (u < 1n << 53n) return 63 * Math.LN2 - Math.log(Number(u));
      const high = Number(u >> 11n) * 2048;
      const low = Number(u & 2047n);
      return 63 * Math.LN2 - Math.log(high) - Math.log1p(low / high);
    };
    const words: bigint[] = [1n, 2n, 3n, (1n << 62n) - 1n, 1n << 62n, (1n << 63n) - 1n];
    for (let j = 0n; j < 512n; j++) {
      const edge = (1n << 62n) + (j << 53n); // the slice edges, for U just below 1
      words.push(edge, edge - 1n, edge + 1n, edge >> 37n);
    }
    let state = 2026n;
    for (let i = 0; i < 20000; i++) {
      state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
      words.push((state >> 1n) >> BigInt(i % 60) || 1n);
    }
    let worst = 0;
    for (const u of words) worst = Math.max(worst, Math.abs(w.minusLogUniformOf(u) - reference(u)));
    expect(worst).toBeLessThanOrEqual(2 ** -46 + 2 ** -47); // measured 2^-46 (at u = 1: two ulp of 43.7, one of them the reference's)
    expect(worst).toBeGreaterThan(0); // the comparison sees rounding at all
    // The SIMD build's two-lane version (u rounded to a double first), on the same words.
    const simd = builds.find(([name]) => name === 'simd')![1];
    let worstPair = 0;
    for (const u of words) worstPair = Math.max(worstPair, Math.abs(simd.minusLogUniformPairOf(u) - reference(u)));
    expect(worstPair).toBeLessThanOrEqual(2 ** -46 + 2 ** -47);
    expect(worstPair).toBeGreaterThan(0);
  });

  it('the lanes exp(-x) is within 2^-35 relative on [0, 700] and 2^-40 on [0, 1/16] (small), 700 beyond, and keeps NaN (docs/noise.md, "exp in lanes")', () => {
    const simd = builds.find(([name]) => name === 'simd')![1];
    // Math.exp is within an ulp (2^-52 relative), far inside the bounds. The points: both sides of
    // every switch of k = nearest(x / ln 2) (the widest r), 0, the ends, and random ones.
    const xs = [0, 2 ** -60, 1 / 16, 1, 700];
    for (let k = 0; k <= 1010; k++) {
      const edge = (k + 0.5) * Math.LN2;
      xs.push(edge, edge * (1 - 2 ** -52), edge * (1 + 2 ** -52), k * Math.LN2);
    }
    let state = 2025;
    const smalls = [0, 2 ** -60, 1 / 32, 1 / 16];
    for (let i = 0; i < 20000; i++) {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      xs.push((state / 2 ** 31) * 40);
      smalls.push(state / 2 ** 31 / 16);
    }
    const worst = (list: number[], small: boolean) => Math.max(...list.map((x) => Math.abs(simd.expMinusPairOf(x, small) / Math.exp(-x) - 1)));
    const general = worst(
      xs.filter((x) => x <= 700),
      false,
    );
    expect(general).toBeLessThanOrEqual(2 ** -35); // measured 2^-36.6, at the widest r
    expect(general).toBeGreaterThan(2 ** -38); // the comparison sees the truncated series
    const small = worst(smalls, true);
    expect(small).toBeLessThanOrEqual(2 ** -40); // measured 2^-40.3, at 1/16
    expect(small).toBeGreaterThan(2 ** -43);
    expect(simd.expMinusPairOf(1e6, false)).toBe(simd.expMinusPairOf(700, false));
    expect(simd.expMinusPairOf(Number.NaN, false)).toBeNaN(); // a lane not drawn stays undecided, never accepted
  });
});

describe('the cell tables (assembly/noise/cells.ts, docs/noise.md "Cells")', () => {
  /** The top of a tier's range of r^2 = s / 4^w, as a rational. */
  const tierTop = (tier: number) => ({ n: BigInt(2 ** (6 + (tier >> 3)) * (9 + (tier & 7))), d: 8n });
  /** The bound's exponent at cell k: k^2 / (2 r^2) at the tier's top. */
  const exponent = (tier: number, k: number) => {
    const top = tierTop(tier);
    return { n: BigInt(k * k) * top.d, d: 2n * top.n };
  };

  it('every table adds up to 2^19, its alias columns give each entry its weight, and each weight bounds the law from above, exactly', () => {
    for (let tier = 0; tier < 16; tier++) {
      const where = `tier ${tier}`;
      const table = cellTable(w, tier); // throws unless the weights add up to 2^19
      expect(table.weights.length, where).toBe(128);
      const fromColumns = new Array<bigint>(128).fill(0n);
      table.splits.forEach((split, column) => {
        fromColumns[column]! += BigInt(split >> 8);
        fromColumns[split & 0xff]! += BigInt(2 ** 12 - (split >> 8));
      });
      expect(fromColumns, where).toEqual(table.weights);
      expect(table.weights[0], where).toBe(table.size);
      // H_k / S > exp(-x_k): the cells' bounds; H_tail / 2^19 > exp(-x_127): stepping 127 cells out.
      for (let k = 1; k < 127; k++) expect(compareWithExp({ n: table.weights[k]!, d: table.size }, exponent(tier, k)), `${where}, cell ${k}`).toBe(1);
      expect(compareWithExp({ n: table.weights[127]!, d: 1n << 19n }, exponent(tier, 127)), `${where}, tail`).toBe(1);
    }
  });

  it('a variance parameter goes to the tier whose top bounds it, at the width that puts s / 4^w in [64, 256)', () => {
    let state = 99n;
    const scales: number[] = [64, 255.99999999999997, 256, 2 ** 86 * 1.999, 2 ** 87];
    for (let i = 0; i < 4000; i++) {
      state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
      scales.push(2 ** (3 + (Number(state >> 11n) / 2 ** 53) * 86));
    }
    const bits = new DataView(new ArrayBuffer(8));
    for (const scale of scales) {
      bits.setFloat64(0, scale);
      const e = (bits.getUint16(0) >> 4) - 1023; // the binade of the scale, from its bits
      const table = w.cellTableOf(scale);
      const width = Math.floor((e - 6) / 2);
      if (width < 0 || width > 40) {
        expect(table, `${scale}`).toBe(-1);
        continue;
      }
      const reduced = scale / 2 ** (2 * width); // exact
      const top = tierTop(table);
      expect(reduced >= 64 && reduced < 256, `${scale}`).toBe(true);
      expect(reduced < Number(top.n) / Number(top.d), `${scale} below its tier's top`).toBe(true);
      expect(reduced >= (2 ** (6 + (table >> 3)) * (8 + (table & 7))) / 8, `${scale} in its tier`).toBe(true);
    }
  });
});

describe('exact discrete Laplace and Gaussian samplers (fast path)', () => {
  it.each(LAPLACE_SCALES)('discrete Laplace, t = %d: chi-square on 1e6 draws, and a scale 5% off is rejected', (t) => {
    expectLaw(seededDraws('discreteLaplaceSamples', t, 1_000_000), laplaceCdf, t, `t = ${t}`);
  });

  it.each(GAUSSIAN_VARIANCES)('discrete Gaussian, s = %d: chi-square on 1e6 draws, and a variance 5% off is rejected', (s) => {
    expectLaw(seededDraws('discreteGaussianSamples', s, 1_000_000), gaussianCdf, s, `s = ${s}`);
  });

  it('gives the same integers for every chunk split, exactly 0 for scale 0, and huge scales stay finite integers', () => {
    const all = seededDraws('discreteLaplaceSamples', 5, 20_000);
    new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set([0xd15c7e7en, 0x9e3779b97f4a7c15n]);
    w.useSeededExtras();
    w.seededWords(1000, 700);
    w.discreteLaplaceSamples(1000, 700, 0, 5, 1, w.valuesPointer(), w.valuesPointer(), w.scalesPointer());
    expect(Array.from(new Float64Array(w.memory.buffer, w.valuesPointer(), 700))).toEqual(Array.from(all.subarray(1000, 1700)));
    expect(seededDraws('discreteLaplaceSamples', 0, 100).every((y) => y === 0)).toBe(true);
    expect(seededDraws('discreteGaussianSamples', 0, 100).every((y) => y === 0)).toBe(true);
    for (const y of seededDraws('discreteLaplaceSamples', 2 ** 40, 10_000)) expect(Number.isSafeInteger(y)).toBe(true);
  });
});

describe('the exact path: the same function of the random words, to the last draw', () => {
  it.each([
    ['discreteLaplaceSamples', [0.01, 0.7, 1, 3.7, 31.9, 32, 1000.5, 2 ** 40]],
    ['discreteGaussianSamples', [0.01, 0.5, 2, 1e6, 2 ** 79]],
  ] as const)('%s: every draw forced through the exact path equals the fast path on the same words', (kernel, scales) => {
    for (const scale of scales) {
      const fast = seededDraws(kernel, scale, 600, { seed: 77n });
      const exact = seededDraws(kernel, scale, 600, { seed: 77n, exact: true });
      expect(Array.from(exact), `${kernel} at ${scale}`).toEqual(Array.from(fast));
    }
  });

  /** One coordinate of `kernel` drawn from `primary` and then `pool`, fast or forced exact: its output and whether the exact path was called. */
  function oneDraw(
    kernel: DiscreteKernel | 'discreteStaircaseSamples',
    scale: number,
    primary: bigint,
    pool: bigint[],
    exact: boolean,
  ): readonly [number, boolean] {
    w.setExactOnly(exact);
    new Float64Array(w.memory.buffer, w.exactPointer(), 8).fill(-7); // shows whether a hand-over happened
    new BigUint64Array(w.memory.buffer, w.randomPointer(), 1).set([primary]);
    new BigUint64Array(w.memory.buffer, w.extraPointer(), pool.length).set(pool);
    w.usePoolExtras(pool.length);
    if (kernel === 'discreteStaircaseSamples') {
      // Steps D = 1 and high parts r = 0: discrete Laplace noise of scale t = 1 / eps, drawn by discrete.ts's sampler at any t.
      new Float64Array(w.memory.buffer, w.scalesPointer(), 1).set([1]);
      new Float64Array(w.memory.buffer, w.shapesPointer(), 1).set([0]);
      new Float64Array(w.memory.buffer, w.epsilonsPointer(), 1).set([scale]);
      w.discreteStaircaseSamples(0, 1, 0, 1, 1);
    } else w[kernel](0, 1, 0, scale, 1, w.valuesPointer(), w.valuesPointer(), w.scalesPointer());
    w.setExactOnly(false);
    const handedOver = new Float64Array(w.memory.buffer, w.exactPointer(), 8)[6] !== -7;
    return [new Float64Array(w.memory.buffer, w.valuesPointer(), 1)[0]!, handedOver];
  }

  const noise = [0x0123456789abcdefn, 0xfedcba9876543210n, 0x5555aaaa5555aaaan, 0x3c3c3c3c3c3c3c3cn, 0x0f1e2d3c4b5a6978n, 0x7766554433221100n];

  it("hands a draw of discrete.ts's samplers over mid-way (remainder and acceptance stages) and finishes it as the exact path does from the start", () => {
    // Pool words placed on a threshold (to double precision, within the fast path's margin)
    // force a hand-over in the middle of a draw.
    const LOW = 0x7fffffffffffffffn;
    const onThreshold = (high: bigint, shift: number, x: number) => (high << BigInt(64 - shift)) | BigInt(Math.floor(Math.exp(-x) * 2 ** (64 - shift)));
    const trialWord = (u: number) => BigInt(Math.floor(u * 2 ** 63)) & LOW; // sign 0: no redraw of 0
    const cases: Array<[string, DiscreteKernel | 'discreteStaircaseSamples', number, bigint, bigint]> = [
      // t = 1000.5 (the staircase's discrete Laplace): b = 5, B = 32; the L word's V sits on exp(-17 / t).
      ['Laplace remainder', 'discreteStaircaseSamples', 1000.5, trialWord(0.4), onThreshold(17n, 5, 17 / 1000.5)],
      // s = 2: T = 2, U = 0.18 gives Y = floor(-2 ln U) = 3, gamma = (3 - 1)^2 / 4 = 1.
      ['Gaussian acceptance', 'discreteGaussianSamples', 2, trialWord(0.18), onThreshold(0n, 0, 1)],
    ];
    for (const [stage, kernel, scale, primary, first] of cases) {
      const [fast, handedOver] = oneDraw(kernel, scale, primary, [first, ...noise], false);
      expect(handedOver, `${stage}: the fast path could not decide`).toBe(true);
      expect(fast, stage).toBe(oneDraw(kernel, scale, primary, [first, ...noise], true)[0]);
    }
    w.usePoolExtras(0);
  });

  it('two Laplace draws at a time keep L in a lane only when V lies surely below exp(-l/t), and the one-by-one draw redraws the rejected (docs/noise.md, "Two Laplace draws at a time")', () => {
    // t = 1000.5: b = 5, B = 32, L's word holds l in its top 5 bits and V in the 59 below. With l =
    // 17 (z = l/t), V is placed below exp(-z) (kept) and just above it (rejected, L redrawn from the
    // next word). Coordinate 0 takes the case's L word, both then the same filler words, so the
    // fast draws (two at a time in the SIMD build) must equal the exact path's.
    const t = 1000.5;
    const z = 17 / t;
    const lWord = (v: number) => (17n << 59n) | BigInt(Math.floor(v * 2 ** 59));
    const filler = lWord(0.125) & ((1n << 59n) - 1n); // l = 0, V = 1/8: kept
    const primaries = [0x2345678912345678n, 0x1111222233334444n]; // sign 0, H sure
    const draws = (first: bigint, exact: boolean) => {
      w.setExactOnly(exact);
      new BigUint64Array(w.memory.buffer, w.randomPointer(), 2).set(primaries);
      const pool = [first, ...Array.from({ length: 15 }, () => filler)];
      new BigUint64Array(w.memory.buffer, w.extraPointer(), pool.length).set(pool);
      w.usePoolExtras(pool.length);
      w.discreteLaplaceSamples(0, 2, 0, t, 1, w.valuesPointer(), w.valuesPointer(), w.scalesPointer());
      w.setExactOnly(false);
      return Array.from(new Float64Array(w.memory.buffer, w.valuesPointer(), 2));
    };
    // Beyond the lanes' margin (2^-30) of exp(-z), the lane decides; within it, the one-by-one draw.
    const cases: Array<[string, number, boolean]> = [
      ['2^-20 below exp(-l/t)', Math.exp(-z) - 2 ** -20, true],
      ['2^-40 below exp(-l/t)', Math.exp(-z) - 2 ** -40, true],
      ['2^-40 above exp(-l/t)', Math.exp(-z) + 2 ** -40, false],
      ['2^-20 above exp(-l/t)', Math.exp(-z) + 2 ** -20, false],
    ];
    for (const [where, v, kept] of cases) {
      const fast = draws(lWord(v), false);
      expect(fast, where).toEqual(draws(lWord(v), true));
      // Kept, coordinate 0's magnitude ends in l = 17 (mod B = 32); rejected, in the filler's l = 0.
      expect(Math.abs(fast[0]!) % 32, where).toBe(kept ? 17 : 0);
    }
    w.usePoolExtras(0);
  });

  /** The cell table of a variance parameter, and the word layout of a cell trial (assembly/noise/cells.ts). */
  function cellCase(scale: number) {
    const table = cellTable(w, w.cellTableOf(scale));
    const e = Math.floor(Math.log2(scale)); // the scales here are not near a power of two's edge
    const width = Math.floor((e - 6) / 2);
    const bits = 44 - width;
    /** A word picking entry k (through its own column, u = 0), the offset and V's top bits. */
    const word = (k: number, offset: bigint, v: bigint, negative = false) => ((negative ? 1n : 0n) << 63n) | (BigInt(k) << 56n) | (offset << BigInt(bits)) | v;
    /** The acceptance threshold a of magnitude n in cell k, in double precision. */
    const threshold = (k: number, n: number) => Math.exp(-(n * n) / (2 * scale)) * (Number(table.size) / Number(table.weights[k]!));
    return { table, width, bits, word, threshold };
  }

  it('hands a cell draw over at its acceptance (V close to the threshold; with V extended by a word) and finishes it as the exact path does', () => {
    // s = 100: cells of one integer (w = 0), V has 44 bits; they are set to the threshold.
    {
      const { table, word, threshold } = cellCase(100);
      const k = 5;
      expect(table.splits[k]! >> 8, 'cell 5 keeps part of its own column').toBeGreaterThan(0);
      const primary = word(k, 0n, BigInt(Math.floor(threshold(k, 5) * 2 ** 44)));
      const [fast, handedOver] = oneDraw('discreteGaussianSamples', 100, primary, noise, false);
      expect(handedOver, 's = 100: the fast path could not decide').toBe(true);
      expect(fast).toBe(oneDraw('discreteGaussianSamples', 100, primary, noise, true)[0]);
    }
    // s = 2^76: cells of 2^35 integers, V has 9 bits; the threshold lies strictly inside their
    // interval, so the next word extends V, whose 53 bits are then set to the threshold.
    const scale = 2 ** 76;
    const { table, width, bits, word, threshold } = cellCase(scale);
    expect([width, bits]).toEqual([35, 9]);
    const k = 7;
    expect(table.splits[k]! >> 8).toBeGreaterThan(0);
    const offset = 12345n;
    const a = threshold(k, k * 2 ** 35 + Number(offset));
    const top = BigInt(Math.floor(a * 2 ** 53));
    const extension = ((top & ((1n << 44n) - 1n)) << 20n) | 0xabcden;
    const primary = word(k, offset, top >> 44n);
    const [fast, handedOver] = oneDraw('discreteGaussianSamples', scale, primary, [extension, ...noise], false);
    expect(handedOver, 's = 2^76: the fast path could not decide').toBe(true);
    expect(new Float64Array(w.memory.buffer, w.exactPointer(), 8)[3], 'V was extended').toBe(1);
    expect(fast).toBe(oneDraw('discreteGaussianSamples', scale, primary, [extension, ...noise], true)[0]);
    w.usePoolExtras(0);
  });

  it('decides in double precision where a is near 1 with V at the top of its bits, and where a is tiny with V at the bottom (wide cells)', () => {
    // Gaussian s = 2^80: cells of 2^37 integers, V has 7 bits. An absolute margin handed both over
    // to the exact path: near-zero noise (a within 2^-30 of 1) with V's bits all 1, one release in
    // about 100 of those, and trials in cells of the least weight with V's bits all 0.
    const scale = 2 ** 80;
    const { table, word } = cellCase(scale);
    const least = table.weights.findIndex((h, k) => k > 0 && h === 1n);
    expect(least, 'a cell of weight 1').toBeGreaterThan(0);
    expect(table.splits[least]! >> 8).toBeGreaterThan(0);
    for (const [where, primary] of [
      ['near 0, V at the top', word(0, 3n, (1n << 7n) - 1n)],
      ['a cell of weight 1, V at the bottom', word(least, 5n, 0n)],
    ] as const) {
      const [fast, handedOver] = oneDraw('discreteGaussianSamples', scale, primary, noise, false);
      expect(handedOver, where).toBe(false);
      expect(fast, where).toBe(oneDraw('discreteGaussianSamples', scale, primary, noise, true)[0]);
    }
    w.usePoolExtras(0);
  });

  it('steps outwards on the tail entry, hands the draw over after 16 steps, and finishes it as the exact path does', () => {
    // s = 255 (tier 15, the heaviest tail): column 127 with u = 0 picks the tail.
    const { table, word } = cellCase(255);
    expect(table.splits[127]! >> 8).toBeGreaterThan(0);
    const step = word(127, 0n, 0n);
    for (const steps of [1, 3, 17]) {
      const pool = [...Array.from({ length: steps - 1 }, () => step), ...noise, ...noise];
      const [fast, handedOver] = oneDraw('discreteGaussianSamples', 255, step, pool, false);
      expect(handedOver, `${steps} steps`).toBe(steps >= 16);
      expect(fast, `${steps} steps`).toBe(oneDraw('discreteGaussianSamples', 255, step, pool, true)[0]);
    }
    w.usePoolExtras(0);
  });

  // Power (scipy's ncx2 at the rejection level, 6 df): 1e5 Laplace draws miss a 5% change with
  // probability below 1e-14; 1e5 Gaussian draws miss a 10% change with probability below 1e-31
  // (noncentrality 385 to 448, as 4e5 draws against a 5% change: 417 to 451). At 1e5 a 5% change
  // of the Gaussian is missed with probability 0.0024 to 0.0078 per check: 4e5 draws check that in
  // discrete.long.test.ts.
  it.each([1, 2, 3, 4, 5])('pool of %i words: discrete Laplace t = 1 and discrete Gaussian s = 2 keep their law (chi-square with power)', (poolWords) => {
    expectLaw(csprngDraws('discreteLaplaceSamples', 1, 100_000, poolWords), laplaceCdf, 1, `Laplace, pool ${poolWords}`, rejectsCsprng);
    expectLaw(csprngDraws('discreteGaussianSamples', 2, 100_000, poolWords), gaussianCdf, 2, `Gaussian, pool ${poolWords}`, rejectsCsprng, 1.1);
  });

  // At large scales the SIMD build reads words ahead (extraWordsInto, in bulk): the Laplace's L
  // words, the cell draws' words of later rounds; 2e5 draws miss a 5% change in scale with
  // probability below 1e-20.
  it.each([1, 3])(
    'pool of %i words: discrete Laplace t = 1000.5 and discrete Gaussian s = 1e6 + 0.5 (cell draws) keep their law (chi-square with power)',
    (poolWords) => {
      expectLaw(csprngDraws('discreteLaplaceSamples', 1000.5, 200_000, poolWords), laplaceCdf, 1000.5, `Laplace, pool ${poolWords}`, rejectsCsprng);
      expectLaw(csprngDraws('discreteGaussianSamples', 1e6 + 0.5, 200_000, poolWords), gaussianCdf, 1e6 + 0.5, `Gaussian, pool ${poolWords}`, rejectsCsprng);
    },
  );

  // 5.5 SE: each of the 14 cells strays that far with probability 3.8e-8; at |y| = 1 that band is
  // 0.38% (Laplace) and 0.31% (Gaussian) of the count. 4e7 draws, a band of 0.12% and 0.10%, in
  // discrete.long.test.ts.
  it('the CSPRNG path: 4e6 draws of discrete Laplace t = 1 and discrete Gaussian s = 2 within 5.5 SE of the PMF at every |y| <= 6', () => {
    expectCsprngPmf(4_000_000);
  });
});

afterEach(() => w.setExactOnly(false));

describe('the discrete staircase (discreteStaircaseSamples)', () => {
  /** n draws of steps D, high parts r and discrete Laplace scale t, seeded; with `exact`, every Laplace sub-draw through the exact path. */
  function staircaseDraws(D: number, r: number, t: number, n: number, { seed = 0x57a1n, exact = false } = {}): Float64Array {
    new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set([seed, 0x9e3779b97f4a7c15n]);
    w.useSeededExtras();
    w.setExactOnly(exact);
    try {
      const out = new Float64Array(n);
      for (let start = 0; start < n; start += chunk) {
        const m = Math.min(chunk, n - start);
        w.seededWords(start, m);
        new Float64Array(w.memory.buffer, w.scalesPointer(), m).fill(D);
        new Float64Array(w.memory.buffer, w.epsilonsPointer(), m).fill(t);
        new Float64Array(w.memory.buffer, w.shapesPointer(), m).fill(r);
        w.discreteStaircaseSamples(start, m, 0, 1, 1);
        out.set(new Float64Array(w.memory.buffer, w.valuesPointer(), m), start);
      }
      return out;
    } finally {
      w.setExactOnly(false);
    }
  }

  /** P(Y <= k) of P(y) proportional to b^phi(|y|), phi(m) = floor(m / D) + (m mod D >= r), b = e^(-1/t) (docs/staircase.md, "The discrete staircase"). */
  function staircaseCdf(D: number, r: number, t: number): (k: number) => number {
    const b = Math.exp(-1 / t);
    const weight = (y: number) => b ** (Math.floor(Math.abs(y) / D) + (Math.abs(y) % D >= r ? 1 : 0));
    const reach = Math.ceil(60 * t * D) + D;
    const masses = Array.from({ length: 2 * reach + 1 }, (_, j) => weight(j - reach));
    const total = masses.reduce((a, x) => a + x, 0);
    const below: number[] = [];
    masses.reduce((a, x, j) => (below[j] = a + x / total), 0);
    return (k) => (k < -reach ? 0 : k >= reach ? 1 : below[k + reach]!);
  }

  const CASES: Array<[D: number, r: number, t: number]> = [
    [1, 0, 1],
    [1, 1, 0.5],
    [3, 1, 2],
    [10, 3, 0.7],
    [7, 7, 1.5],
    [5, 0, 3],
    [40, 9, 0.25],
  ];

  it.each(CASES)('D = %d, r = %d, t = %d: chi-square on 4e5 draws, and t 5% off or (D > 1) a high part one step off is rejected', (D, r, t) => {
    const draws = staircaseDraws(D, r, t, 400_000);
    expect(draws.every(Number.isInteger)).toBe(true);
    expect(rejectsSeeded(chiSquare(draws, staircaseCdf(D, r, t)))).toBe(false);
    expect(rejectsSeeded(chiSquare(draws, staircaseCdf(D, r, t * 1.05))), 't 5% wider').toBe(true);
    // With D = 1 every r gives the same law (b^m up to a constant): there is no wrong r to reject.
    const other = r < D ? r + 1 : r - 1;
    if (D > 1) expect(rejectsSeeded(chiSquare(draws, staircaseCdf(D, other, t))), `r = ${other}`).toBe(true);
  });

  it('every Laplace sub-draw forced through the exact path gives the same draws', () => {
    for (const [D, r, t] of CASES) {
      const fast = staircaseDraws(D, r, t, 500, { seed: 31n });
      expect(Array.from(staircaseDraws(D, r, t, 500, { seed: 31n, exact: true })), `exact, D ${D}`).toEqual(Array.from(fast));
    }
  });
});
