// Special functions of the standard normal distribution in double precision:
// erfc, the scaled erfcx, Q (upper tail), log Q, the Mills ratio Q/phi, Q^-1, and log Gamma.

// ---------------------------------------------------------------------------------------------
// erfc: a port of musl's src/math/erf.c (origin: FreeBSD s_erf.c, Copyright (C) 1993 by Sun
// Microsystems, Inc.; "Permission to use, copy, modify, and distribute this software is freely
// granted, provided that this notice is preserved."). Error below 1 ulp.
// ---------------------------------------------------------------------------------------------
const ERX = reinterpret<f64>(0x3FEB0AC160000000); // 8.45062911510467529297e-01
// erf on [0, 0.84375]
const PP0 = reinterpret<f64>(0x3FC06EBA8214DB68); // 1.28379167095512558561e-01
const PP1 = reinterpret<f64>(0xBFD4CD7D691CB913); // -3.25042107247001499370e-01
const PP2 = reinterpret<f64>(0xBF9D2A51DBD7194F); // -2.84817495755985104766e-02
const PP3 = reinterpret<f64>(0xBF77A291236668E4); // -5.77027029648944159157e-03
const PP4 = reinterpret<f64>(0xBEF8EAD6120016AC); // -2.37630166566501626084e-05
const QQ1 = reinterpret<f64>(0x3FD97779CDDADC09); // 3.97917223959155352819e-01
const QQ2 = reinterpret<f64>(0x3FB0A54C5536CEBA); // 6.50222499887672944485e-02
const QQ3 = reinterpret<f64>(0x3F74D022C4D36B0F); // 5.08130628187576562776e-03
const QQ4 = reinterpret<f64>(0x3F215DC9221C1A10); // 1.32494738004321644526e-04
const QQ5 = reinterpret<f64>(0xBED09C4342A26120); // -3.96022827877536812320e-06
// erf on [0.84375, 1.25]
const PA0 = reinterpret<f64>(0xBF6359B8BEF77538); // -2.36211856075265944077e-03
const PA1 = reinterpret<f64>(0x3FDA8D00AD92B34D); // 4.14856118683748331666e-01
const PA2 = reinterpret<f64>(0xBFD7D240FBB8C3F1); // -3.72207876035701323847e-01
const PA3 = reinterpret<f64>(0x3FD45FCA805120E4); // 3.18346619901161753674e-01
const PA4 = reinterpret<f64>(0xBFBC63983D3E28EC); // -1.10894694282396677476e-01
const PA5 = reinterpret<f64>(0x3FA22A36599795EB); // 3.54783043256182359371e-02
const PA6 = reinterpret<f64>(0xBF61BF380A96073F); // -2.16637559486879084300e-03
const QA1 = reinterpret<f64>(0x3FBB3E6618EEE323); // 1.06420880400844228286e-01
const QA2 = reinterpret<f64>(0x3FE14AF092EB6F33); // 5.40397917702171048937e-01
const QA3 = reinterpret<f64>(0x3FB2635CD99FE9A7); // 7.18286544141962662868e-02
const QA4 = reinterpret<f64>(0x3FC02660E763351F); // 1.26171219808761642112e-01
const QA5 = reinterpret<f64>(0x3F8BEDC26B51DD1C); // 1.36370839120290507362e-02
const QA6 = reinterpret<f64>(0x3F888B545735151D); // 1.19844998467991074170e-02
// erfc on [1.25, 1/0.35]
const RA0 = reinterpret<f64>(0xBF843412600D6435); // -9.86494403484714822705e-03
const RA1 = reinterpret<f64>(0xBFE63416E4BA7360); // -6.93858572707181764372e-01
const RA2 = reinterpret<f64>(0xC0251E0441B0E726); // -1.05586262253232909814e+01
const RA3 = reinterpret<f64>(0xC04F300AE4CBA38D); // -6.23753324503260060396e+01
const RA4 = reinterpret<f64>(0xC0644CB184282266); // -1.62396669462573470355e+02
const RA5 = reinterpret<f64>(0xC067135CEBCCABB2); // -1.84605092906711035994e+02
const RA6 = reinterpret<f64>(0xC054526557E4D2F2); // -8.12874355063065934246e+01
const RA7 = reinterpret<f64>(0xC023A0EFC69AC25C); // -9.81432934416914548592e+00
const SA1 = reinterpret<f64>(0x4033A6B9BD707687); // 1.96512716674392571292e+01
const SA2 = reinterpret<f64>(0x4061350C526AE721); // 1.37657754143519042600e+02
const SA3 = reinterpret<f64>(0x407B290DD58A1A71); // 4.34565877475229228821e+02
const SA4 = reinterpret<f64>(0x40842B1921EC2868); // 6.45387271733267880336e+02
const SA5 = reinterpret<f64>(0x407AD02157700314); // 4.29008140027567833386e+02
const SA6 = reinterpret<f64>(0x405B28A3EE48AE2C); // 1.08635005541779435134e+02
const SA7 = reinterpret<f64>(0x401A47EF8E484A93); // 6.57024977031928170135e+00
const SA8 = reinterpret<f64>(0xBFAEEFF2EE749A62); // -6.04244152148580987438e-02
// erfc on [1/0.35, 28]
const RB0 = reinterpret<f64>(0xBF84341239E86F4A); // -9.86494292470009928597e-03
const RB1 = reinterpret<f64>(0xBFE993BA70C285DE); // -7.99283237680523006574e-01
const RB2 = reinterpret<f64>(0xC031C209555F995A); // -1.77579549177547519889e+01
const RB3 = reinterpret<f64>(0xC064145D43C5ED98); // -1.60636384855821916062e+02
const RB4 = reinterpret<f64>(0xC083EC881375F228); // -6.37566443368389627722e+02
const RB5 = reinterpret<f64>(0xC09004616A2E5992); // -1.02509513161107724954e+03
const RB6 = reinterpret<f64>(0xC07E384E9BDC383F); // -4.83519191608651397019e+02
const SB1 = reinterpret<f64>(0x403E568B261D5190); // 3.03380607434824582924e+01
const SB2 = reinterpret<f64>(0x40745CAE221B9F0A); // 3.25792512996573918826e+02
const SB3 = reinterpret<f64>(0x409802EB189D5118); // 1.53672958608443695994e+03
const SB4 = reinterpret<f64>(0x40A8FFB7688C246A); // 3.19985821950859553908e+03
const SB5 = reinterpret<f64>(0x40A3F219CEDF3BE6); // 2.55305040643316442583e+03
const SB6 = reinterpret<f64>(0x407DA874E79FE763); // 4.74528541206955367215e+02
const SB7 = reinterpret<f64>(0xC03670E242712D62); // -2.24409524465858183362e+01

const SQRT1_2 = reinterpret<f64>(0x3FE6A09E667F3BCD); // 0.70710678118654752440
const INV_SQRT_PI = reinterpret<f64>(0x3FE20DD750429B6D); // 0.56418958354775628695
const SQRT_PI_OVER_2 = reinterpret<f64>(0x3FF40D931FF62706); // 1.2533141373155002512
export const LOG_SQRT_2PI = reinterpret<f64>(0x3FED67F1C864BEB5); // 0.91893853320467274178

/** Clears the low 32 bits: z*z is then exact, which keeps exp(-x*x) accurate (musl's trick). */
// @ts-ignore: decorator
@inline function highPart(x: f64): f64 {
  return reinterpret<f64>(reinterpret<u64>(x) & 0xFFFFFFFF00000000);
}

/** exp(-0.5625 + R/S) / x for 1.25 <= x < 28: erfc(x) * exp(x^2) in musl's rational form. */
function erfcxMid(x: f64): f64 {
  const s = 1.0 / (x * x);
  let R: f64, S: f64;
  if (x < 2.857142857142857) { // 1/0.35
    R = RA0 + s * (RA1 + s * (RA2 + s * (RA3 + s * (RA4 + s * (RA5 + s * (RA6 + s * RA7))))));
    S = 1.0 + s * (SA1 + s * (SA2 + s * (SA3 + s * (SA4 + s * (SA5 + s * (SA6 + s * (SA7 + s * SA8)))))));
  } else {
    R = RB0 + s * (RB1 + s * (RB2 + s * (RB3 + s * (RB4 + s * (RB5 + s * RB6)))));
    S = 1.0 + s * (SB1 + s * (SB2 + s * (SB3 + s * (SB4 + s * (SB5 + s * (SB6 + s * SB7))))));
  }
  return Math.exp(-0.5625 + R / S) / x;
}

/** Complementary error function, for every double. */
export function erfc(x: f64): f64 {
  if (isNaN(x)) return x;
  const ax = Math.abs(x);
  if (ax < 0.84375) {
    if (ax < 1.3877787807814457e-17) return 1.0 - x; // 2^-56
    const z = x * x;
    const r = PP0 + z * (PP1 + z * (PP2 + z * (PP3 + z * PP4)));
    const s = 1.0 + z * (QQ1 + z * (QQ2 + z * (QQ3 + z * (QQ4 + z * QQ5))));
    const y = r / s;
    if (x < 0.25) return 1.0 - (x + x * y);
    return 0.5 - (x * y + (x - 0.5));
  }
  if (ax < 1.25) {
    const s = ax - 1.0;
    const P = PA0 + s * (PA1 + s * (PA2 + s * (PA3 + s * (PA4 + s * (PA5 + s * PA6)))));
    const Q = 1.0 + s * (QA1 + s * (QA2 + s * (QA3 + s * (QA4 + s * (QA5 + s * QA6)))));
    return x > 0 ? (1.0 - ERX) - P / Q : 1.0 + (ERX + P / Q);
  }
  if (x <= -6.0) return 2.0;
  if (ax >= 28.0) return x > 0 ? 0.0 : 2.0;
  // erfc(|x|) = exp(-x^2) * erfcxMid(|x|), with exp(-x^2) split so that no bits are lost.
  const z = highPart(ax);
  const r = Math.exp(-z * z) * Math.exp((z - ax) * (z + ax)) * erfcxMid(ax);
  return x > 0 ? r : 2.0 - r;
}

/**
 * Scaled complementary error function erfcx(x) = exp(x^2) erfc(x), for x >= 0.
 * Below 1.25 from erfc (exp(x^2) costs at most 2 ulp there); up to 28 musl's rational fit of
 * log(x erfc(x)) + x^2; beyond, the continued fraction of erfc (8 terms reach 2 ulp for x >= 28).
 */
export function erfcx(x: f64): f64 {
  if (x < 1.25) return Math.exp(x * x) * erfc(x);
  if (x < 28.0) return erfcxMid(x);
  let f = x;
  for (let k = 8; k >= 1; k--) f = x + (<f64>k * 0.5) / f;
  return INV_SQRT_PI / f;
}

/** exp(-x^2 / 2) without the rounding error of forming x^2. */
function expNegHalfSquare(x: f64): f64 {
  const z = highPart(x);
  return Math.exp(-0.5 * z * z) * Math.exp(0.5 * (z - x) * (z + x));
}

/** Q(x) = P(Z > x) for a standard normal Z. */
export function normalSf(x: f64): f64 {
  if (x < 1.0) return 0.5 * erfc(x * SQRT1_2);
  return 0.5 * erfcx(x * SQRT1_2) * expNegHalfSquare(x);
}

/** log Q(x), finite for every finite x (no underflow up to x = 1e150 and beyond). */
export function normalLogSf(x: f64): f64 {
  if (x < 0.0) return Math.log1p(-normalSf(-x));
  if (x < 1.0) return Math.log(normalSf(x));
  return Math.log(0.5 * erfcx(x * SQRT1_2)) - 0.5 * x * x;
}

/** log phi(x), the log density of the standard normal. */
// @ts-ignore: decorator
@inline export function normalLogPdf(x: f64): f64 {
  return -0.5 * x * x - LOG_SQRT_2PI;
}

/** The Mills ratio Q(x) / phi(x), for x >= 0 (for x < 0 it is computed as that quotient). */
export function millsRatio(x: f64): f64 {
  if (x >= 0.0) return SQRT_PI_OVER_2 * erfcx(x * SQRT1_2);
  return normalSf(x) / Math.exp(normalLogPdf(x));
}

// ---------------------------------------------------------------------------------------------
// Q^-1: Wichura's algorithm AS 241 (PPND16, Applied Statistics 37 (1988) 477-484), accurate to
// about 1e-16, then in the tails one Newton step on log Q (it also carries p below 1e-300).
// ---------------------------------------------------------------------------------------------
const A0 = reinterpret<f64>(0x400B18D91E9EEF75); // 3.387132872796366608
const A1 = reinterpret<f64>(0x4060A4888B1A436E); // 133.14166789178437745
const A2 = reinterpret<f64>(0x409ECE5D2213C0CC); // 1971.5909503065514427
const A3 = reinterpret<f64>(0x40CAD1D8CD4EE71D); // 13731.693765509461125
const A4 = reinterpret<f64>(0x40E66C3E869B752A); // 45921.953931549871457
const A5 = reinterpret<f64>(0x40F06C1C55B78F20); // 67265.770927008700853
const A6 = reinterpret<f64>(0x40E052D26B2E45E4); // 33430.575583588128105
const A7 = reinterpret<f64>(0x40A39A296F7D925E); // 2509.0809287301226727
const B1 = reinterpret<f64>(0x4045281B386E1AB5); // 42.313330701600911252
const B2 = reinterpret<f64>(0x4085797EFDC8B3F7); // 687.1870074920579083
const B3 = reinterpret<f64>(0x40B512322E75C89F); // 5394.1960214247511077
const B4 = reinterpret<f64>(0x40D4B772D5D65266); // 21213.794301586595867
const B5 = reinterpret<f64>(0x40E3317CAA64F4BE); // 39307.89580009271061
const B6 = reinterpret<f64>(0x40DC0E457CB1AE76); // 28729.085735721942674
const B7 = reinterpret<f64>(0x40B46A7ECA984B69); // 5226.495278852854561
const C0 = reinterpret<f64>(0x3FF6C665FDE9526A); // 1.42343711074968357734
const C1 = reinterpret<f64>(0x4012857748CAB19B); // 4.6303378461565452959
const C2 = reinterpret<f64>(0x401713F71462256A); // 5.7694972214606914055
const C3 = reinterpret<f64>(0x400D2ECB1A3D02C4); // 3.64784832476320460504
const C4 = reinterpret<f64>(0x3FF453CC085375B2); // 1.27045825245236838258
const C5 = reinterpret<f64>(0x3FCEF2ABB9B85C37); // 0.24178072517745061177
const C6 = reinterpret<f64>(0x3F9744EB6C45EC67); // 0.0227238449892691845833
const C7 = reinterpret<f64>(0x3F49615AC0B7ACE9); // 7.7454501427834140764e-4
const D1 = reinterpret<f64>(0x40006CEFBB46A449); // 2.05319162663775882187
const D2 = reinterpret<f64>(0x3FFAD278E6526633); // 1.6763848301838038494
const D3 = reinterpret<f64>(0x3FE61292F23385C9); // 0.68976733498510000455
const D4 = reinterpret<f64>(0x3FC2F5123394F040); // 0.14810397642748007459
const D5 = reinterpret<f64>(0x3F8F207A7EAB17BF); // 0.0151986665636164571966
const D6 = reinterpret<f64>(0x3F41F18CBFDF2728); // 5.475938084995344946e-4
const D7 = reinterpret<f64>(0x3E120D3F686439E4); // 1.05075007164441684324e-9
const E0 = reinterpret<f64>(0x401AA1B1C13EE526); // 6.6579046435011037772
const E1 = reinterpret<f64>(0x4015DAEA6E875003); // 5.4637849111641143699
const E2 = reinterpret<f64>(0x3FFC8EA6461FA445); // 1.7848265399172913358
const E3 = reinterpret<f64>(0x3FD2FAD9315255CF); // 0.29656057182850489123
const E4 = reinterpret<f64>(0x3F9B2B41193B4EE7); // 0.026532189526576123093
const E5 = reinterpret<f64>(0x3F545C1908425345); // 0.0012426609473880784386
const E6 = reinterpret<f64>(0x3EFC6EC6CC59E02A); // 2.71155556874348757815e-5
const E7 = reinterpret<f64>(0x3E8AFB74D693BF93); // 2.01033439929228813265e-7
const F1 = reinterpret<f64>(0x3FE331D34FC7D77F); // 0.59983220655588793769
const F2 = reinterpret<f64>(0x3FC186EB183443FB); // 0.13692988092273580531
const F3 = reinterpret<f64>(0x3F8E76F93215462A); // 0.0148753612908506148525
const F4 = reinterpret<f64>(0x3F49C8BC979DC5D7); // 7.868691311456132591e-4
const F5 = reinterpret<f64>(0x3EF35C2C496374BF); // 1.8463183175100546818e-5
const F6 = reinterpret<f64>(0x3E831446F740B9E0); // 1.4215117583164458887e-7
const F7 = reinterpret<f64>(0x3CE269BFF1F8C190); // 2.04426310338993978564e-15

/** The x with Q(x) = p, for 0 < p < 1. */
export function normalIsf(p: f64): f64 {
  if (!(p > 0.0 && p < 1.0)) return NaN;
  if (p > 0.5) return -normalIsf(1.0 - p); // 1 - p is exact here (Sterbenz)
  const q = 0.5 - p;
  if (q <= 0.425) {
    const r = 0.180625 - q * q;
    return q * (((((((A7 * r + A6) * r + A5) * r + A4) * r + A3) * r + A2) * r + A1) * r + A0) /
      (((((((B7 * r + B6) * r + B5) * r + B4) * r + B3) * r + B2) * r + B1) * r + 1.0);
  }
  const logP = Math.log(p);
  let r = Math.sqrt(-logP);
  let x: f64;
  if (r <= 5.0) {
    r -= 1.6;
    x = (((((((C7 * r + C6) * r + C5) * r + C4) * r + C3) * r + C2) * r + C1) * r + C0) /
      (((((((D7 * r + D6) * r + D5) * r + D4) * r + D3) * r + D2) * r + D1) * r + 1.0);
  } else {
    r -= 5.0;
    x = (((((((E7 * r + E6) * r + E5) * r + E4) * r + E3) * r + E2) * r + E1) * r + E0) /
      (((((((F7 * r + F6) * r + F5) * r + F4) * r + F3) * r + F2) * r + F1) * r + 1.0);
  }
  // d log Q / dx = -1 / millsRatio(x)
  return x + (normalLogSf(x) - logP) * millsRatio(x);
}

// ---------------------------------------------------------------------------------------------
// log Gamma for x > 0: Lanczos approximation with g = 7, n = 9 (the coefficients published by
// Paul Godfrey and used in Numerical Recipes 3rd ed. and SciPy's test suite), ~1e-15 relative.
// Used only for the error moments E|n|^p, not for privacy.
// ---------------------------------------------------------------------------------------------
const LANCZOS_G: f64 = 7.0;
const L0 = reinterpret<f64>(0x3FEFFFFFFFFFF950); // 0.99999999999980993
const L1 = reinterpret<f64>(0x40852429B6C30B05); // 676.5203681218851
const L2 = reinterpret<f64>(0xC093AC8E8ED4171B); // -1259.1392167224028
const L3 = reinterpret<f64>(0x40881A9661D3B4D8); // 771.32342877765313
const L4 = reinterpret<f64>(0xC06613AE51A32F5D); // -176.61502916214059
const L5 = reinterpret<f64>(0x402903C27F8B9C81); // 12.507343278686905
const L6 = reinterpret<f64>(0xBFC1BCB2992B2855); // -0.13857109526572012
const L7 = reinterpret<f64>(0x3EE4F0514E4E324F); // 9.9843695780195716e-6
const L8 = reinterpret<f64>(0x3E8435508F3FAEEF); // 1.5056327351493116e-7

/** log Gamma(x) for x >= 0.5. */
export function logGamma(x: f64): f64 {
  const z = x - 1.0;
  const sum = L0 + L1 / (z + 1.0) + L2 / (z + 2.0) + L3 / (z + 3.0) + L4 / (z + 4.0) +
    L5 / (z + 5.0) + L6 / (z + 6.0) + L7 / (z + 7.0) + L8 / (z + 8.0);
  const t = z + LANCZOS_G + 0.5;
  return LOG_SQRT_2PI + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}
