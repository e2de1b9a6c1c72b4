// The privacy target, asked for in one shape everywhere (README, "Conventions"): flat options
// `epsilon` with `delta` for (epsilon, delta)-DP, `epsilon` alone for pure epsilon-DP, `mu` for
// mu-GDP, or `rho` for rho-zCDP; exactly one form. Each function says which forms its noise can
// meet; readTarget validates them once, into a ValidTarget the inner layers take as it is.
import { DELTA, GAUSSIAN_EPSILON, MU, RHO } from './domains.js';
import { numberIn, POSITIVE } from './validate.js';

/**
 * (epsilon, delta)-DP asked for.
 *
 * @group Accounting
 */
export interface ApproximateTarget {
  /** epsilon >= 0. */
  epsilon: number;
  /** delta in [1e-300, 1). */
  delta: number;
  /** Not with epsilon and delta. */
  mu?: undefined;
  /** Not with epsilon and delta. */
  rho?: undefined;
}

/**
 * Pure epsilon-DP asked for.
 *
 * @group Accounting
 */
export interface PureTarget {
  /** epsilon > 0. */
  epsilon: number;
  /** Absent: pure DP has no delta. */
  delta?: undefined;
  /** Not with epsilon. */
  mu?: undefined;
  /** Not with epsilon. */
  rho?: undefined;
}

/**
 * mu-GDP asked for (mu a Mahalanobis distance; 1/z for a DP-SGD step of noise multiplier z).
 *
 * @group Accounting
 */
export interface GdpTarget {
  /** mu in (0, 2000]. */
  mu: number;
  /** Not with mu. */
  epsilon?: undefined;
  /** Not with mu. */
  delta?: undefined;
  /** Not with mu. */
  rho?: undefined;
}

/**
 * rho-zCDP asked for.
 *
 * @group Accounting
 */
export interface ZcdpTarget {
  /** rho in (0, 5e5]. */
  rho: number;
  /** Not with rho. */
  epsilon?: undefined;
  /** Not with rho. */
  delta?: undefined;
  /** Not with rho. */
  mu?: undefined;
}

/**
 * A privacy target: `{ epsilon, delta }` ((epsilon, delta)-DP), `{ epsilon }` (pure epsilon-DP),
 * `{ mu }` (mu-GDP) or `{ rho }` (rho-zCDP). Options objects take these fields directly.
 *
 * @group Accounting
 */
export type PrivacyTarget = ApproximateTarget | PureTarget | GdpTarget | ZcdpTarget;

/**
 * A target Gaussian noise can meet: (epsilon, delta)-DP, mu-GDP or rho-zCDP; exactly one.
 *
 * @group Accounting
 */
export type GaussianTarget = ApproximateTarget | GdpTarget | ZcdpTarget;

/** A validated target: the notion, and its numbers. */
export type ValidTarget =
  | { readonly notion: 'pure'; readonly epsilon: number }
  | { readonly notion: 'approximate'; readonly epsilon: number; readonly delta: number }
  | { readonly notion: 'gdp'; readonly mu: number }
  | { readonly notion: 'zcdp'; readonly rho: number };

export type Notion = ValidTarget['notion'];

/** The target's fields, for options lists. */
export const TARGET_OPTIONS = ['epsilon', 'delta', 'mu', 'rho'] as const;

const FORMS: Record<Notion, string> = {
  pure: '`epsilon` (pure epsilon-DP)',
  approximate: '`epsilon` and `delta`',
  gdp: '`mu`',
  zcdp: '`rho`',
};

/** What a caller may give, in words: "`epsilon` and `delta`, `mu` or `rho`". */
function forms(accepted: readonly Notion[]): string {
  const words = accepted.map((n) => FORMS[n]);
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/**
 * The target of options `o` (a snapshot from readOptions), one of the `accepted` notions. Epsilon
 * with delta is (epsilon, delta)-DP, epsilon alone pure DP; `mu` and `rho` stand alone.
 */
export function readTarget(o: Record<string, unknown>, accepted: readonly Notion[]): ValidTarget {
  const given = TARGET_OPTIONS.filter((k) => o[k] !== undefined);
  if (given.includes('mu') || given.includes('rho')) {
    const key = given.includes('mu') ? 'mu' : 'rho';
    if (given.length > 1) throw new TypeError(`dpnoise: give one privacy target: ${forms(accepted)}; got ${given.map((k) => `\`${k}\``).join(' and ')}.`);
    if (!accepted.includes(key === 'mu' ? 'gdp' : 'zcdp'))
      throw new TypeError(`dpnoise: \`${key}\` is not a target this noise can meet; give ${forms(accepted)}.`);
    return key === 'mu' ? { notion: 'gdp', mu: numberIn('mu', o.mu, MU) } : { notion: 'zcdp', rho: numberIn('rho', o.rho, RHO) };
  }
  if (o.delta === undefined && accepted.includes('pure')) return { notion: 'pure', epsilon: numberIn('epsilon', o.epsilon, POSITIVE) };
  if (!accepted.includes('approximate')) {
    throw new TypeError(`dpnoise: \`delta\` applies to (epsilon, delta)-DP, which this noise does not give; give ${forms(accepted)}.`);
  }
  return { notion: 'approximate', epsilon: numberIn('epsilon', o.epsilon, GAUSSIAN_EPSILON), delta: numberIn('delta', o.delta, DELTA) };
}

/** The target as the caller's shape, for results to echo. */
export function targetOf(target: ValidTarget): PrivacyTarget {
  switch (target.notion) {
    case 'pure':
      return { epsilon: target.epsilon };
    case 'approximate':
      return { epsilon: target.epsilon, delta: target.delta };
    case 'gdp':
      return { mu: target.mu };
    case 'zcdp':
      return { rho: target.rho };
  }
}
