// Results handed to callers are frozen, and the arrays they show cannot be written through: each
// read of an array field returns a fresh copy of the result's own array (a frozen object's typed
// array would still be writable, and every holder would see a write). Read such a field once and
// keep the copy, rather than indexing it in a loop.
import { copyOf, isFloat64Array } from './arrays.js';

/** A frozen copy of `fields`: Float64Array fields become getters returning fresh copies of an owned copy. */
export function frozenResult<T extends object>(fields: T): T {
  const out = {} as T;
  for (const [key, value] of Object.entries(fields)) {
    if (isFloat64Array(value)) {
      const owned = copyOf(value);
      Object.defineProperty(out, key, { get: () => copyOf(owned), enumerable: true });
    } else {
      Object.defineProperty(out, key, { value, enumerable: true });
    }
  }
  return Object.freeze(out);
}
