import { describe, expect, it } from 'vitest';
import { IdIndex } from './id-index.js';

describe('IdIndex', () => {
  it('holds what a Map would, in its order, through growth and with ids set again', () => {
    const index = new IdIndex();
    const map = new Map<string, number>();
    // Ids of every length from 0, UUIDs and others, many set twice: thousands, so that the table grows often.
    const ids = Array.from({ length: 5000 }, (_, i) =>
      i % 3 ? `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` : 'x'.repeat(i % 40),
    );
    // set answers with the number the id had, as map.get would before the set.
    const setBoth = (id: string, n: number) => {
      expect(index.set(id, n)).toBe(map.get(id) ?? -1);
      map.set(id, n);
    };
    ids.forEach((id, i) => setBoth(id, i));
    ids.slice(0, 100).forEach((id, i) => setBoth(id, ids.length + i));
    expect(index.size).toBe(map.size);
    expect([...index.entries()]).toEqual([...map.entries()]);
    for (const id of ids) expect(index.find(id)).toBe(map.get(id));
    expect(index.find('absent')).toBe(-1);
  });

  it('finds an id where it lies in a longer text, and only the whole of it', () => {
    const index = new IdIndex();
    index.set('abc', 1);
    index.set('abcd', 2);
    const text = 'zzabcdzz';
    expect(index.find(text, 2, 5)).toBe(1);
    expect(index.find(text, 2, 6)).toBe(2);
    expect(index.find(text, 3, 6)).toBe(-1);
    expect(index.find(text, 2, 4)).toBe(-1);
    expect(index.find(text, 0, 0)).toBe(-1);
  });
});
