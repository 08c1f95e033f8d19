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
 * it up in a Map cost the trail check's thread more than anything else it does per row (docs/benchmarks.md
 * "bench:integrity"). An open-addressing table of typed arrays, which the collector does not walk.
 */
export class IdIndex {
  private readonly ids: string[] = [];
  private readonly numbers: number[] = [];
  // Each cell holds an entry's index plus one, 0 when empty; at most half full.
  private table = new Int32Array(1024);

  get size(): number {
    return this.ids.length;
  }

  set(id: string, n: number): void {
    const found = this.entryOf(id, 0, id.length);
    if (found !== -1) {
      this.numbers[found] = n;
      return;
    }
    if (2 * (this.ids.length + 1) > this.table.length) this.grow();
    this.ids.push(id);
    this.numbers.push(n);
    this.place(this.ids.length - 1);
  }

  /** The number of the id that is `text` from `start` to `end` (all of it by default), or -1. */
  find(text: string, start = 0, end = text.length): number {
    const entry = this.entryOf(text, start, end);
    return entry === -1 ? -1 : this.numbers[entry]!;
  }

  /** Every id with its number, in the order they were first set. */
  *entries(): Generator<[string, number]> {
    for (let e = 0; e < this.ids.length; e++) yield [this.ids[e]!, this.numbers[e]!];
  }

  private entryOf(text: string, start: number, end: number): number {
    const mask = this.table.length - 1;
    for (let cell = hashOf(text, start, end) & mask; ; cell = (cell + 1) & mask) {
      const held = this.table[cell]!;
      if (held === 0) return -1;
      const id = this.ids[held - 1]!;
      if (id.length === end - start && text.startsWith(id, start)) return held - 1;
    }
  }

  private place(entry: number): void {
    const id = this.ids[entry]!;
    const mask = this.table.length - 1;
    let cell = hashOf(id, 0, id.length) & mask;
    while (this.table[cell] !== 0) cell = (cell + 1) & mask;
    this.table[cell] = entry + 1;
  }

  private grow(): void {
    this.table = new Int32Array(this.table.length * 2);
    for (let e = 0; e < this.ids.length; e++) this.place(e);
  }
}
