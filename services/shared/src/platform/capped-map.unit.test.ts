import { describe, expect, it } from 'vitest';
import { CappedMap } from './capped-map.js';

describe('CappedMap', () => {
  it('forgets the entry written longest ago once full', () => {
    const map = new CappedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 3).set('c', 4);
    expect([...map.entries()]).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
  });
});
