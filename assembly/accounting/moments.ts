// The logarithm of a mass array's moment generating function at several rates, four (eight with
// SIMD) at a time in one pass (src/engine/tails.ts; docs/accounting.md, "Powers in the frequency domain"): the
// Chernoff bounds that choose the window of a composition in the frequency domain.

/** The unit roundoff, 2^-53. */
const U: f64 = 1.1102230246251565e-16;
/** The smallest subnormal double, 2^-1074. */
const TINY: f64 = 5e-324;

// @ts-ignore: decorator
@inline function at(p: usize, i: i32): f64 {
  return load<f64>(p + (<usize>i << 3));
}

/**
 * out[k] = an upper bound on ln of sum_i (x_i + e_i) e^(t_k i), i in [0, n), for every error
 * e >= 0 with |e|_1 <= e1, for the `count` rates t_k at `rates`, all of one sign (t > 0: the
 * error's worst place is i = n - 1; t < 0: i = 0). The sum is taken relative to its anchor, the
 * last index with mass for t > 0 and the first for t < 0 (the array's end when e1 > 0), by
 * Horner's rule in r = e^(-|t|) <= 1 on terms >= 0: it errs by at most 2 (n + 1) u relative, which
 * is added, and terms that underflow lose less than n 2^-1074 in all.
 */
export function logMoments(x: usize, n: i32, e1: f64, rates: usize, count: i32, out: usize): void {
  if (count <= 0) return;
  const up = at(rates, 0) > 0.0;
  let anchor: i32 = up ? n - 1 : 0;
  if (e1 == 0.0) {
    if (up) while (anchor > 0 && !(at(x, anchor) > 0.0)) anchor--;
    else while (anchor < n - 1 && !(at(x, anchor) > 0.0)) anchor++;
  }
  // Independent chains per pass, so that their multiply-adds overlap: four in the scalar build,
  // four pairs of rates in the SIMD build.
  const width = ASC_FEATURE_SIMD ? 8 : 4;
  for (let k = 0; k < count; k += width) {
    if (ASC_FEATURE_SIMD) {
      const r0 = ratioPair(rates, k, count);
      const r1 = ratioPair(rates, k + 2, count);
      const r2 = ratioPair(rates, k + 4, count);
      const r3 = ratioPair(rates, k + 6, count);
      let a0 = f64x2.splat(0.0);
      let a1 = f64x2.splat(0.0);
      let a2 = f64x2.splat(0.0);
      let a3 = f64x2.splat(0.0);
      const step: i32 = up ? 1 : -1;
      for (let i = up ? 0 : n - 1; up ? i <= anchor : i >= anchor; i += step) {
        const v = f64x2.splat(at(x, i)); // sum x_i r^(anchor - i), or r^(i - anchor) for t < 0
        a0 = f64x2.add(f64x2.mul(a0, r0), v);
        a1 = f64x2.add(f64x2.mul(a1, r1), v);
        a2 = f64x2.add(f64x2.mul(a2, r2), v);
        a3 = f64x2.add(f64x2.mul(a3, r3), v);
      }
      finish(out, k, count, rates, anchor, n, e1, f64x2.extract_lane(a0, 0));
      finish(out, k + 1, count, rates, anchor, n, e1, f64x2.extract_lane(a0, 1));
      finish(out, k + 2, count, rates, anchor, n, e1, f64x2.extract_lane(a1, 0));
      finish(out, k + 3, count, rates, anchor, n, e1, f64x2.extract_lane(a1, 1));
      finish(out, k + 4, count, rates, anchor, n, e1, f64x2.extract_lane(a2, 0));
      finish(out, k + 5, count, rates, anchor, n, e1, f64x2.extract_lane(a2, 1));
      finish(out, k + 6, count, rates, anchor, n, e1, f64x2.extract_lane(a3, 0));
      finish(out, k + 7, count, rates, anchor, n, e1, f64x2.extract_lane(a3, 1));
    } else {
      const r0 = ratio(rates, k, count);
      const r1 = ratio(rates, k + 1, count);
      const r2 = ratio(rates, k + 2, count);
      const r3 = ratio(rates, k + 3, count);
      let a0: f64 = 0.0;
      let a1: f64 = 0.0;
      let a2: f64 = 0.0;
      let a3: f64 = 0.0;
      const step: i32 = up ? 1 : -1;
      for (let i = up ? 0 : n - 1; up ? i <= anchor : i >= anchor; i += step) {
        const v = at(x, i);
        a0 = a0 * r0 + v;
        a1 = a1 * r1 + v;
        a2 = a2 * r2 + v;
        a3 = a3 * r3 + v;
      }
      finish(out, k, count, rates, anchor, n, e1, a0);
      finish(out, k + 1, count, rates, anchor, n, e1, a1);
      finish(out, k + 2, count, rates, anchor, n, e1, a2);
      finish(out, k + 3, count, rates, anchor, n, e1, a3);
    }
  }
}

/** e^(-|t_k|) for the rate t_k, or 0 past count (a chain whose result is not used). */
// @ts-ignore: decorator
@inline function ratio(rates: usize, k: i32, count: i32): f64 {
  return k < count ? Math.exp(-Math.abs(at(rates, k))) : 0.0;
}

// @ts-ignore: decorator
@inline function ratioPair(rates: usize, k: i32, count: i32): v128 {
  return f64x2.replace_lane(f64x2.splat(ratio(rates, k, count)), 1, ratio(rates, k + 1, count));
}

/** out[k] from its Horner sum (nothing past count). */
// @ts-ignore: decorator
@inline function finish(out: usize, k: i32, count: i32, rates: usize, anchor: i32, n: i32, e1: f64, sum: f64): void {
  if (k >= count) return;
  const shift = at(rates, k) * <f64>anchor;
  store<f64>(out + (<usize>k << 3), shift + Math.log(sum + e1 + <f64>n * TINY) + 2.0 * <f64>(n + 2) * U * (1.0 + Math.abs(shift)));
}
