// Convolution of probability mass functions by the fast Fourier transform (docs/accounting.md,
// "Composition by FFT"). An iterative radix-2 transform over interleaved complex doubles; the
// twiddle factors are each computed directly with cos and sin (no recurrence, so their error does
// not grow with the length). Two real sequences are transformed together as the real and the
// imaginary part of one complex sequence; a real sequence raised to a power (a square, or a
// release composed with itself many times: docs/accounting.md, "Powers in the frequency domain")
// as one complex sequence of half its length.
//
// Layout (pointers into linear memory the caller reserved, see arena.ts): `work` holds 2n doubles
// (n complex values), n a power of two at least the length of the result; `tw` holds the twiddles
// of a size m >= n (m/2 complex values), which serve every smaller power of two with stride m/n.
// The caller keeps one table, computed by twiddles() for the largest size it has needed.

/** 2 pi. */
const TWO_PI: f64 = 6.283185307179586;

// @ts-ignore: decorator
@inline function re(p: usize, k: i32): f64 {
  return load<f64>(p + (<usize>k << 4));
}
// @ts-ignore: decorator
@inline function im(p: usize, k: i32): f64 {
  return load<f64>(p + (<usize>k << 4), 8);
}
// @ts-ignore: decorator
@inline function set(p: usize, k: i32, x: f64, y: f64): void {
  store<f64>(p + (<usize>k << 4), x);
  store<f64>(p + (<usize>k << 4), y, 8);
}

/** tw[k] = exp(-2 pi i k / n) for k < n/2. */
export function twiddles(tw: usize, n: i32): void {
  for (let k = 0; k < n >> 1; k++) {
    const angle = (TWO_PI * <f64>k) / <f64>n;
    set(tw, k, Math.cos(angle), -Math.sin(angle));
  }
}

/** In place: the bit-reversal permutation of the n complex values at `data`. */
function bitReverse(data: usize, n: i32): void {
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const xr = re(data, i);
      const xi = im(data, i);
      set(data, i, re(data, j), im(data, j));
      set(data, j, xr, xi);
    }
  }
}

/**
 * In place: the discrete Fourier transform of the n complex values at `data` (unscaled), with the
 * twiddles of size m. The inverse is conj(FFT(conj x)): the callers store conjugates before it and
 * read conjugates after it. Radix 2, decimation in time, pointers over linear memory; in the SIMD
 * build a complex value is one f64x2 and b w is [br, br] [wr, wi] -+ [bi, bi] [wi, wr].
 */
function transform(data: usize, n: i32, tw: usize, m: i32): void {
  bitReverse(data, n);
  const end = data + (<usize>n << 4);
  for (let length = 2; length <= n; length <<= 1) {
    const halfBytes = <usize>(length >> 1) << 4;
    const step = <usize>(m / length) << 4;
    for (let start = data; start < end; start += halfBytes << 1) {
      const stop = start + halfBytes;
      let pw = tw;
      if (ASC_FEATURE_SIMD) {
        for (let pa = start; pa < stop; pa += 16, pw += step) {
          const pb = pa + halfBytes;
          const w = v128.load(pw);
          const b = v128.load(pb);
          const p = f64x2.mul(v128.shuffle<f64>(b, b, 0, 0), w); // [br wr, br wi]
          const q = f64x2.mul(v128.shuffle<f64>(b, b, 1, 1), v128.shuffle<f64>(w, w, 1, 0)); // [bi wi, bi wr]
          const t = v128.shuffle<f64>(f64x2.sub(p, q), f64x2.add(p, q), 0, 3); // b w
          const a = v128.load(pa);
          v128.store(pa, f64x2.add(a, t));
          v128.store(pb, f64x2.sub(a, t));
        }
      } else {
        for (let pa = start; pa < stop; pa += 16, pw += step) {
          const pb = pa + halfBytes;
          const wr = load<f64>(pw);
          const wi = load<f64>(pw, 8);
          const br = load<f64>(pb);
          const bi = load<f64>(pb, 8);
          const tr = br * wr - bi * wi;
          const ti = br * wi + bi * wr;
          const ar = load<f64>(pa);
          const ai = load<f64>(pa, 8);
          store<f64>(pa, ar + tr);
          store<f64>(pa, ai + ti, 8);
          store<f64>(pb, ar - tr);
          store<f64>(pb, ai - ti, 8);
        }
      }
    }
  }
}

/** The transforms at one frequency of the real and the imaginary part of a sequence, set by splitPair. */
let realRe: f64 = 0.0;
let realIm: f64 = 0.0;
let imagRe: f64 = 0.0;
let imagIm: f64 = 0.0;

/**
 * From the transform Z of a complex sequence at `work`: the transforms at frequency k of its real
 * part, (Z_k + conj Z_k2) / 2, and of its imaginary part, (Z_k - conj Z_k2) / (2i), with k2 the
 * mirror frequency of k (n - k modulo n).
 */
// @ts-ignore: decorator
@inline function splitPair(work: usize, k: i32, k2: i32): void {
  const zr = re(work, k);
  const zi = im(work, k);
  const vr = re(work, k2);
  const vi = im(work, k2);
  realRe = 0.5 * (zr + vr);
  realIm = 0.5 * (zi - vi);
  imagRe = 0.5 * (zi + vi);
  imagIm = -0.5 * (zr - vr);
}

/**
 * out[0 .. na + nb - 1) = the convolution of the na doubles at a and the nb doubles at b (out may
 * overlap neither). n: a power of two >= na + nb - 1.
 */
export function convolve(a: usize, na: i32, b: usize, nb: i32, out: usize, work: usize, n: i32, tw: usize, m: i32): void {
  for (let k = 0; k < n; k++) set(work, k, k < na ? load<f64>(a + (<usize>k << 3)) : 0.0, k < nb ? load<f64>(b + (<usize>k << 3)) : 0.0);
  transform(work, n, tw, m);
  // With Z = FFT(a + i b): A_k = (Z_k + conj Z_{n-k}) / 2, B_k = (Z_k - conj Z_{n-k}) / (2i); C = A B.
  // Pairs (k, n - k) are updated together, so each reads the other's original values.
  for (let k = 0; k <= n >> 1; k++) {
    const m = (n - k) & (n - 1);
    splitPair(work, k, m);
    const akr = realRe;
    const aki = realIm;
    const bkr = imagRe;
    const bki = imagIm;
    // Stored conjugated, for the inverse transform (transform's note): conj C_k, and C_m = conj C_k.
    set(work, k, akr * bkr - aki * bki, -(akr * bki + aki * bkr));
    if (m != k) set(work, m, akr * bkr - aki * bki, akr * bki + aki * bkr);
  }
  transform(work, n, tw, m);
  const scale = 1.0 / <f64>n;
  for (let k = 0; k < na + nb - 1; k++) store<f64>(out + (<usize>k << 3), re(work, k) * scale);
}

/**
 * out[0 .. 2 na - 1) = the convolution of the na doubles at a with themselves. n: a power of two
 * >= 2 na - 1 (at least 2).
 */
export function square(a: usize, na: i32, out: usize, work: usize, n: i32, tw: usize, m: i32): void {
  power(a, na, 2.0, out, 2 * na - 1, work, n, tw, m, 0.0, 0);
}

/** The result of complexPower. */
let powerRe: f64 = 0.0;
let powerIm: f64 = 0.0;
/** A power below this (2^-600) is taken as 0 by power(). */
const NEGLIGIBLE: f64 = 2.409919865102884e-181; // 2^-600
/** Below this squared modulus (2^-900) a base's next square underflows: the power is taken as 0. */
const UNDERFLOW: f64 = 1.1830521861667747e-271; // 2^-900

/**
 * (xr + i xi)^times into powerRe, powerIm, by binary powering (`times` a positive integer; 0 gives 0). Each
 * product errs by at most sqrt(2) gamma_2 relative, and squaring doubles a factor's relative error,
 * so the result is within (1 + 4u)^times - 1 of x^times relative; a base whose square would
 * underflow ends it with 0, within 2^-450 of the true power.
 */
function complexPower(xr: f64, xi: f64, times: f64): void {
  if (times == 0.0) {
    powerRe = 0.0; // a negligible power (see power), not x^0
    powerIm = 0.0;
    return;
  }
  let rr: f64 = 1.0;
  let ri: f64 = 0.0;
  let br = xr;
  let bi = xi;
  for (let e = times; ; ) {
    if (e % 2.0 == 1.0) {
      const t = rr * br - ri * bi;
      ri = rr * bi + ri * br;
      rr = t;
    }
    e = Math.floor(e * 0.5);
    if (e == 0.0) break;
    if (br * br + bi * bi < UNDERFLOW) {
      rr = 0.0;
      ri = 0.0;
      break;
    }
    const t = br * br - bi * bi;
    bi = 2.0 * br * bi;
    br = t;
  }
  powerRe = rr;
  powerIm = ri;
}

/** The spectrum at a pair of frequencies (k, h - k) of a real sequence, set by spectrumPair. */
let xRe: f64 = 0.0;
let xIm: f64 = 0.0;
let uRe: f64 = 0.0;
let uIm: f64 = 0.0;

/**
 * Packs the na doubles at a (na <= n, zeros after) as the n/2 complex values z_j = x_2j + i x_2j+1
 * at `work` and transforms them: spectrumPair then reads the real sequence's spectrum (see power).
 */
function forwardReal(a: usize, na: i32, work: usize, n: i32, tw: usize, m: i32): void {
  const h = n >> 1;
  for (let j = 0; j < h; j++) {
    const even = 2 * j;
    set(work, j, even < na ? load<f64>(a + (<usize>even << 3)) : 0.0, even + 1 < na ? load<f64>(a + (<usize>(even + 1) << 3)) : 0.0);
  }
  transform(work, h, tw, m);
}

/**
 * X_k into (xRe, xIm) and X_(h-k) into (uRe, uIm), for 0 <= k <= h/2, from forwardReal's
 * transform Z at `work` (h = n/2; tw[k stride] = w^k): X_k = E_k + w^k O_k and
 * X_(h-k) = conj(E_k - w^k O_k), with E_k = (Z_k + conj Z_(h-k)) / 2 and
 * O_k = (Z_k - conj Z_(h-k)) / (2i). At k = 0 the latter is X_h (real).
 */
// @ts-ignore: decorator
@inline function spectrumPair(work: usize, k: i32, h: i32, tw: usize, stride: i32): void {
  splitPair(work, k, (h - k) & (h - 1)); // the even- and the odd-indexed values' transforms
  const er = realRe;
  const ei = realIm;
  const or = imagRe;
  const oi = imagIm;
  const wr = re(tw, k * stride);
  const wi = im(tw, k * stride);
  const pr = wr * or - wi * oi; // w^k O
  const pi = wr * oi + wi * or;
  xRe = er + pr;
  xIm = ei + pi;
  uRe = er - pr;
  uIm = -(ei - pi);
}

/**
 * The inverse of spectrumPair for the spectrum Y of a real sequence (Hermitian): from Y_k and
 * Y_(h-k), F_k = Y_k + conj Y_(h-k) and G_k = (Y_k - conj Y_(h-k)) conj(w^k) stored (conjugated,
 * for the inverse transform: transform's note) as F_k + i G_k at k and conj F_k + i conj G_k at h - k.
 */
// @ts-ignore: decorator
@inline function storeSpectrumPair(work: usize, k: i32, h: i32, tw: usize, stride: i32, yr: f64, yi: f64, sr: f64, si: f64): void {
  const k2 = (h - k) & (h - 1);
  const wr = re(tw, k * stride);
  const wi = im(tw, k * stride);
  const fr = yr + sr;
  const fi = yi - si;
  const dr = yr - sr;
  const di = yi + si;
  const gr = dr * wr + di * wi;
  const gi = di * wr - dr * wi;
  set(work, k, fr - gi, -(fi + gr)); // conj(F_k + i G_k)
  if (k2 != k) set(work, k2, fr + gi, fi - gr); // conj(conj F_k + i conj G_k)
}

/** The inverse transform of storeSpectrumPair's values at `work`, scaled by 1/n: the real sequence's first outLength values into out. */
function inverseReal(work: usize, n: i32, tw: usize, m: i32, out: usize, outLength: i32): void {
  transform(work, n >> 1, tw, m);
  const scale = 1.0 / <f64>n;
  for (let t = 0; t < outLength; t++) {
    const j = t >> 1;
    store<f64>(out + (<usize>t << 3), ((t & 1) == 0 ? re(work, j) : -im(work, j)) * scale);
  }
}

/**
 * out[0 .. outLength) = the first outLength values of the times-fold circular self-convolution
 * of the na doubles at a (na <= n), period n (a power of two, at least 2): the inverse transform of
 * X^times, X the transform of a. A real sequence needs only a complex transform of half its
 * length: z_j = x_2j + i x_2j+1, and with h = n/2, w = e^(-2 pi i / n), Z = FFT_h(z),
 *   X_k = E_k + w^k O_k,  E_k = (Z_k + conj Z_(h-k)) / 2,  O_k = (Z_k - conj Z_(h-k)) / (2i),
 * and X_(h-k) = conj(E_k - w^k O_k). Back, from Y = X^times (Hermitian: Y_(k+h) = conj Y_(h-k)),
 *   F_k = Y_k + conj Y_(h-k),  G_k = (Y_k - conj Y_(h-k)) conj(w^k),
 * F_(h-k) = conj F_k, G_(h-k) = conj G_k, and IFFT_h(F + i G) / n holds y_2j + i y_2j+1.
 *
 * With `sums` (not 0), the error bound's sums over the n frequencies (docs/accounting.md, "Powers
 * in the frequency domain"), for m_k = |X_k| + slack as computed: sums[0] = sum of
 * m_k^(2 (times - 1)) and sums[1] = sum of m_k^(2 times) (frequencies k and n - k alike).
 */
export function power(a: usize, na: i32, times: f64, out: usize, outLength: i32, work: usize, n: i32, tw: usize, m: i32, slack: f64, sums: usize): void {
  const h = n >> 1;
  forwardReal(a, na, work, n, tw, m);
  const stride = m / n; // tw[k stride] = w^k
  let s0: f64 = 0.0;
  let s1: f64 = 0.0;
  // Pairs (k, h - k) are updated together, so each reads the other's original values.
  for (let k = 0; k <= h >> 1; k++) {
    const k2 = (h - k) & (h - 1);
    spectrumPair(work, k, h, tw, stride);
    const xr = xRe;
    const xi = xIm;
    const ur = uRe;
    const ui = uIm;
    // Y = X^times; with `sums`, a power below 2^-600 is taken as 0 (within N 2^-600 in l2 norm in all, in the bound's margin).
    let mk: f64 = 1.0;
    let mu: f64 = 1.0;
    if (sums != 0) {
      // Frequency k (weight 2 but at k = 0) and frequency h - k (weight 2 but at h; once when it is k).
      const wk: f64 = k == 0 ? 1.0 : 2.0;
      const wu: f64 = k == 0 ? 1.0 : k2 == k ? 0.0 : 2.0;
      const bk = Math.hypot(xr, xi) + slack;
      const bu = Math.hypot(ur, ui) + slack;
      mk = Math.pow(bk, times);
      mu = Math.pow(bu, times);
      s0 += wk * (mk / bk) * (mk / bk) + wu * (mu / bu) * (mu / bu);
      s1 += wk * mk * mk + wu * mu * mu;
    }
    complexPower(xr, xi, mk < NEGLIGIBLE ? 0.0 : times);
    const yr = powerRe;
    const yi = powerIm;
    complexPower(ur, ui, mu < NEGLIGIBLE ? 0.0 : times);
    storeSpectrumPair(work, k, h, tw, stride, yr, yi, powerRe, powerIm);
  }
  if (sums != 0) {
    store<f64>(sums, s0);
    store<f64>(sums, s1, 8);
  }
  inverseReal(work, n, tw, m, out, outLength);
}

/**
 * The product of the spectra of several real sequences, one at a time (docs/accounting.md,
 * "Products in the frequency domain"): `spectrum` holds Y_k for k = 0 .. n/2 (complex), `moduli`
 * the product M_k of m_k = |X_k| + slack over the factors so far, and `slopes` the sum of
 * slack / m_k over them (n/2 + 1 doubles each). productStart sets Y = 1, M = 1 and the sums 0;
 * a product whose M_k falls below 2^-600 is taken as 0 from then on (M_k and Y_k 0).
 */
export function productStart(spectrum: usize, moduli: usize, slopes: usize, n: i32): void {
  for (let k = 0; k <= n >> 1; k++) {
    set(spectrum, k, 1.0, 0.0);
    store<f64>(moduli + (<usize>k << 3), 1.0);
    store<f64>(slopes + (<usize>k << 3), 0.0);
  }
}

/** One factor of the product: Y_k times X_k of the na doubles at a (na <= n), `slack` its transform's error bound. */
export function productStep(a: usize, na: i32, n: i32, work: usize, tw: usize, m: i32, slack: f64, spectrum: usize, moduli: usize, slopes: usize): void {
  const h = n >> 1;
  forwardReal(a, na, work, n, tw, m);
  const stride = m / n;
  for (let k = 0; k <= h >> 1; k++) {
    spectrumPair(work, k, h, tw, stride);
    multiplyInto(spectrum, moduli, slopes, k, xRe, xIm, slack);
    if (k != 0 && h - k != k) multiplyInto(spectrum, moduli, slopes, h - k, uRe, uIm, slack);
    else if (k == 0) multiplyInto(spectrum, moduli, slopes, h, uRe, uIm, slack);
  }
}

// @ts-ignore: decorator
@inline function multiplyInto(spectrum: usize, moduli: usize, slopes: usize, k: i32, xr: f64, xi: f64, slack: f64): void {
  const pm = moduli + (<usize>k << 3);
  const previous = load<f64>(pm);
  if (previous == 0.0) return; // taken as 0 already
  // |X_k| <= 1 + slack: no overflow; a square that underflows loses less than the slack covers.
  const mk = Math.sqrt(xr * xr + xi * xi) + slack;
  const product = previous * mk;
  if (product < NEGLIGIBLE) {
    store<f64>(pm, 0.0);
    set(spectrum, k, 0.0, 0.0);
    return;
  }
  store<f64>(pm, product);
  const ps = slopes + (<usize>k << 3);
  store<f64>(ps, load<f64>(ps) + slack / mk);
  const yr = re(spectrum, k);
  const yi = im(spectrum, k);
  set(spectrum, k, yr * xr - yi * xi, yr * xi + yi * xr);
}

/**
 * out[0 .. n) = the inverse transform of the product (the circular convolution of the factors,
 * period n), and sums[0] = sum over the n frequencies of (M_k S_k)^2, sums[1] = that of M_k^2
 * (frequencies k and n - k alike), for the error bound.
 */
export function productEnd(spectrum: usize, moduli: usize, slopes: usize, out: usize, n: i32, work: usize, tw: usize, m: i32, sums: usize): void {
  const h = n >> 1;
  const stride = m / n;
  let s0: f64 = 0.0;
  let s1: f64 = 0.0;
  for (let k = 0; k <= h; k++) {
    const weight: f64 = k == 0 || k == h ? 1.0 : 2.0;
    const mk = load<f64>(moduli + (<usize>k << 3));
    const sk = mk * load<f64>(slopes + (<usize>k << 3));
    s0 += weight * sk * sk;
    s1 += weight * mk * mk;
  }
  for (let k = 0; k <= h >> 1; k++) {
    const k2 = k == 0 ? h : h - k;
    storeSpectrumPair(work, k, h, tw, stride, re(spectrum, k), im(spectrum, k), re(spectrum, k2), im(spectrum, k2));
  }
  store<f64>(sums, s0);
  store<f64>(sums, s1, 8);
  inverseReal(work, n, tw, m, out, n);
}
