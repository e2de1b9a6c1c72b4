// The privacy loss of independent noise, summed over coordinates (docs/accounting.md, "Accounting":
// from scales): the Gaussian distance mu = sqrt(sum_i (lambda_i / s_i)^2) and the Laplace epsilon
// sum_i lambda_i / b_i, as upper bounds that are never 0 for a positive loss. Ratios below 2^-400
// would lose their squares (or themselves) to underflow, so when every ratio is that small the sum
// is formed on values rescaled by exact powers of two and scaled back once (scaleUp).
import { CompensatedSum } from '../core/summation.js';
import { powerOfTwoBelow, roundUp, scaleUp } from '../core/rounding.js';

/** Below this largest ratio the sum is rescaled: its terms could underflow (2^-400). */
const TINY = 2 ** -400;
/** The rescaling of the sensitivities: lambda 2^600 <= 2^1000 stays finite (lambda <= 2^400). */
const LIFT = 2 ** 600;

/** What lossNorm returns: the norm, or Infinity with the first coordinate released exactly. */
export interface Loss {
  total: number;
  /** A coordinate with positive sensitivity and scale 0, if any. */
  exactAt: number | undefined;
}

/** (sum (r_i)^q)^(1/q), formed on r_i / unit (a power of two, so the rescaling is exact), rounded up. */
function norm(ratios: Float64Array, q: 1 | 2, unit: number): number {
  const sum = new CompensatedSum();
  for (const r of ratios) sum.add(q === 2 ? (r / unit) ** 2 : r / unit);
  const total = q === 2 ? roundUp(Math.sqrt(roundUp(sum.value))) : roundUp(sum.value);
  return total * unit;
}

/**
 * The q-norm of lambda_i / s_i over the coordinates with lambda_i > 0 (q = 2: mu; q = 1: Laplace
 * epsilon), rounded up. A zero scale gives Infinity and names the coordinate; an overflow gives
 * Infinity; a positive loss is never reported as 0.
 */
export function lossNorm(lambda: Float64Array, scaleAt: (i: number) => number, q: 1 | 2): Loss {
  const ratios = new Float64Array(lambda.length);
  let largest = 0;
  let any = false; // a coordinate with lambda > 0: its ratio may underflow to 0, its loss is still positive
  for (let i = 0; i < lambda.length; i++) {
    const l = lambda[i]!;
    if (l === 0) continue;
    const s = scaleAt(i);
    if (s === 0) return { total: Infinity, exactAt: i };
    any = true;
    ratios[i] = l / s;
    largest = Math.max(largest, ratios[i]!);
  }
  if (!any) return { total: 0, exactAt: undefined };
  if (largest === Infinity) return { total: Infinity, exactAt: undefined };
  // Squares beyond 2^1024 overflow to Infinity: no privacy, as the loss is reported.
  if (largest >= TINY) return { total: norm(ratios, q, 1), exactAt: undefined };
  // Every ratio is below 2^-400: lambda 2^600 / s is the ratio times 2^600, with the same single rounding.
  let lifted = 0;
  for (let i = 0; i < lambda.length; i++) {
    if (lambda[i] === 0) continue;
    ratios[i] = (lambda[i]! * LIFT) / scaleAt(i);
    lifted = Math.max(lifted, ratios[i]!);
  }
  return { total: scaleUp(norm(ratios, q, powerOfTwoBelow(lifted)), 1 / LIFT), exactAt: undefined };
}

/**
 * mu^2 / 2 (rho of mu-GDP, or eps^2 / 2 for pure eps-DP), never 0 for mu > 0. mu is already an
 * upper bound by 4 ulp, which covers the rounding of the square.
 */
export function halfSquare(mu: number): number {
  if (mu === 0 || mu >= TINY) return (mu * mu) / 2;
  const lifted = mu * LIFT; // exact
  return scaleUp(scaleUp((lifted * lifted) / 2, 1 / LIFT), 1 / LIFT);
}
