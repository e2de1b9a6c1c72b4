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

/** minusLogUniform for tests (u as a 64-bit integer). */
export function minusLogUniformOf(u: u64): f64 {
  tabulateLogUniform();
  return minusLogUniform(u);
}
