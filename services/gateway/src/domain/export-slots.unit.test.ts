import { describe, expect, it } from 'vitest';
import { exportSlots } from './export-slots.js';

describe('exportSlots', () => {
  it('gives at most max at once, and a slot given back twice frees one place only', () => {
    const slots = exportSlots(2);
    const a = slots.take('a')!;
    expect(slots.take('b')).not.toBeNull();
    expect(slots.take('c')).toBeNull();
    a();
    a();
    expect(slots.take('c')).not.toBeNull();
    expect(slots.take('d')).toBeNull();
  });

  it('gives one tenant at most half of them', () => {
    const slots = exportSlots(4);
    const first = slots.take('a')!;
    expect(slots.take('a')).not.toBeNull();
    expect(slots.take('a')).toBeNull();
    expect(slots.take('b')).not.toBeNull();
    first();
    expect(slots.take('a')).not.toBeNull();
  });
});
