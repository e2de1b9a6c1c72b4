// The release of correlated sums on the grid (src/mechanisms/correlated-grid.ts), a chunk at a
// time, right after the chunk's noise is drawn: the exact integers 2 s F + s Y + Cg Z, F the sum
// rounded to the grid half up, rounded once and scaled to the output grid, as the facade computes
// them, without its branch per value (the SIMD build two values at a time).
import { SCALES, VALUES } from "../memory";
import { roundHalfUp } from "./discrete";
import { roundHalfUpPair } from "./laplace-lanes";

/** 2^52: below it every term and their sum are exact integers in a double. */
const TWO_52: f64 = 4503599627370496.0;

/**
 * For i in [0, n): SCALES[i] = (2 s F_i + s Y_i + cg z) outputGrid, with F_i = roundHalfUp(SCALES[i]
 * inverseGrid), the sums, and Y_i = VALUES[i], the noise the discrete Gaussian kernel has just
 * drawn there (s a power of two, cg and z integers), when |2 s F_i| + |s Y_i| + cg |z| <= 2^52 for
 * every i, so that every operation is exact but the last two roundings the facade makes too.
 * Returns 1 then, else 0 with SCALES no longer the sums (the facade then computes the chunk
 * itself from its sums and the noise, still in VALUES, with BigInt where needed).
 */
export function correlatedRelease(n: i32, s: f64, cg: f64, z: f64, inverseGrid: f64, outputGrid: f64): i32 {
  const twoS = 2.0 * s;
  const shared = cg * z;
  const sharedSize = cg * Math.abs(z);
  let exact = true;
  let p = SCALES;
  let q = VALUES;
  const end = SCALES + (<usize>n << 3);
  if (ASC_FEATURE_SIMD) {
    // Two at a time, by the same operations as the loop below.
    const twoSs = f64x2.splat(twoS);
    const ss = f64x2.splat(s);
    const shareds = f64x2.splat(shared);
    const sharedSizes = f64x2.splat(sharedSize);
    const inverseGrids = f64x2.splat(inverseGrid);
    const outputGrids = f64x2.splat(outputGrid);
    const limit = f64x2.splat(TWO_52);
    let within = i64x2.splat(-1);
    for (; p + 8 < end; p += 16, q += 16) {
      const twoSF = f64x2.mul(twoSs, roundHalfUpPair(f64x2.mul(v128.load(p), inverseGrids)));
      const sY = f64x2.mul(ss, v128.load(q));
      within = v128.and(within, f64x2.le(f64x2.add(f64x2.add(f64x2.abs(twoSF), f64x2.abs(sY)), sharedSizes), limit));
      v128.store(p, f64x2.mul(f64x2.add(f64x2.add(twoSF, sY), shareds), outputGrids));
    }
    exact = i64x2.all_true(within);
  }
  for (; p < end; p += 8, q += 8) {
    const twoSF = twoS * roundHalfUp(load<f64>(p) * inverseGrid);
    const sY = s * load<f64>(q);
    exact = exact & (Math.abs(twoSF) + Math.abs(sY) + sharedSize <= TWO_52);
    store<f64>(p, (twoSF + sY + shared) * outputGrid);
  }
  return <i32>exact;
}
