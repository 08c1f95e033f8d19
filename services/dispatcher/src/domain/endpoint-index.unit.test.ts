import { describe, expect, it } from 'vitest';
import { liveSecrets } from '@audit/shared/webhooks';
import { EndpointIndex, type ActiveEndpoint } from './endpoint-index.js';

const ep = (id: string, tenantId: string, filter: string[], createdAt = 0): ActiveEndpoint => ({
  id,
  tenantId,
  url: `https://x/${id}`,
  filter,
  secret: 's',
  previous: null,
  version: 1,
  ratePerSecond: null,
  createdAt,
});

const none = () => false;

describe('EndpointIndex', () => {
  const index = new EndpointIndex([
    ep('wh_00000001', 'a', []),
    ep('wh_00000002', 'a', ['phi.']),
    ep('wh_00000003', 'a', ['admin.'], 5000),
    ep('wh_00000004', 'b', []),
  ]);

  it("matches only the event's own tenant, by prefix", () => {
    expect(index.matching('a', 'phi.read', 10_000, none).map((e) => e.id)).toEqual([
      'wh_00000001',
      'wh_00000002',
    ]);
    expect(index.matching('a', 'admin.key.create', 10_000, none).map((e) => e.id)).toEqual([
      'wh_00000001',
      'wh_00000003',
    ]);
    expect(index.matching('c', 'phi.read', 10_000, none)).toEqual([]);
  });

  it('never matches an endpoint created after the event was written, unless its creation was read first', () => {
    expect(index.matching('a', 'admin.key.create', 4999, none).map((e) => e.id)).toEqual(['wh_00000001']);
    const created = (id: string) => id === 'wh_00000003';
    expect(index.matching('a', 'admin.key.create', 4999, created).map((e) => e.id)).toEqual([
      'wh_00000001',
      'wh_00000003',
    ]);
  });

  it('forgets a removed endpoint at once', () => {
    const copy = new EndpointIndex([ep('wh_00000001', 'a', []), ep('wh_00000002', 'a', [])]);
    copy.remove('wh_00000001');
    expect(copy.get('wh_00000001')).toBeUndefined();
    expect(copy.matching('a', 'phi.read', 1, none).map((e) => e.id)).toEqual(['wh_00000002']);
    copy.remove('wh_00000002');
    expect(copy.size).toBe(0);
  });
});

describe('liveSecrets', () => {
  it('signs with the replaced secret too until its overlap ends, the current one first', () => {
    const endpoint = { secret: 'new', previous: { secret: 'old', expiresAt: 1000 } };
    expect(liveSecrets(endpoint, 999)).toEqual(['new', 'old']);
    expect(liveSecrets(endpoint, 1000)).toEqual(['new']);
    expect(liveSecrets({ secret: 'only', previous: null }, 0)).toEqual(['only']);
  });
});
