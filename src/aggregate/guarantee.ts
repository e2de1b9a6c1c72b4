// Warnings for a guarantee that means little: they depend on the privacy asked for and on the
// thresholds, never on the data (docs/aggregates.md, "Weak guarantees").
import type { ValidTarget } from '../core/target.js';
import { numberIn, readOptions } from '../core/validate.js';

/** Above these, a release is said to promise little (each overridable by `warnAbove`). */
export const WEAK = Object.freeze({ epsilon: 10, delta: 1e-4 });

/**
 * The thresholds above which the privacy asked for is warned of.
 *
 * @group Aggregates
 */
export interface WarnAbove {
  /** Warn when epsilon is above this (default 10; Infinity never warns). */
  epsilon?: number;
  /** Warn when delta is above this (default 1e-4; 1 never warns). */
  delta?: number;
}

/** `warnAbove`, read: each threshold given or the default. */
export function readWarnAbove(value: unknown): Required<WarnAbove> {
  if (value === undefined) return { ...WEAK };
  const o = readOptions('warnAbove', value, ['epsilon', 'delta']);
  return {
    // Infinity: never warn.
    epsilon:
      o.epsilon === undefined ? WEAK.epsilon : o.epsilon === Infinity ? Infinity : numberIn('warnAbove.epsilon', o.epsilon, { min: 0, max: Number.MAX_VALUE }),
    delta: o.delta === undefined ? WEAK.delta : numberIn('warnAbove.delta', o.delta, { min: 0, max: 1 }),
  };
}

/** The warnings for `target` above the thresholds. */
export function guaranteeWarnings(target: ValidTarget, above: Required<WarnAbove>): string[] {
  const warnings: string[] = [];
  if (target.notion !== 'pure' && target.notion !== 'approximate') return warnings;
  if (target.epsilon > above.epsilon) {
    warnings.push(
      `epsilon ${target.epsilon} is above ${above.epsilon}: one person's data may change the odds of any output by a factor up to e^${target.epsilon}, a guarantee that means little; the figures may be close to the exact ones (warnAbove.epsilon, --warn-epsilon sets the threshold).`,
    );
  }
  if (target.notion === 'approximate' && target.delta > above.delta) {
    warnings.push(
      `delta ${target.delta} is above ${above.delta}: the guarantee may fail outright with probability up to delta, for each person; choose delta well below one over the number of people (warnAbove.delta, --warn-delta sets the threshold).`,
    );
  }
  return warnings;
}
