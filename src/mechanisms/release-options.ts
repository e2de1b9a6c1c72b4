// The options of every mechanism's `release`: the random source, and `out`, an array of the
// caller's that receives the output instead of a new one, so that releases in a loop (DP-SGD
// steps, long vectors) allocate nothing. Every argument is read and checked before `out` is
// written, so a call that throws leaves it as it was.
import { setAt } from '../core/arrays.js';
import { type Entries, fail, readOptions, vector } from '../core/validate.js';
import { type RandomSource, sourceOf } from '../noise/random.js';
import { outputArray, type SampleOptions } from '../noise/samplers.js';
import { firstOutsideInModule } from '../wasm/checks.js';

/**
 * Options of every mechanism's `release`.
 *
 * @group Mechanisms
 */
export interface ReleaseOptions extends SampleOptions {
  /**
   * A Float64Array as long as the query, to hold the release instead of a new array (and
   * returned): nothing is allocated. It may be the query itself. A call that throws leaves it
   * unchanged.
   */
  out?: Float64Array;
}

/** A release's options, read once: its random source, and the caller's `out` or undefined. */
export interface ReadReleaseOptions {
  source: RandomSource;
  /** A plain view of `out` (core/arrays.ts), which the release writes. */
  out: Float64Array | undefined;
  /** The caller's `out` itself, which the release returns. */
  given: Float64Array | undefined;
}

/** Reads `{ rng, out }`; `out` must be a Float64Array of `length` entries. */
export function readReleaseOptions(options: unknown, length: number): ReadReleaseOptions {
  if (options === undefined) return { source: sourceOf(undefined), out: undefined, given: undefined };
  const o = readOptions('options', options, ['rng', 'out']);
  const source = sourceOf(o.rng);
  if (o.out === undefined) return { source, out: undefined, given: undefined };
  const out = outputArray(o.out);
  if (out.length !== length) fail(RangeError, 'out.length', `${length} (one entry per coordinate)`, out.length);
  return { source, out, given: o.out as Float64Array };
}

/**
 * The array a release draws into, holding the query: `out` (the query checked where it is, then
 * copied in) or a new copy. Called once every other argument has been read: nothing is written
 * before the last check.
 */
export function queryTarget(name: string, query: unknown, entries: Entries, length: number, out: Float64Array | undefined): Float64Array {
  if (out === undefined) return vector(name, query, entries, { length, copy: true, check: firstOutsideInModule });
  setAt(out, vector(name, query, entries, { length, check: firstOutsideInModule }), 0);
  return out;
}
