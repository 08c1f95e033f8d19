import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cutTiles,
  leavesOfTile,
  TILE_MAX_LEAVES,
  TILE_MAX_SPAN_MS,
  tileLeafHash,
  uuidBytes,
  uuidOf,
  type TileLeaf,
} from './leaf-tiles.js';

const leaves = (times: readonly number[], first = 0): TileLeaf[] =>
  times.map((ts, i) => ({ leaf_index: first + i, event_id: randomUUID(), leaf_hash: randomBytes(32), ts }));

describe('cutTiles', () => {
  it('keeps every leaf, in order, once, and reads each back as it was given', () => {
    const given = leaves(
      Array.from({ length: 2500 }, (_, i) => 1_700_000_000_000 + i),
      40,
    );
    const tiles = cutTiles(given);
    expect(tiles.map((t) => t.first_index)).toEqual([40, 40 + TILE_MAX_LEAVES, 40 + 2 * TILE_MAX_LEAVES]);
    const back = tiles.flatMap(leavesOfTile);
    expect(back.map((l) => [l.leaf_index, l.event_id, l.ts])).toEqual(
      given.map((l) => [l.leaf_index, l.event_id, l.ts]),
    );
    expect(back.every((l, i) => l.leaf_hash.equals(given[i]!.leaf_hash))).toBe(true);
    expect(
      tileLeafHash(tiles[1]!, 40 + TILE_MAX_LEAVES + 5).equals(given[TILE_MAX_LEAVES + 5]!.leaf_hash),
    ).toBe(true);
    expect([tiles[0]!.min_ts, tiles[0]!.max_ts]).toEqual([given[0]!.ts, given[TILE_MAX_LEAVES - 1]!.ts]);
  });

  it('begins a tile where a time would stretch it past the span, whichever side the time is on', () => {
    const t = 1_000_000_000;
    const tiles = cutTiles(leaves([t, t + TILE_MAX_SPAN_MS, t + 5, t + TILE_MAX_SPAN_MS + 1, t - 1, 0, 0]));
    expect(tiles.map((x) => [x.first_index, x.min_ts, x.max_ts])).toEqual([
      [0, t, t + TILE_MAX_SPAN_MS],
      [3, t + TILE_MAX_SPAN_MS + 1, t + TILE_MAX_SPAN_MS + 1],
      [4, t - 1, t - 1],
      [5, 0, 0],
    ]);
  });

  it('writes a UUID as its 16 bytes and back', () => {
    const id = randomUUID();
    expect(uuidBytes(id)).toHaveLength(16);
    expect(uuidOf(Buffer.concat([Buffer.alloc(3), uuidBytes(id)]), 3)).toBe(id);
    expect(uuidBytes(id)).toEqual(Buffer.from(id.replaceAll('-', ''), 'hex'));
  });

  it('refuses to write what is not a lowercase UUID with its dashes', () => {
    const id = '0123abcd-4567-89ef-0123-456789abcdef';
    expect(uuidBytes(id).toString('hex')).toBe(id.replaceAll('-', ''));
    for (const bad of [
      id.toUpperCase(),
      id.replaceAll('-', ''),
      id.slice(0, 35),
      `${id}0`,
      id.replace('-', '0'),
      id.replace('a', 'g'),
      id.replace('a', '\u{1F600}'),
      '',
    ])
      expect(() => uuidBytes(bad), bad).toThrow(TypeError);
  });
});
