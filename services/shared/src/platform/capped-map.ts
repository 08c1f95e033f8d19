/**
 * A Map that holds at most `max` entries, forgetting the one written longest ago to make room: the one bound for
 * every cache keyed by what clients send (prefixes, addresses, tenants), which must not grow with a flood.
 */
export class CappedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    super.delete(key);
    if (this.size >= this.max) super.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}
