/**
 * An empty record without a prototype, for keys chosen by a caller, a fetched page or an engine.
 * On a plain object the key `__proto__` replaces the object's prototype rather than adding a
 * key, and absent keys such as `constructor` or `toString` read what Object.prototype holds (or
 * what was added to it); here every key is an ordinary own property and an absent key is
 * undefined. JSON.stringify, Object.keys/entries and spreading treat it like a plain object.
 */
export function nullPrototypeRecord<Value>(): Record<string, Value> {
  return Object.create(null) as Record<string, Value>;
}
