// A value computed once per key and kept: the accountant's distributions per grid, its accounts per event.

/** The value kept under `key`, made by `make` on first use. */
export function memo<K, V>(cache: { get(key: K): V | undefined; set(key: K, value: V): unknown }, key: K, make: () => V): V {
  const kept = cache.get(key);
  if (kept !== undefined) return kept;
  const value = make();
  cache.set(key, value);
  return value;
}
