// Argument checks. Every public function validates here, before any WebAssembly call, and throws
// a TypeError for a wrong type or a RangeError for a wrong value, naming the argument and value:
//   dpnoise: `epsilon` must be a finite number >= 0; got NaN.
// A private value (data: a query, values, sums, a count, rows) is named by its kind only
// (describeKind): an error is seen by whoever sees the output, and must not carry the data.
// What is validated is what is used: options are snapshots of the caller's own properties, each
// read once (getters cannot change between the check and the use, and properties inherited from
// a polluted Object.prototype are never seen), and arrays are read through intrinsics (arrays.ts).
import { copyOf, isFloat64Array, plainView, typedArrayKind } from './arrays.js';

/** A short, readable rendering of any value for an error message. */
export function describe(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || value === undefined || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${typedArrayKind(value) ?? 'DataView'}`;
  if (typeof value === 'function') return 'a function';
  return `an object (${Object.prototype.toString.call(value).slice(8, -1)})`;
}

/**
 * What an error may say of a private value: its kind, never its content. NaN and the infinities
 * are kinds (they say no more than the rule they break); a finite number, a string or a boolean is not shown.
 */
export function describeKind(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? 'a number (private, not shown)' : String(value);
  if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'bigint') return `a ${typeof value} (private, not shown)`;
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return `a ${typedArrayKind(value) ?? 'DataView'}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** How a check reports the value it refuses: `private` for data, named by its kind only (describeKind). */
export interface Shown {
  private?: boolean;
}

/** Throws the project's error: ``dpnoise: `name` must be MUST; got VALUE.`` (VALUE its kind only when private). */
export function fail(ErrorType: typeof TypeError | typeof RangeError, name: string, must: string, value: unknown, shown: Shown = {}): never {
  throw new ErrorType(`dpnoise: \`${name}\` must be ${must}; got ${shown.private ? describeKind(value) : describe(value)}.`);
}

/** An interval of accepted numbers; an open end excludes its bound. */
export interface Range {
  min: number;
  max: number;
  minOpen?: boolean;
  maxOpen?: boolean;
}

export const FINITE: Range = { min: -Infinity, max: Infinity, minOpen: true, maxOpen: true };
export const NON_NEGATIVE: Range = { min: 0, max: Infinity, maxOpen: true };
export const POSITIVE: Range = { min: 0, max: Infinity, minOpen: true, maxOpen: true };
export const OPEN_UNIT: Range = { min: 0, max: 1, minOpen: true, maxOpen: true };

function rangeText({ min, max, minOpen, maxOpen }: Range, integer = false): string {
  const lower = min === -Infinity ? '' : `${minOpen ? '>' : '>='} ${min}`;
  const upper = max === Infinity ? '' : `${maxOpen ? '<' : '<='} ${max}`;
  if (max === Infinity) return `${integer ? 'an integer' : 'a finite number'}${lower ? ` ${lower}` : ''}`;
  return `${integer ? 'an integer' : 'a number'} ${lower} and ${upper}`;
}

/** Whether x lies inside `range` (NaN and infinities lie outside every range). */
function inside(x: number, { min, max, minOpen, maxOpen }: Range): boolean {
  return (minOpen ? x > min : x >= min) && (maxOpen ? x < max : x <= max) && Number.isFinite(x);
}

/** A number inside `range`. */
export function numberIn(name: string, value: unknown, range: Range, shown: Shown = {}): number {
  if (typeof value !== 'number') fail(TypeError, name, 'a number', value, shown);
  if (!inside(value, range)) fail(RangeError, name, rangeText(range), value, shown);
  return value;
}

/**
 * A whole number inside `range`. Private data get one message for any number refused, which does
 * not tell a fraction from a number out of range.
 */
export function integerIn(name: string, value: unknown, range: Range, shown: Shown = {}): number {
  if (typeof value !== 'number') fail(TypeError, name, 'a number', value, shown);
  const within = inside(value, range);
  if (!(within && Number.isInteger(value))) {
    fail(RangeError, name, shown.private ? rangeText(range, true) : within ? 'an integer' : rangeText(range), value, shown);
  }
  return value;
}

/** One of a fixed list of strings. */
export function oneOf<T extends string>(name: string, value: unknown, choices: readonly T[]): T {
  if (!choices.includes(value as T)) {
    const must = `one of ${choices.map((c) => `'${c}'`).join(', ')}`;
    fail(typeof value === 'string' ? RangeError : TypeError, name, must, value);
  }
  return value as T;
}

/**
 * A snapshot of an options object: its own enumerable properties, each read once, in an object
 * with no prototype. Any key other than `allowed` throws (a misspelt option must not be ignored).
 */
export function readOptions(name: string, value: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) {
    fail(TypeError, name, 'an options object', value);
  }
  const snapshot: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new TypeError(`dpnoise: \`${name}\` has an unknown option \`${key}\`; the options are ${allowed.map((k) => `\`${k}\``).join(', ')}.`);
    }
    snapshot[key] = (value as Record<string, unknown>)[key];
  }
  return snapshot;
}

/** The index of the first entry that `entries` rejects, or -1; four at a time while all are in range. */
export function firstOutside(a: Float64Array, { min, max, zero = false }: Entries): number {
  let i = 0;
  for (const n = a.length & ~3; i < n; i += 4) {
    const x0 = a[i]!,
      x1 = a[i + 1]!,
      x2 = a[i + 2]!,
      x3 = a[i + 3]!;
    if (!(x0 >= min && x0 <= max && x1 >= min && x1 <= max && x2 >= min && x2 <= max && x3 >= min && x3 <= max)) break;
  }
  for (; i < a.length; i++) {
    const x = a[i]!;
    if (!(x >= min && x <= max) && !(zero && x === 0)) return i; // NaN fails every comparison
  }
  return -1;
}

/** What the entries of a vector may be: [min, max], and 0 when `zero`; the words for errors. */
export interface Entries {
  min: number;
  max: number;
  zero?: boolean;
  /** Reported for NaN, infinities, and entries <= 0 where min >= 0. */
  basic: string;
  /** Reported for other entries outside [min, max]. */
  range: string;
}

/** Any finite number (values, queries, sums). */
export const FINITE_ENTRIES: Entries = { min: -Number.MAX_VALUE, max: Number.MAX_VALUE, basic: 'a finite number', range: 'a finite number' };

/** How vector() finds the first entry outside: firstOutside, or the same answer found faster (src/wasm/checks.ts). */
export type EntriesCheck = (a: Float64Array, entries: Entries) => number;

/** A vector's kind checked, and its length: a plain view of a Float64Array, or an array's length. */
function shapeOf(name: string, value: unknown, options: Shown & { arrays?: boolean }): { view: Float64Array | undefined; n: number } {
  const { arrays = true } = options;
  const view = isFloat64Array(value) ? plainView(value) : undefined;
  if (!view && !(arrays && Array.isArray(value))) fail(TypeError, name, arrays ? 'a Float64Array or an array of numbers' : 'a Float64Array', value, options);
  return { view, n: view ? view.length : (value as unknown[]).length };
}

/**
 * The length of a vector `vector` would read (a Float64Array, or with `arrays` an array of
 * numbers), its kind checked and no entry read: a vector's length is public, so a calibration
 * that needs it can be done, and a budget charged, before the private entries are read.
 */
export function vectorLength(name: string, value: unknown, options: Shown & { arrays?: boolean } = {}): number {
  return shapeOf(name, value, options).n;
}

/**
 * A Float64Array (or, with `arrays`, an array of numbers) of the given length (default: any
 * length but 0) whose entries all pass `entries` (as `check` finds them). Returns a plain
 * Float64Array: a view of the caller's own memory, or with `copy` (or for an array of numbers) a
 * new array. With `private`, errors name an entry's place and kind, never its value (its length is public).
 * `beforeEntries` runs once the kind and length are checked, before any entry is read (a release
 * charges its budget there).
 */
export function vector(
  name: string,
  value: unknown,
  entries: Entries,
  options: Shown & { arrays?: boolean; length?: number; copy?: boolean; check?: EntriesCheck; beforeEntries?: () => void } = {},
): Float64Array {
  const { length, copy = false, check = firstOutside } = options;
  const { view, n } = shapeOf(name, value, options);
  if (length === undefined ? n === 0 : n !== length) {
    fail(RangeError, `${name}.length`, length === undefined ? 'at least 1' : `${length} (one entry per coordinate)`, n);
  }
  options.beforeEntries?.();
  let out: Float64Array;
  if (view) out = copy ? copyOf(view) : view;
  else {
    out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const x: unknown = (value as unknown[])[i];
      if (typeof x !== 'number') fail(TypeError, `${name}[${i}]`, 'a number', x, options);
      out[i] = x;
    }
  }
  const bad = check(out, entries);
  if (bad >= 0) failEntry(name, bad, out[bad]!, entries, options);
  return out;
}

/** Throws for entry `index` of a vector, `x`, which `entries` refuses. */
export function failEntry(name: string, index: number, x: number, entries: Entries, shown: Shown): never {
  // A finite entry where the range takes its sign is outside the range (and says nothing of its sign).
  fail(RangeError, `${name}[${index}]`, Number.isFinite(x) && (x > 0 || entries.min < 0) ? entries.range : entries.basic, x, shown);
}

/** Group sizes: whole numbers of coordinates. */
const SIZE_ENTRIES: Entries = { min: 1, max: 2 ** 32, basic: 'a whole number >= 1', range: 'a whole number >= 1 and <= 2^32' };

/** Sizes of groups: positive integers (a copy). */
export function readSizes(name: string, value: unknown, length?: number): Float64Array {
  const sizes = vector(name, value, SIZE_ENTRIES, length === undefined ? { copy: true } : { length, copy: true });
  const fractional = sizes.findIndex((n) => !Number.isInteger(n));
  if (fractional >= 0) throw new RangeError(`dpnoise: \`${name}[${fractional}]\` must be a whole number >= 1; got ${sizes[fractional]}.`);
  return sizes;
}
