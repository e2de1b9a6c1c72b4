// The one calibration search: the largest parameter that meets a privacy target, found from a
// value known to meet it. Privacy-critical, so written once: it only ever returns a value it has
// checked, and every loop is capped (MAX_SEARCH_STEPS), stopping on the side that meets.
import { MAX_SEARCH_STEPS } from '../core/rounding.js';

/** Doublings before the upward search's ratio squares at each step. */
const GALLOP_AFTER = 8;

/** How largestMeeting searches: the relative gap it stops at, and the largest value worth trying. */
export interface SearchOptions {
  /** Stop when the value that meets and one that fails are within this relative gap (e.g. 1e-3). */
  readonly gap: number;
  /** No value above this is tried (default: the largest double). */
  readonly ceiling?: number;
  /** The caller has proven that `start` meets the target (so it is not tried: a try can cost an accountant's run). */
  readonly startMeets?: true;
}

/**
 * The largest x >= start that `meets` accepts, to a relative `gap` from below: the `ceiling`
 * itself when one is given and met; else up from `start` (which must meet) by doubling, at most to
 * the ceiling, the ratio squared at each step after GALLOP_AFTER doublings (a target 1e11 times
 * `start` then takes a dozen tries, not 37), then by geometric bisection between the last value
 * that met and the first that failed. Where `meets` is not monotone, some value
 * that met is returned, never one that failed.
 */
export function largestMeeting(meets: (x: number) => boolean, start: number, options: SearchOptions): number {
  const { gap, ceiling = Number.MAX_VALUE } = options;
  // A ceiling given is often met (a budget met with room to spare): it is tried first.
  if (options.ceiling !== undefined && ceiling > start && meets(ceiling)) return ceiling;
  if (!(start > 0) || (options.startMeets !== true && !meets(start)))
    throw new Error('dpnoise: internal error: a calibration search started from a value that does not meet its target.');
  let low = start;
  let ratio = 2;
  let high = Math.min(low * ratio, ceiling);
  for (let i = 0; i < MAX_SEARCH_STEPS && high > low && meets(high); i++) {
    if (i >= GALLOP_AFTER) ratio *= ratio;
    low = high;
    high = Math.min(low * ratio, ceiling);
  }
  if (!(high > low)) return low; // the ceiling met
  for (let i = 0; i < MAX_SEARCH_STEPS && high / low - 1 > gap; i++) {
    const product = low * high;
    const middle = product < Infinity ? Math.sqrt(product) : Math.sqrt(low) * Math.sqrt(high); // the product may overflow
    if (!(middle > low && middle < high)) break; // adjacent doubles
    if (meets(middle)) low = middle;
    else high = middle;
  }
  return low;
}
