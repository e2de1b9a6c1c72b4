// Range checks of long caller arrays where they are in the module's memory: a caller's vector, or
// a chunk of a JavaScript array copied into the scratch buffer VALUES (src/wasm/checks.ts). The
// SIMD build compares four entries per step, the scalar loop finishing the last few, finding the
// first entry outside if there is one, and taking the entries where 0 is allowed (profiles, not
// the per-call arrays this is for).

/** Whether x is outside [min, max] (NaN is) and not an allowed 0. */
// @ts-ignore: decorator
@inline function outside(x: f64, min: f64, max: f64, zero: bool): bool {
  return !(x >= min && x <= max) && !(zero && x == 0.0);
}

/** The index of the first of the n doubles at `start` outside [min, max], 0 allowed when `zero` (NaN never), or -1. */
export function firstOutside(start: usize, n: i32, min: f64, max: f64, zero: bool): i32 {
  let i = 0;
  if (ASC_FEATURE_SIMD && !zero) {
    const lo = f64x2.splat(min);
    const hi = f64x2.splat(max);
    let first = i64x2.splat(-1); // two accumulators, so that no step waits on the one before
    let second = first;
    for (; i + 3 < n; i += 4) {
      const at = start + (<usize>i << 3);
      const x = v128.load(at);
      const y = v128.load(at, 16);
      first = v128.and(first, v128.and(f64x2.ge(x, lo), f64x2.le(x, hi)));
      second = v128.and(second, v128.and(f64x2.ge(y, lo), f64x2.le(y, hi)));
    }
    if (!i64x2.all_true(v128.and(first, second))) i = 0; // some entry is outside: find the first
  }
  for (; i < n; i++) if (outside(load<f64>(start + (<usize>i << 3)), min, max, zero)) return i;
  return -1;
}
