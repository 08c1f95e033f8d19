import { describe, expect, it } from 'vitest';
import { exportSlots } from './export-slots.js';

describe('exportSlots', () => {
  it('gives at most max at once, and a slot given back twice frees one place only', () => {
    const slots = exportSlots(2);
    const a = slots.take()!;
    expect(slots.take()).not.toBeNull();
    expect(slots.take()).toBeNull();
    a();
    a();
    expect(slots.take()).not.toBeNull();
    expect(slots.take()).toBeNull();
  });
});
