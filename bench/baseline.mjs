// Pure-JavaScript baseline for the calibration benchmarks (no WebAssembly).
//
// A straightforward scalar implementation of the same mathematics as dpnoise (MATH.md
// sections 1-4), written the way one would without the package: plain functions and loops,
// no SIMD, no chunking, no special-casing beyond what the formulas need.
//   - erfc / erfcx: W. J. Cody's rational Chebyshev approximations (CALERF, Math. Comp. 23
//     (1969) 631-637; the netlib SPECFUN routine), accurate to a few ulp.
//   - Q(x), log Q(x) (through erfcx, so no underflow), Q^-1(p) (Wichura's AS 241).
//   - delta(eps; mu) = Q(a) - e^eps Q(b), a = eps/mu - mu/2, b = eps/mu + mu/2, evaluated as
//     MATH.md section 2 says: exp(logQ(a)) * -expm1(eps + logQ(b) - logQ(a)).
//   - mu0(eps, delta) by bisection on w = 1/mu over [0, w_u] (MATH.md section 3, Algorithm 1 of
//     the conference paper) to 1e-12 relative, returning the safe end of the bracket.
//   - The p = 2 optimal Gaussian allocation sigma_i = sqrt(Delta_1 lambda_i) / mu0 in a plain loop.
// It exists to measure what the WebAssembly implementation buys; it is not part of the package.

const SQRT1_2 = Math.SQRT1_2;
const INV_SQRT_PI = 0.56418958354775628695;

// Cody's coefficients: erf on |x| <= 0.46875 (A, B), erfc on (0.46875, 4] (C, D), on (4, inf) (P, Q).
const A = [3.1611237438705656, 113.864154151050156, 377.485237685302021, 3209.37758913846947, 0.185777706184603153];
const B = [23.6012909523441209, 244.024637934444173, 1282.61652607737228, 2844.23683343917062];
const C = [0.564188496988670089, 8.88314979438837594, 66.1191906371416295, 298.635138197400131,
  881.95222124176909, 1712.04761263407058, 2051.07837782607147, 1230.33935479799725, 2.15311535474403846e-8];
const D = [15.7449261107098347, 117.693950891312499, 537.181101862009858, 1621.38957456669019,
  3290.79923573345963, 4362.61909014324716, 3439.36767414372164, 1230.33935480374942];
const P = [0.305326634961232344, 0.360344899949804439, 0.125781726111229246, 0.0160837851487422766,
  6.58749161529837803e-4, 0.0163153871373020978];
const Q = [2.56852019228982242, 1.87295284992346047, 0.527905102951428412, 0.0605183413124413191,
  0.00233520497626869185];

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
const WA = [3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125,
  45921.953931549871457, 67265.770927008700853, 33430.575583588128105, 2509.0809287301226727];
const WB = [1, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077,
  21213.794301586595867, 39307.89580009271061, 28729.085735721942674, 5226.495278852854561];
const WC = [1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504,
  1.27045825245236838258, 0.24178072517745061177, 0.0227238449892691845833, 7.7454501427834140764e-4];
const WD = [1, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455,
  0.14810397642748007459, 0.0151986665636164571966, 5.475938084995344946e-4, 1.05075007164441684324e-9];
const WE = [6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 0.29656057182850489123,
  0.026532189526576123093, 0.0012426609473880784386, 2.71155556874348757815e-5, 2.01033439929228813265e-7];
const WF = [1, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525,
  7.868691311456132591e-4, 1.8463183175100546818e-5, 1.4215117583164458887e-7, 2.04426310338993978564e-15];

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

/** The privacy profile delta(eps; mu) (MATH.md section 2), for mu > 0. */
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
