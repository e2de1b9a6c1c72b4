// Privacy accounting: what any vector of noise scales guarantees for a sensitivity profile, and
// the composition of several releases. Users need not trust scales computed elsewhere.
//
// Gaussian (MATH.md section 2): independent scales sigma_i give the Mahalanobis distance
// mu = sqrt(sum_i (lambda_i / sigma_i)^2) (the box bound), hence the exact profile delta(eps; mu),
// mu-GDP and rho-zCDP with rho = mu^2 / 2. Laplace (section 5): epsilon = sum_i lambda_i / b_i.
// Sums are compensated and rounded up, so the reported privacy is never better than the truth.
import { zcdpDelta, zcdpEpsilon } from './grid.js';
import { CompensatedSum } from './memory.js';
import { DELTA, GAUSSIAN_EPSILON } from './privacy.js';
import { numberIn, options as checkOptions, PROFILE_ENTRIES, vector } from './validate.js';
import { wasm } from './wasm.js';

/** The privacy of independent Gaussian noise (or of Gaussian releases composed). */
export interface GaussianPrivacy {
  /** Which kind of privacy object this is. */
  readonly kind: 'gaussian';
  /** Mahalanobis distance between neighbouring outputs (mu-GDP); Infinity for no privacy. */
  readonly mu: number;
  /** rho-zCDP, rho = mu^2 / 2. */
  readonly rho: number;
  /** The smallest delta for which the release is (epsilon, delta)-DP. */
  delta(epsilon: number): number;
  /** The smallest epsilon for which the release is (epsilon, delta)-DP (a safe upper bound for mu > 1000). */
  epsilon(delta: number): number;
  /** Present when a coordinate with non-zero sensitivity has no noise: there is no privacy. */
  readonly warning?: string;
}

/** The privacy of independent Laplace noise (or of Laplace releases composed). */
export interface LaplacePrivacy {
  /** Which kind of privacy object this is. */
  readonly kind: 'laplace';
  /** Pure epsilon-DP; Infinity for no privacy. */
  readonly epsilon: number;
  /** Present when a coordinate with non-zero sensitivity has no noise: there is no privacy. */
  readonly warning?: string;
}

/** Gaussian and Laplace releases composed: (epsilonPure + epsilon_G(delta), delta)-DP. */
export interface MixedPrivacy {
  /** Which kind of privacy object this is. */
  readonly kind: 'mixed';
  /** The Gaussian part's distance. */
  readonly mu: number;
  /** The Laplace part's epsilon. */
  readonly epsilonPure: number;
  /** A delta for which the sequence is (epsilon, delta)-DP (1 below epsilonPure). */
  delta(epsilon: number): number;
  /** epsilonPure plus the Gaussian part's epsilon(delta). */
  epsilon(delta: number): number;
  /** Present when some release has no privacy. */
  readonly warning?: string;
}

/** Any privacy object: what gaussianPrivacy, laplacePrivacy, compose and mechanisms give. */
export type Privacy = GaussianPrivacy | LaplacePrivacy | MixedPrivacy | ZcdpPrivacy;

/** rho-zCDP (the discrete Gaussian of grid mode), converted to (epsilon, delta) by CKS Corollary 13. */
export interface ZcdpPrivacy {
  /** Which kind of privacy object this is. */
  readonly kind: 'zcdp';
  /** rho of rho-zCDP; Infinity for no privacy. */
  readonly rho: number;
  /** A delta for which the release is (epsilon, delta)-DP. */
  delta(epsilon: number): number;
  /** An epsilon for which the release is (epsilon, delta)-DP (rounded up). */
  epsilon(delta: number): number;
  /** Present when some release has no privacy. */
  readonly warning?: string;
}

/** A rho-zCDP privacy object. */
export function zcdpPrivacy(rho: number, warning?: string): ZcdpPrivacy {
  return {
    kind: 'zcdp',
    rho,
    delta: (epsilon) => (rho === Infinity ? 1 : zcdpDelta(rho, numberIn('epsilon', epsilon, GAUSSIAN_EPSILON))),
    epsilon: (delta) => (rho === Infinity ? Infinity : roundUp(zcdpEpsilon(rho, numberIn('delta', delta, DELTA)))),
    ...(warning && { warning }),
  };
}

/** Options of gaussianPrivacy and laplacePrivacy. */
export interface AccountingOptions {
  /** Noise scales: one number for all coordinates, or one per coordinate. */
  scales: number | Float64Array | readonly number[];
  /** The sensitivity of each coordinate. */
  sensitivity: Float64Array | readonly number[];
}

/** Rounds a non-negative result up by a few ulp, past the rounding of its computation. */
const roundUp = (x: number) => x * (1 + 2 ** -50);

const SCALE_ENTRIES = { min: 0, max: Number.MAX_VALUE, basic: 'a finite number >= 0', range: 'a finite number >= 0' };

/** sum_i (lambda_i / s_i)^q over the profile; Infinity (with the first culprit) for a zero scale. */
function spend(options: AccountingOptions, q: 1 | 2): { total: number; warning?: string } {
  const o = checkOptions('options', options, ['scales', 'sensitivity']);
  const lambda = vector('sensitivity', o.sensitivity, PROFILE_ENTRIES);
  const scales = typeof o.scales === 'number'
    ? numberIn('scales', o.scales, { min: 0, max: Number.MAX_VALUE })
    : vector('scales', o.scales, SCALE_ENTRIES, { length: lambda.length });
  const sum = new CompensatedSum();
  for (let i = 0; i < lambda.length; i++) {
    const l = lambda[i]!;
    if (l === 0) continue;
    const s = typeof scales === 'number' ? scales : scales[i]!;
    if (s === 0) return { total: Infinity, warning: `no privacy: coordinate ${i} has sensitivity ${l} and scale 0, so it is released exactly.` };
    sum.add(q === 2 ? (l / s) ** 2 : l / s);
  }
  return { total: roundUp(sum.value) };
}

/** delta(epsilon) and epsilon(delta) of a Gaussian mechanism at distance mu, any mu. */
function gaussianCurves(mu: number) {
  return {
    delta(epsilon: number): number {
      const eps = numberIn('epsilon', epsilon, GAUSSIAN_EPSILON);
      return mu === Infinity ? 1 : wasm().gaussianDelta(mu, eps);
    },
    epsilon(delta: number): number {
      const d = numberIn('delta', delta, DELTA);
      if (mu === Infinity) return Infinity;
      const w = wasm();
      // Beyond mu = 1000: delta(eps; mu) <= Q(eps/mu - mu/2), so mu (Q^-1(delta) + mu/2) is enough.
      return mu <= 1000 ? w.gaussianEpsilon(mu, d) : roundUp(mu * (w.normalIsf(d) + mu / 2));
    },
  };
}

function gaussianFromMu(mu: number, warning?: string): GaussianPrivacy {
  return { kind: 'gaussian', mu, rho: (mu * mu) / 2, ...gaussianCurves(mu), ...(warning && { warning }) };
}

/** The privacy of independent Gaussian noise with standard deviations `scales`. */
export function gaussianPrivacy(options: AccountingOptions): GaussianPrivacy {
  const { total, warning } = spend(options, 2);
  return gaussianFromMu(roundUp(Math.sqrt(total)), warning);
}

/** The privacy (pure epsilon-DP) of independent Laplace noise with scales b_i = `scales`. */
export function laplacePrivacy(options: AccountingOptions): LaplacePrivacy {
  const { total, warning } = spend(options, 1);
  return { kind: 'laplace', epsilon: total, ...(warning && { warning }) };
}

function isPrivacy(x: unknown): x is Privacy {
  const kind = (x as { kind?: unknown } | null)?.kind;
  return kind === 'gaussian' || kind === 'laplace' || kind === 'mixed' || kind === 'zcdp';
}

/**
 * The privacy of releasing every item of `list` (results of gaussianPrivacy, laplacePrivacy,
 * compose, or a mechanism's `privacy`). Gaussian parts compose exactly (mu = sqrt(sum mu_j^2));
 * Laplace parts add their epsilons; a mixture is (epsilonPure + epsilon_G(delta), delta)-DP by
 * basic composition of the pure part with the Gaussian part, a safe rule. With any zCDP part
 * (grid-mode Gaussian noise) everything composes as zCDP: rho adds up, mu-GDP is mu^2/2-zCDP and
 * pure epsilon-DP is epsilon^2/2-zCDP (Bun & Steinke 2016), all safe.
 */
export function compose(list: readonly Privacy[]): Privacy {
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError('dpnoise: `list` must be a non-empty array of privacy objects (from gaussianPrivacy, laplacePrivacy, compose or a mechanism).');
  }
  const mu2 = new CompensatedSum();
  const epsilons = new CompensatedSum();
  let gaussian = false;
  let laplace = false;
  const warnings: string[] = [];
  const rhos = new CompensatedSum();
  let zcdp = false;
  list.forEach((item, i) => {
    if (!isPrivacy(item)) throw new TypeError(`dpnoise: \`list[${i}]\` must be a privacy object (from gaussianPrivacy, laplacePrivacy, compose or a mechanism).`);
    if (item.warning) warnings.push(item.warning);
    if (item.kind === 'zcdp') {
      zcdp = true;
      rhos.add(item.rho);
      return;
    }
    if (item.kind !== 'laplace') {
      gaussian = true;
      mu2.add(item.mu * item.mu);
    }
    if (item.kind !== 'gaussian') {
      laplace = true;
      epsilons.add(item.kind === 'laplace' ? item.epsilon : item.epsilonPure);
    }
  });
  const warning = warnings.length ? warnings.join(' ') : undefined;
  if (zcdp) return zcdpPrivacy(roundUp(rhos.value + mu2.value / 2 + (epsilons.value * epsilons.value) / 2), warning);
  const mu = roundUp(Math.sqrt(mu2.value));
  const epsilonPure = roundUp(epsilons.value);
  if (!laplace) return gaussianFromMu(mu, warning);
  if (!gaussian) return { kind: 'laplace', epsilon: epsilonPure, ...(warning && { warning }) };
  const curves = gaussianCurves(mu);
  return {
    kind: 'mixed',
    mu,
    epsilonPure,
    delta(epsilon: number): number {
      const eps = numberIn('epsilon', epsilon, GAUSSIAN_EPSILON);
      return eps < epsilonPure ? 1 : curves.delta(eps - epsilonPure);
    },
    epsilon(delta: number): number {
      return roundUp(epsilonPure + curves.epsilon(delta));
    },
    ...(warning && { warning }),
  };
}
