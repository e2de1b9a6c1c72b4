// The options of every mechanism's `release`: the random source; `out`, an array of the
// caller's that receives the output instead of a new one, so that releases in a loop (DP-SGD
// steps, long vectors) allocate nothing; and `budget`, charged for the release once every
// argument is checked and before the query's values are read. Every argument is read and checked
// before `out` is written, so a call that throws leaves it as it was; and `out` only ever
// receives released values, never the query itself. The Gaussian, Laplace and correlated-sum
// mechanisms also take a WasmVector as the query and as `out` (noise/wasm-vector.ts), read and
// written where it is, with the same checks in the same order.
import { type PrivacyBudget, readBudgetArgument } from '../accounting/ledger.js';
import type { Privacy } from '../accounting/privacy.js';
import { isFloat64Array, isShared, overlapsElsewhere } from '../core/arrays.js';
import { type Entries, fail, readOptions } from '../core/validate.js';
import { type RandomSource, sourceOf } from '../noise/random.js';
import { moduleVector, outputArray, type SampleOptions } from '../noise/samplers.js';
import { type Block, isWasmVector, moduleBlock, viewOf, type WasmVector } from '../noise/wasm-vector.js';

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
  /**
   * A budget (createBudget) to charge for this release, its mechanism's `privacy`, once every
   * argument is checked and before the query's values are read: a release it cannot pay for
   * throws and reads nothing. A query whose values are refused (NaN, out of range) has been paid
   * for: checking them reads them.
   */
  budget?: PrivacyBudget;
}

/**
 * Options of the Gaussian, Laplace and correlated-sum mechanisms' `release`: ReleaseOptions, and `out` may be a
 * WasmVector, which receives the release where it is, in the WebAssembly module's memory.
 *
 * @group Mechanisms
 */
export interface VectorReleaseOptions extends Omit<ReleaseOptions, 'out'> {
  /** A Float64Array or a WasmVector as long as the query, to hold the release (returned; a WasmVector's `values`). It may be the query itself. A call that throws leaves it unchanged. */
  out?: Float64Array | WasmVector;
}

/** A release's options, read once: its random source, and the caller's `out` or undefined. */
export interface ReadReleaseOptions<Out extends Float64Array | Block = Float64Array, Given extends Float64Array | WasmVector = Float64Array> {
  random: RandomSource;
  /** A plain view of `out` (core/arrays.ts), or the block of a caller's vector, which the release writes. */
  out: Out | undefined;
  /** The caller's `out` itself, which the release returns (releasedArray). */
  given: Given | undefined;
  /** The budget to charge, if any. */
  budget: PrivacyBudget | undefined;
}

/** Reads `{ rng, out, budget }`; `out` must be a Float64Array (with `vectors`, or a WasmVector) of `length` entries, `budget` one made by createBudget. */
export function readReleaseOptions(options: unknown, length: number): ReadReleaseOptions;
export function readReleaseOptions(options: unknown, length: number, vectors: true): ReadReleaseOptions<Float64Array | Block, Float64Array | WasmVector>;
export function readReleaseOptions(options: unknown, length: number, vectors = false): ReadReleaseOptions<Float64Array | Block, Float64Array | WasmVector> {
  if (options === undefined) return { random: sourceOf(undefined), out: undefined, given: undefined, budget: undefined };
  const o = readOptions('options', options, ['rng', 'out', 'budget']);
  const random = sourceOf(o.rng);
  const budget = o.budget === undefined ? undefined : readBudgetArgument(o.budget);
  if (o.out === undefined) return { random, out: undefined, given: undefined, budget };
  const out = vectors ? outputArray(o.out, true) : outputArray(o.out);
  if (out.length !== length) fail(RangeError, 'out.length', `${length} (one entry per coordinate)`, out.length);
  return { random, out, given: o.out as Float64Array | WasmVector, budget };
}

/** What a release returns: the caller's `out` (a WasmVector's values, viewed now), else the new array it drew into. */
export function releasedArray(given: Float64Array | WasmVector | undefined, target: Float64Array | Block): Float64Array {
  if (given === undefined) return target as Float64Array;
  return isWasmVector(given) ? given.values : given;
}

/** Where a release reads its query (`exact`, checked) and writes its output (`target`): arrays, or with `vectors` blocks of the module's memory too. */
export interface ReleaseArrays<Place extends Float64Array | Block = Float64Array> {
  exact: Place;
  target: Place;
}

/**
 * The query (private: its errors never show an entry), checked, and the release's output.
 * Without `out`: a copy, drawn in place. With `out`: the query is read where it was checked,
 * chunk by chunk, and `out` receives only the released values (a reader of shared memory never
 * sees the query there, even mid-call). A copy is read instead when another thread could change
 * the query after its check (shared memory), or when `out` overlaps it elsewhere than in place,
 * so that the output would overwrite entries not yet read. Called once every other argument has
 * been read. A query read in place is not checked again: only caller code run mid-call could
 * change it, through a platform built-in patched by the caller (crypto.getRandomValues), outside
 * the threat model of core/arrays.ts.
 */
export function releaseArrays(
  name: string,
  query: unknown,
  entries: Entries,
  length: number,
  out: Float64Array | undefined,
  charge: { budget: PrivacyBudget | undefined; privacy: Privacy },
): ReleaseArrays;
export function releaseArrays(
  name: string,
  query: unknown,
  entries: Entries,
  length: number,
  out: Float64Array | Block | undefined,
  charge: { budget: PrivacyBudget | undefined; privacy: Privacy },
  vectors: true,
): ReleaseArrays<Float64Array | Block>;
export function releaseArrays(
  name: string,
  query: unknown,
  entries: Entries,
  length: number,
  out: Float64Array | Block | undefined,
  charge: { budget: PrivacyBudget | undefined; privacy: Privacy },
  vectors = false,
): ReleaseArrays<Float64Array | Block> {
  // The budget is charged once the query's kind and length are checked, before its values are read.
  const beforeEntries = () => charge.budget?.spend(charge.privacy);
  if (vectors && isWasmVector(query)) {
    const block = moduleBlock(name, query, entries, { length, private: true, beforeEntries });
    // Only a Float64Array `out` viewing the module's memory could overlap the vector (a block never overlaps another).
    const copy = isFloat64Array(out) && overlapsElsewhere(viewOf(block), out);
    return { exact: copy ? viewOf(block).slice() : block, target: out ?? new Float64Array(length) };
  }
  const outView = out === undefined || isFloat64Array(out) ? out : viewOf(out);
  const copy = outView === undefined || (isFloat64Array(query) && (isShared(query) || overlapsElsewhere(query, outView)));
  const exact = moduleVector(name, query, entries, { length, copy, private: true, beforeEntries });
  return { exact, target: out ?? exact };
}
