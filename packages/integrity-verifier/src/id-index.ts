import { randomInt } from 'node:crypto';

// The hash's starting value, drawn for each process: window proof pages whose ids were chosen to collide under a
// known hash could otherwise slow the lookups down to a scan.
const SEED = randomInt(0, 2 ** 32);

/**
 * FNV-1a from a random starting value over the UTF-16 units of `text` from `start` to `end`, then murmur3's final
 * mix: FNV's low bits depend only on the low bits of the seed and of each unit, and the table is indexed by them.
 */
function hashOf(text: string, start: number, end: number): number {
  let h = SEED;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The window's event ids, each with a number (its leaf's place), as a Map of them would hold them: `set` on an id
 * already there changes its number and keeps its place in the order. Ids are looked up where they lie in a longer
 * text (`find`): a block of rows from a worker thread brings its ids as one string, and slicing each out to look
 * it up in a Map cost the trail check's thread more than anything else it does per row
 * (docs/benchmarks/journal.md "bench:integrity"). An open-addressing table of typed arrays, which the collector does not walk.
 */
export class IdIndex {
  private readonly ids: string[] = [];
  private readonly numbers: number[] = [];
  // Cell c is the pair at 2c: an entry's index plus one (0 when empty), and its id's hash. At most half the cells
  // are used. A lookup's probes read the pair, and an id's text (elsewhere in memory, a cache miss of its own)
  // only when the hash is the one sought; growing places the entries again by the hashes kept here.
  private table = new Int32Array(2 * 1024);

  get size(): number {
    return this.ids.length;
  }

  /** Gives the id its number; returns the number it had, or -1 when it was not there (numbers are not negative). */
  set(id: string, n: number): number {
    const hash = hashOf(id, 0, id.length);
    const found = this.entryOf(hash, id, 0, id.length);
    if (found !== -1) {
      const before = this.numbers[found]!;
      this.numbers[found] = n;
      return before;
    }
    if (4 * (this.ids.length + 1) > this.table.length) this.grow();
    this.ids.push(id);
    this.numbers.push(n);
    this.place(this.table, this.ids.length, hash);
    return -1;
  }

  /** The number of the id that is `text` from `start` to `end` (all of it by default), or -1. */
  find(text: string, start = 0, end = text.length): number {
    const entry = this.entryOf(hashOf(text, start, end), text, start, end);
    return entry === -1 ? -1 : this.numbers[entry]!;
  }

  /** Every id with its number, in the order they were first set. */
  *entries(): Generator<[string, number]> {
    for (let e = 0; e < this.ids.length; e++) yield [this.ids[e]!, this.numbers[e]!];
  }

  private entryOf(hash: number, text: string, start: number, end: number): number {
    const table = this.table;
    const mask = (table.length >>> 1) - 1;
    const sought = hash | 0;
    for (let cell = hash & mask; ; cell = (cell + 1) & mask) {
      const held = table[2 * cell]!;
      if (held === 0) return -1;
      if (table[2 * cell + 1] !== sought) continue;
      const id = this.ids[held - 1]!;
      if (id.length === end - start && text.startsWith(id, start)) return held - 1;
    }
  }

  /** Puts `held` (an entry's index plus one) of this hash in the first empty cell of its probe sequence. */
  private place(table: Int32Array, held: number, hash: number): void {
    const mask = (table.length >>> 1) - 1;
    let cell = hash & mask;
    while (table[2 * cell] !== 0) cell = (cell + 1) & mask;
    table[2 * cell] = held;
    table[2 * cell + 1] = hash;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    for (let c = 0; c < old.length; c += 2)
      if (old[c] !== 0) this.place(this.table, old[c]!, old[c + 1]! >>> 0);
  }
}
