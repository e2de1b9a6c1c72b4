// Caller arrays are read through the typed-array intrinsics captured when dpnoise loads, never
// through methods or getters a caller's object may override (a Float64Array subclass whose
// `subarray` or `length` runs code, a species constructor): what dpnoise reads is a plain view of
// the caller's memory, or a copy of it. Code that rewrites the realm's built-ins before dpnoise
// loads is out of reach of any library, and out of this threat model.

const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
const getter = (key: PropertyKey) => Object.getOwnPropertyDescriptor(typedArrayPrototype, key)!.get!;
const tagOf = getter(Symbol.toStringTag);
const bufferOf = getter('buffer');
const offsetOf = getter('byteOffset');
const lengthOf = getter('length');
const setFrom = (typedArrayPrototype as { set: (source: ArrayLike<number>, offset?: number) => void }).set;
const apply = Reflect.apply;
const F64 = Float64Array;
// ArrayBuffer's byteLength getter refuses a SharedArrayBuffer (and a plain buffer passes without the cost of a throw).
const plainLengthOf = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')!.get!;

/** The kind of a typed array ('Float64Array', 'Uint8Array', ...) from its internal slot; undefined for anything else. */
export function typedArrayKind(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? (apply(tagOf, value, []) as string | undefined) : undefined;
}

/** True for a Float64Array or an instance of a subclass (by its internal slot, not its prototype). */
export function isFloat64Array(value: unknown): value is Float64Array {
  return typedArrayKind(value) === 'Float64Array';
}

/** The length of a Float64Array, read by the intrinsic getter. */
export function lengthOfArray(array: Float64Array): number {
  return apply(lengthOf, array, []) as number;
}

/** A plain Float64Array over the same memory as `array` (writes go through to the caller's array). */
export function plainView(array: Float64Array, start = 0, length = lengthOfArray(array) - start): Float64Array {
  return new F64(apply(bufferOf, array, []) as ArrayBuffer, (apply(offsetOf, array, []) as number) + 8 * start, length);
}

/** True when `array`'s memory is a SharedArrayBuffer, which another thread may write at any time (by the intrinsic getters, whatever the buffer claims). */
export function isShared(array: Float64Array): boolean {
  try {
    apply(plainLengthOf, apply(bufferOf, array, []), []);
    return false;
  } catch {
    return true;
  }
}

/** True when `a` and `b` have memory in common but do not start at the same place. */
export function overlapsElsewhere(a: Float64Array, b: Float64Array): boolean {
  if (apply(bufferOf, a, []) !== apply(bufferOf, b, [])) return false;
  const [startA, startB] = [apply(offsetOf, a, []) as number, apply(offsetOf, b, []) as number];
  const [endA, endB] = [startA + 8 * lengthOfArray(a), startB + 8 * lengthOfArray(b)];
  return startA !== startB && startA < endB && startB < endA;
}

/** A new plain Float64Array holding a copy of `array`. */
export function copyOf(array: Float64Array): Float64Array {
  const view = plainView(array);
  const out = new F64(view.length);
  apply(setFrom, out, [view]);
  return out;
}

/** target[offset..] = source, by the intrinsic `set` (both plain Float64Arrays). */
export function setAt(target: Float64Array, source: Float64Array, offset: number): void {
  apply(setFrom, target, [source, offset]);
}
