// -ln U for the uniform U = u 2^-63 that a 63-bit word u stands for, without a division or a
// general logarithm (docs/noise.md, "The fast path"): U = m 2^-k with m in [1, 2) (k the word's
// leading zeros), m near the centre c_j of one of 512 equal slices of [1, 2), and
// -ln U = k ln 2 - ln c_j - ln(1 + r), r = m / c_j - 1, |r| <= 2^-10, by four terms of the series
// of ln(1 + r), grouped so that few operations wait on each other (a draw's time is mostly this
// chain's latency). ln c_j and 1 / c_j are tabulated once, by Math.log (under one ulp).
import { exactDouble } from "./samplers";

const SLICES: i32 = 512;
/** [ln c_j, 1 / c_j] for each slice j: static data, as the kernels' buffers (memory.ts), never in the accountant's arena. */
const TABLE: usize = memory.data(2 * SLICES << 3, 16);
let tabulated = false;

/** ln 2 in two parts, the first with 21 trailing zero bits, so that k times it is exact for k < 2^21 (fdlibm's ln2_hi, ln2_lo). */
const LN2_HI = reinterpret<f64>(0x3FE62E42FEE00000); // 6.93147180369123816490e-01
const LN2_LO = reinterpret<f64>(0x3DEA39EF35793C76); // 1.90821492927058770002e-10
/** 2^-52. */
const TWO_M52: f64 = 2.220446049250313e-16;

/** Fills the table on first use (the kernels call it once per call). */
export function tabulateLogUniform(): void {
  if (tabulated) return;
  for (let j = 0; j < SLICES; j++) {
    const c = 1.0 + (<f64>j + 0.5) / <f64>SLICES; // exact
    store<f64>(TABLE + (<usize>j << 4), Math.log(c));
    store<f64>(TABLE + (<usize>j << 4), 1.0 / c, 8);
  }
  tabulated = true;
}

/**
 * -ln(u 2^-63) for 1 <= u < 2^63, within 2^-46 (docs/noise.md, "The fast path"): m is the top 53
 * bits of u after its leading one (relative error under 2^-52); r = m / c_j - 1 is computed as
 * m (1 / c_j) - 1, the subtraction exact (Sterbenz), within 2^-52; the series stops at r^4 (the
 * rest is under r^5 / 5 < 2^-52), its own rounding under 2^-60; ln c_j is within 2^-53,
 * k LN2_HI is exact, and the three additions to a total below 44 round by at most 2^-48 each.
 * Needs tabulateLogUniform first.
 */
// @ts-ignore: decorator
@inline export function minusLogUniform(u: u64): f64 {
  const k = clz(u); // u = v 2^-k with v = u << k in [2^63, 2^64): U = m 2^-k
  const v = u << k;
  const j = <i32>((v >>> 54) & 0x1FF);
  const m = exactDouble(v >>> 11) * TWO_M52; // in [1, 2)
  const slice = TABLE + (<usize>j << 4);
  const r = m * load<f64>(slice, 8) - 1.0;
  const r2 = r * r;
  const series = r - 0.5 * r2 + r2 * (r * (0.3333333333333333 - 0.25 * r)); // r - r^2/2 + r^3/3 - r^4/4
  const kf = <f64>k;
  return kf * LN2_HI - load<f64>(slice) - series + kf * LN2_LO;
}

// Lane constants of the SIMD code, in linear memory: V8 rebuilds a v128 constant at every use in
// a loop (three instructions), where a load from memory is one.
export const LANE_ZERO = memory.data<u64>([0, 0], 16);
/** 2^52: OR-ed with an integer below 2^52, its bits make the double 2^52 plus that integer. */
export const LANE_TWO_52_BITS = memory.data<u64>([0x4330000000000000, 0x4330000000000000], 16);
const LANE_LOW_32 = memory.data<u64>([0xFFFFFFFF, 0xFFFFFFFF], 16);
const LANE_TWO_32 = memory.data<f64>([4294967296.0, 4294967296.0], 16);
const LANE_MANTISSA = memory.data<u64>([0x000FFFFFFFFFFFFF, 0x000FFFFFFFFFFFFF], 16);
export const LANE_ONE = memory.data<f64>([1.0, 1.0], 16);
const LANE_SLICE = memory.data<u64>([0x1FF, 0x1FF], 16);
const LANE_THIRD = memory.data<f64>([0.3333333333333333, 0.3333333333333333], 16);
const LANE_QUARTER = memory.data<f64>([0.25, 0.25], 16);
export const LANE_HALF = memory.data<f64>([0.5, 0.5], 16);
const LANE_1086 = memory.data<u64>([1086, 1086], 16);
export const LANE_LN2_HI = memory.data<u64>([0x3FE62E42FEE00000, 0x3FE62E42FEE00000], 16);
export const LANE_LN2_LO = memory.data<u64>([0x3DEA39EF35793C76, 0x3DEA39EF35793C76], 16);
/** The biased exponent of 2^0, and the sign bit. */
export const LANE_1023 = memory.data<u64>([1023, 1023], 16);
export const LANE_SIGN = memory.data<u64>([0x8000000000000000, 0x8000000000000000], 16);

/** An integer below 2^52 in each lane as that double, exactly: OR-ed into 2^52's bits it makes 2^52 plus it, and 2^52 is taken off. */
// @ts-ignore: decorator
@inline export function exactDoubles(x: v128): v128 {
  const magic = v128.load(LANE_TWO_52_BITS);
  return f64x2.sub(v128.or(x, magic), magic);
}

/**
 * Two words below 2^63 as doubles (SIMD lanes), each rounded once: relative error at most 2^-53.
 * WebAssembly SIMD has no conversion from 64-bit integers, so the high and low 32 bits are
 * converted exactly through 2^52's exponent, and high 2^32 + low is rounded once.
 */
// @ts-ignore: decorator
@inline export function wordsAsDoubles(u: v128): v128 {
  const high = exactDoubles(i64x2.shr_u(u, 32));
  const low = exactDoubles(v128.and(u, v128.load(LANE_LOW_32)));
  return f64x2.add(f64x2.mul(high, v128.load(LANE_TWO_32)), low);
}

/**
 * minusLogUniform for two words at once (SIMD lanes), given f = wordsAsDoubles(u), 1 <= u < 2^63:
 * U = m 2^-k with m the mantissa of f and k = 63 minus f's exponent. m errs by at most 2^-53
 * relative (under minusLogUniform's 2^-52), the steps are the same: within 2^-46 likewise.
 */
// @ts-ignore: decorator
@inline export function minusLogUniformPair(f: v128): v128 {
  const one = v128.load(LANE_ONE);
  const m = v128.or(v128.and(f, v128.load(LANE_MANTISSA)), one);
  const j = v128.and(i64x2.shr_u(f, 43), v128.load(LANE_SLICE));
  const slice0 = v128.load(TABLE + (<usize>i64x2.extract_lane(j, 0) << 4));
  const slice1 = v128.load(TABLE + (<usize>i64x2.extract_lane(j, 1) << 4));
  const r = f64x2.sub(f64x2.mul(m, v128.shuffle<i64>(slice0, slice1, 1, 3)), one);
  const r2 = f64x2.mul(r, r);
  const cubic = f64x2.mul(r2, f64x2.mul(r, f64x2.sub(v128.load(LANE_THIRD), f64x2.mul(v128.load(LANE_QUARTER), r))));
  const series = f64x2.add(f64x2.sub(r, f64x2.mul(v128.load(LANE_HALF), r2)), cubic);
  // k = 63 - (exponent of f) = 1086 - its biased exponent, exactly as a double.
  const k = exactDoubles(i64x2.sub(v128.load(LANE_1086), i64x2.shr_u(f, 52)));
  const lnC = v128.shuffle<i64>(slice0, slice1, 0, 2);
  return f64x2.add(f64x2.sub(f64x2.sub(f64x2.mul(k, v128.load(LANE_LN2_HI)), lnC), series), f64x2.mul(k, v128.load(LANE_LN2_LO)));
}

/** minusLogUniform for tests (u as a 64-bit integer). */
export function minusLogUniformOf(u: u64): f64 {
  tabulateLogUniform();
  return minusLogUniform(u);
}

/** minusLogUniformPair for tests, in its second lane (the scalar minusLogUniform in the scalar build). */
export function minusLogUniformPairOf(u: u64): f64 {
  tabulateLogUniform();
  if (!ASC_FEATURE_SIMD) return minusLogUniform(u);
  return f64x2.extract_lane(minusLogUniformPair(wordsAsDoubles(i64x2.replace_lane(i64x2.splat(1), 1, u))), 1);
}
