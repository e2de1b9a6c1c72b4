// What the accountant accounts for: a release described by its noise and how its batch was drawn,
// as a tree of events (the shape of dp_accounting's DpEvent, in dpnoise's own names). Privacy
// objects carry their event; compose builds a 'composed' event; the PLD and RDP methods each
// evaluate an event tree. Parameters are in the units of the noise relative to the sensitivity.
// The PLD method reads a 'close' event as its `event` and adds the tree's slack (slackOf) to its
// answers; the RDP method reads it as its `fallback`.

/** A release, or a composition of releases, to account for. */
export type Event =
  /** Gaussian noise at Mahalanobis distance mu (sensitivity / standard deviation; 1/z for noise multiplier z). */
  | { readonly type: 'gaussian'; readonly mu: number }
  /** Laplace noise with sensitivity / scale = epsilon (pure epsilon-DP). */
  | { readonly type: 'laplace'; readonly epsilon: number }
  /** Discrete Laplace noise, P(y) proportional to exp(-|y| / scale), for an integer sensitivity (in steps). */
  | { readonly type: 'discrete-laplace'; readonly scale: number; readonly sensitivity: number }
  /** Discrete Gaussian noise, P(y) proportional to exp(-y^2 / (2 variance)), for an integer sensitivity (in steps). */
  | { readonly type: 'discrete-gaussian'; readonly variance: number; readonly sensitivity: number }
  /** Pure epsilon-DP, nothing more known. */
  | { readonly type: 'pure'; readonly epsilon: number }
  /** rho-zCDP, nothing more known. */
  | { readonly type: 'zcdp'; readonly rho: number }
  /** The event on a Poisson-subsampled batch: each record in with probability `rate` (add/remove neighbours). */
  | { readonly type: 'poisson'; readonly rate: number; readonly event: Event }
  /** The event on a batch of `size` records drawn without replacement from `population` (replace-one neighbours). */
  | { readonly type: 'without-replacement'; readonly size: number; readonly population: number; readonly event: Event }
  /**
   * `steps` releases of `event` of which each record takes part in exactly one, chosen uniformly
   * at random (random allocation, add/remove neighbours).
   */
  | { readonly type: 'allocation'; readonly steps: number; readonly event: Event }
  /** Events composed, each `times` times. */
  | { readonly type: 'composed'; readonly events: ReadonlyArray<readonly [Event, number]> }
  /**
   * A release whose output laws are within a factor e^(+-slack) of those of a mechanism that
   * `event` bounds: from above (a post-processing of `event`'s mechanism) in an upper event, from
   * below (`event`'s mechanism, itself a post-processing of the release) in a lower one
   * (docs/accounting.md, "Discrete Gaussian"). Its Renyi curve is `fallback`'s.
   */
  | { readonly type: 'close'; readonly slack: number; readonly event: Event; readonly fallback: Event }
  /**
   * A release that is `event`'s but for outputs, such as a group key only one of the neighbours
   * has, that the larger neighbour gives with probability at most `delta` and the smaller never
   * (partition selection, docs/aggregates.md, "Partition selection").
   */
  | { readonly type: 'thresholded'; readonly delta: number; readonly event: Event };

/**
 * The slack of a whole event tree: the sum of its 'close' events' slacks, each as often as it is
 * composed. The laws of the whole release are within e^(+-slack) of those of the tree with every
 * 'close' event replaced by its `event` (ratios multiply under composition and survive the
 * mixtures of subsampling).
 */
export function slackOf(event: Event): number {
  switch (event.type) {
    case 'close':
      return event.slack;
    case 'thresholded':
      return slackOf(event.event);
    case 'poisson':
    case 'without-replacement':
      return slackOf(event.event);
    case 'allocation':
      return event.steps * slackOf(event.event); // every step's laws are within the slack
    case 'composed':
      return event.events.reduce((sum, [child, times]) => (times === 0 ? sum : sum + times * slackOf(child)), 0);
    default:
      return 0;
  }
}
