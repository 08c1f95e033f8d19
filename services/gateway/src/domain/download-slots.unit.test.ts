import { describe, expect, it } from 'vitest';
import { downloadSlots, tooSlow } from './download-slots.js';

describe('download slots', () => {
  it("refuses past a key's, a tenant's or the process's limit, and gives each place back once", () => {
    const slots = downloadSlots({ perKey: 2, perTenant: 3, perProcess: 4 });
    const a = [slots.take('k1', 't1'), slots.take('k1', 't1')];
    expect(a.every(Boolean)).toBe(true);
    expect(slots.take('k1', 't1')).toBeNull();
    const b = slots.take('k2', 't1');
    expect(b).not.toBeNull();
    expect(slots.take('k3', 't1')).toBeNull();
    const c = slots.take('k4', 't2');
    expect(c).not.toBeNull();
    expect(slots.take('k5', 't3')).toBeNull();
    a[0]!();
    a[0]!();
    expect(slots.running()).toBe(3);
    expect(slots.take('k1', 't1')).not.toBeNull();
  });

  it('calls a download too slow when a window passed with less than the least rate', () => {
    expect(tooSlow(15_000, 1000, 16_384)).toBe(true);
    expect(tooSlow(16_384, 1000, 16_384)).toBe(false);
    expect(tooSlow(480_000, 30_000, 16_384)).toBe(true);
  });
});
