// Results handed to callers are frozen, and the arrays that describe a calibration cannot be
// written through: each read of such a field returns a fresh copy of the result's own array (a
// frozen object's typed array would still be writable, and every holder would see a write). Read
// such a field once and keep the copy, rather than indexing it in a loop. Released values (a noisy
// matrix, fitted parameters) are the caller's own: those fields, named in `released`, hold the array itself.
import { copyOf, isFloat64Array } from './arrays.js';

/**
 * A frozen copy of `fields`: Float64Array fields become getters returning fresh copies of an owned
 * copy, but those named in `released`, which keep their array.
 */
export function frozenResult<T extends object>(fields: T, released: readonly (keyof T & string)[] = []): T {
  const out = {} as T;
  for (const [key, value] of Object.entries(fields)) {
    if (isFloat64Array(value) && !released.includes(key as keyof T & string)) {
      const owned = copyOf(value);
      Object.defineProperty(out, key, { get: () => copyOf(owned), enumerable: true });
    } else {
      Object.defineProperty(out, key, { value, enumerable: true });
    }
  }
  return Object.freeze(out);
}
