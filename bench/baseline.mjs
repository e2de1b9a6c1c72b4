// Pure-JavaScript baseline for the calibration benchmarks (no WebAssembly).
//
// A straightforward scalar implementation of the same mathematics as dpnoise (docs/math.md,
// docs/accounting.md and docs/calibration.md), written the way one would without the package: plain functions and loops,
// no SIMD, no chunking, no special-casing beyond what the formulas need.
//   - erfc / erfcx: W. J. Cody's rational Chebyshev approximations (CALERF, Math. Comp. 23
//     (1969) 631-637; the netlib SPECFUN routine), accurate to a few ulp.
//   - Q(x), log Q(x) (through erfcx, so no underflow), Q^-1(p) (Wichura's AS 241).
//   - delta(eps; mu) = Q(a) - e^eps Q(b), a = eps/mu - mu/2, b = eps/mu + mu/2, evaluated as
//     docs/accounting.md ("Gaussian privacy") says: exp(logQ(a)) * -expm1(eps + logQ(b) - logQ(a)).
//   - mu0(eps, delta) by bisection on w = 1/mu over [0, w_u] (docs/accounting.md, "Calibration"; Algorithm 1 of
//     the conference paper) to 1e-12 relative, returning the safe end of the bracket.
//   - The p = 2 optimal Gaussian allocation sigma_i = sqrt(Delta_1 lambda_i) / mu0 in a plain loop.
// It exists to measure what the WebAssembly implementation buys; it is not part of the package.

const SQRT1_2 = Math.SQRT1_2;
const INV_SQRT_PI = 0.56418958354775628695;

// Cody's coefficients: erf on |x| <= 0.46875 (A, B), erfc on (0.46875, 4] (C, D), on (4, inf) (P, Q).
const A = [3.1611237438705656, 113.864154151050156, 377.485237685302021, 3209.37758913846947, 0.185777706184603153];
const B = [23.6012909523441209, 244.024637934444173, 1282.61652607737228, 2844.23683343917062];
const C = [
  0.564188496988670089, 8.88314979438837594, 66.1191906371416295, 298.635138197400131, 881.95222124176909, 1712.04761263407058, 2051.07837782607147,
  1230.33935479799725, 2.15311535474403846e-8,
];
const D = [
  15.7449261107098347, 117.693950891312499, 537.181101862009858, 1621.38957456669019, 3290.79923573345963, 4362.61909014324716, 3439.36767414372164,
  1230.33935480374942,
];
const P = [0.305326634961232344, 0.360344899949804439, 0.125781726111229246, 0.0160837851487422766, 6.58749161529837803e-4, 0.0163153871373020978];
const Q = [2.56852019228982242, 1.87295284992346047, 0.527905102951428412, 0.0605183413124413191, 0.00233520497626869185];

/** erfcx(y) = exp(y^2) erfc(y) for y > 0.46875 (Cody's second and third intervals). */
function erfcxTail(y) {
  if (y <= 4) {
    let num = C[8] * y;
    let den = y;
    for (let i = 0; i < 7; i++) {
      num = (num + C[i]) * y;
      den = (den + D[i]) * y;
    }
    return (num + C[7]) / (den + D[7]);
  }
  if (y >= 6.71e7) return INV_SQRT_PI / y;
  const z = 1 / (y * y);
  let num = P[5] * z;
  let den = z;
  for (let i = 0; i < 4; i++) {
    num = (num + P[i]) * z;
    den = (den + Q[i]) * z;
  }
  return (INV_SQRT_PI - (z * (num + P[4])) / (den + Q[4])) / y;
}

/** erf(x) for |x| <= 0.46875. */
function erfSmall(x) {
  const z = x * x;
  let num = A[4] * z;
  let den = z;
  for (let i = 0; i < 3; i++) {
    num = (num + A[i]) * z;
    den = (den + B[i]) * z;
  }
  return (x * (num + A[3])) / (den + B[3]);
}

/** exp(-y^2) with y^2 split as in Cody's code, so its rounding error is not amplified. */
function expNegSquare(y) {
  const ysq = Math.trunc(y * 16) / 16;
  return Math.exp(-ysq * ysq) * Math.exp(-(y - ysq) * (y + ysq));
}

/** Complementary error function. */
export function erfc(x) {
  const y = Math.abs(x);
  if (y <= 0.46875) return 1 - erfSmall(x);
  const r = y >= 26.543 ? 0 : expNegSquare(y) * erfcxTail(y);
  return x < 0 ? 2 - r : r;
}

/** Q(x) = P(Z > x). */
export function normalSf(x) {
  return 0.5 * erfc(x * SQRT1_2);
}

/** log Q(x) without underflow: log(erfcx(x/sqrt2)/2) - x^2/2 for large x. */
export function normalLogSf(x) {
  if (x < 1) return x < 0 ? Math.log1p(-normalSf(-x)) : Math.log(normalSf(x));
  return Math.log(0.5 * erfcxTail(x * SQRT1_2)) - 0.5 * x * x;
}

// Wichura's AS 241 (PPND16).
const WA = [
  3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125, 45921.953931549871457, 67265.770927008700853,
  33430.575583588128105, 2509.0809287301226727,
];
const WB = [
  1, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077, 21213.794301586595867, 39307.89580009271061, 28729.085735721942674,
  5226.495278852854561,
];
const WC = [
  1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504, 1.27045825245236838258, 0.24178072517745061177,
  0.0227238449892691845833, 7.7454501427834140764e-4,
];
const WD = [
  1, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455, 0.14810397642748007459, 0.0151986665636164571966, 5.475938084995344946e-4,
  1.05075007164441684324e-9,
];
const WE = [
  6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 0.29656057182850489123, 0.026532189526576123093, 0.0012426609473880784386,
  2.71155556874348757815e-5, 2.01033439929228813265e-7,
];
const WF = [
  1, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525, 7.868691311456132591e-4, 1.8463183175100546818e-5, 1.4215117583164458887e-7,
  2.04426310338993978564e-15,
];

function poly(c, x) {
  let s = c[c.length - 1];
  for (let i = c.length - 2; i >= 0; i--) s = s * x + c[i];
  return s;
}

/** Q^-1(p) for 0 < p < 1. */
export function normalIsf(p) {
  const q = 0.5 - p;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * poly(WA, r)) / poly(WB, r);
  }
  let r = Math.sqrt(-Math.log(q > 0 ? p : 1 - p));
  let x;
  if (r <= 5) {
    r -= 1.6;
    x = poly(WC, r) / poly(WD, r);
  } else {
    r -= 5;
    x = poly(WE, r) / poly(WF, r);
  }
  return q > 0 ? x : -x;
}

/** The privacy profile delta(eps; mu) (docs/accounting.md, "Gaussian privacy"), for mu > 0. */
export function gaussianDelta(mu, eps) {
  const a = eps / mu - 0.5 * mu;
  const b = eps / mu + 0.5 * mu;
  const logQa = normalLogSf(a);
  return Math.exp(logQa) * -Math.expm1(eps + normalLogSf(b) - logQa);
}

/**
 * mu0(eps, delta) for eps > 0, 0 < delta < 1: Algorithm 1 (bisection on w = 1/mu), stopped when
 * the bracket is 1e-12 relative; returns 1/w_u, which satisfies delta(eps; 1/w_u) <= delta.
 */
export function gaussianMu(eps, delta) {
  if (!(eps > 0)) throw new RangeError('baseline gaussianMu: eps must be > 0');
  const z = normalIsf(delta);
  let lo = 0;
  let hi = (z + Math.sqrt(z * z + 2 * eps)) / (2 * eps);
  while (gaussianDelta(1 / hi, eps) > delta) hi *= 2; // guard against a rounded Q^-1
  while (hi - lo > 1e-12 * lo) {
    const mid = 0.5 * (lo + hi);
    if (gaussianDelta(1 / mid, eps) > delta) lo = mid;
    else hi = mid;
  }
  return 1 / hi;
}

/** Optimal p = 2 Gaussian standard deviations: sigma_i = sqrt(Delta_1 lambda_i) / mu0. */
export function calibrateGaussianOptimal(lambda, eps, delta) {
  const mu = gaussianMu(eps, delta);
  let delta1 = 0;
  for (let i = 0; i < lambda.length; i++) delta1 += lambda[i];
  const sigma = new Float64Array(lambda.length);
  for (let i = 0; i < lambda.length; i++) sigma[i] = Math.sqrt(delta1 * lambda[i]) / mu;
  return sigma;
}

// ---------------------------------------------------------------------------------------------
// Pure-JavaScript baseline for the sampler benchmarks (no WebAssembly, no Math.random).
//
// The textbook samplers, written the way one would without the package:
//   - Gaussian: Box-Muller, both outputs of each pair used: r = sqrt(-2 log u1),
//     z = r cos(2 pi u2), r sin(2 pi u2).
//   - Laplace: -log(u) with a random sign.
// Uniforms have 53 bits, in (0, 1], made from two 32-bit words (the sign of a Laplace draw is the
// lowest bit of its second word, which the uniform does not use). The words come from a 64 KiB
// Uint32Array buffer refilled from one of two sources:
//   - crypto.getRandomValues (the platform CSPRNG, as dpnoise's default; 65536 bytes is the most
//     one call may fill), and
//   - xorshift128+ (Vigna 2014; the generator behind V8's Math.random), with 32-bit halves so it
//     runs on small integers, standing in for a fast seeded JS PRNG.
// Both sources feed the same sampling loops, so the two columns differ only in the generator.
// noise(out, scales, add): out[i] = (add ? out[i] : 0) + noise_i * (scales[i] or scales).

/** 32-bit words per buffer refill: 64 KiB, the most crypto.getRandomValues fills per call. */
const WORDS = 16384;
const TWO_POW_M53 = 2 ** -53;
const TWO_PI = 2 * Math.PI;

/** The platform CSPRNG, 64 KiB at a time. */
export class CryptoWords {
  constructor() {
    this.words = new Uint32Array(WORDS);
    this.next = WORDS;
  }
  refill() {
    crypto.getRandomValues(this.words);
    this.next = 0;
  }
}

/** xorshift128+ (shifts 23, 17, 26), state and output as 32-bit halves. */
export class Xorshift128Plus {
  /** `seed`: a safe integer; the state is expanded from it by SplitMix64 (as BigInt, once). */
  constructor(seed = 1) {
    const mask = (1n << 64n) - 1n;
    let z = BigInt(seed) & mask;
    const splitmix = () => {
      z = (z + 0x9e3779b97f4a7c15n) & mask;
      let x = z;
      x = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
      x = ((x ^ (x >> 27n)) * 0x94d049bb133111ebn) & mask;
      return x ^ (x >> 31n);
    };
    const a = splitmix();
    const b = splitmix();
    /** s0 high, s0 low, s1 high, s1 low (int32 in a typed array: plain fields would hold boxed doubles). */
    this.state = Int32Array.of(Number(a >> 32n) | 0, Number(a & 0xffffffffn) | 0, Number(b >> 32n) | 0, Number(b & 0xffffffffn) | 0);
    this.words = new Uint32Array(WORDS);
    this.next = WORDS;
  }
  /** Writes the next WORDS / 2 outputs as (high, low) pairs. */
  refill() {
    xorshiftWords(this.state, this.words);
    this.next = 0;
  }
}

/** Fills `w` with xorshift128+ outputs (high, low) and advances `state`. */
function xorshiftWords(state, w) {
  let s0h = state[0],
    s0l = state[1],
    s1h = state[2],
    s1l = state[3];
  for (let p = 0; p < w.length; p += 2) {
    // x = s0, y = s1; s0 = y; x ^= x << 23; x ^= x >>> 17; x ^= y ^ (y >>> 26); s1 = x; out = x + y
    let xh = s0h,
      xl = s0l;
    const yh = s1h,
      yl = s1l;
    s0h = yh;
    s0l = yl;
    xh ^= (xh << 23) | (xl >>> 9);
    xl ^= xl << 23;
    xl ^= (xl >>> 17) | (xh << 15);
    xh ^= xh >>> 17;
    xh ^= yh ^ (yh >>> 26);
    xl ^= yl ^ ((yl >>> 26) | (yh << 6));
    s1h = xh;
    s1l = xl;
    const lo = (xl + yl) | 0; // the 64-bit sum in int32 arithmetic, with the carry by comparison
    w[p] = (xh + yh + (lo >>> 0 < xl >>> 0 ? 1 : 0)) | 0;
    w[p + 1] = lo;
  }
  state[0] = s0h;
  state[1] = s0l;
  state[2] = s1h;
  state[3] = s1l;
}

/** A 53-bit uniform in (0, 1] from two 32-bit words. */
function uniform(hi, lo) {
  return ((hi >>> 5) * 67108864 + (lo >>> 6) + 1) * TWO_POW_M53;
}

/** Box-Muller Gaussian noise with standard deviations `scales` (number or Float64Array). */
export function gaussianNoiseInto(out, scales, add, source) {
  const perCoordinate = typeof scales !== 'number';
  const n = out.length;
  let i = 0;
  while (i < n) {
    if (source.next + 4 > WORDS) source.refill();
    const w = source.words;
    let p = source.next;
    const pairs = Math.min((WORDS - p) >> 2, (n - i + 1) >> 1);
    for (let k = 0; k < pairs; k++, p += 4) {
      const r = Math.sqrt(-2 * Math.log(uniform(w[p], w[p + 1])));
      const t = TWO_PI * uniform(w[p + 2], w[p + 3]);
      const s0 = perCoordinate ? scales[i] : scales;
      out[i] = (add ? out[i] : 0) + r * Math.cos(t) * s0;
      i++;
      if (i < n) {
        const s1 = perCoordinate ? scales[i] : scales;
        out[i] = (add ? out[i] : 0) + r * Math.sin(t) * s1;
        i++;
      }
    }
    source.next = p;
  }
  return out;
}

/** Laplace noise with scales b = `scales`: -log(u) * b with a random sign. */
export function laplaceNoiseInto(out, scales, add, source) {
  const perCoordinate = typeof scales !== 'number';
  const n = out.length;
  let i = 0;
  while (i < n) {
    if (source.next + 2 > WORDS) source.refill();
    const w = source.words;
    let p = source.next;
    const end = i + Math.min((WORDS - p) >> 1, n - i);
    for (; i < end; i++, p += 2) {
      const lo = w[p + 1];
      const e = -Math.log(uniform(w[p], lo)) * (perCoordinate ? scales[i] : scales);
      out[i] = (add ? out[i] : 0) + (lo & 1 ? -e : e);
    }
    source.next = p;
  }
  return out;
}

/** A new Float64Array of Box-Muller Gaussian noise (the baseline of dpnoise's gaussianNoise). */
export function gaussianNoise(length, scales, source) {
  return gaussianNoiseInto(new Float64Array(length), scales, false, source);
}

/** Adds Box-Muller Gaussian noise to `values` in place (the baseline of addGaussianNoise). */
export function addGaussianNoise(values, scales, source) {
  return gaussianNoiseInto(values, scales, true, source);
}

/** A new Float64Array of Laplace noise (the baseline of dpnoise's laplaceNoise). */
export function laplaceNoise(length, scales, source) {
  return laplaceNoiseInto(new Float64Array(length), scales, false, source);
}

/** Adds Laplace noise to `values` in place (the baseline of addLaplaceNoise). */
export function addLaplaceNoise(values, scales, source) {
  return laplaceNoiseInto(values, scales, true, source);
}
