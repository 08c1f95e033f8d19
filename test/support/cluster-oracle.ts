import { expect } from 'vitest';
import type { Deployment } from './deployment.js';
import { pageThrough } from './paging.js';
import { waitFor } from './wait-for.js';
import type { Received } from './webhook-receiver.js';

export interface WatchedTenant {
  tenant: string;
  key: string;
  /** The path of its webhook endpoint at the test's receiver. */
  path: string;
}

/**
 * The oracle after a failure on the cluster: every accepted event of the tenant listed once, its tree verifying
 * against its rows and signed checkpoints, and every accepted event delivered to its endpoint (a delivery made
 * again, as at-least-once allows, with the same bytes).
 */
export async function expectTrailWhole(
  { tenant, key, path }: WatchedTenant,
  accepted: ReadonlySet<string>,
  deliveries: (path: string) => Received[],
  { api, ops }: Deployment,
) {
  expect(accepted.size).toBeGreaterThan(0);
  const listed = await waitFor(`${tenant}: every accepted event listed`, async () => {
    const events = await pageThrough((p) => api(key, 'GET', p), 'limit=500', key);
    const ids = events.filter((e) => accepted.has(e.event_id)).map((e) => e.event_id);
    return ids.length >= accepted.size && ids;
  });
  expect(listed.length).toBe(accepted.size);
  expect(new Set(listed).size).toBe(accepted.size);
  await waitFor(`${tenant}: its rows verify against its tree`, async () => {
    const res = await ops(['integrity', 'verify', '--tenant', tenant, '--json']);
    return res.code === 0 && (JSON.parse(res.out) as { ok: boolean }).ok;
  });
  const delivered = await waitFor(`${tenant}: every accepted event delivered`, async () => {
    const got = deliveries(path);
    const ids = new Set(got.map((r) => r.id));
    return [...accepted].every((id) => ids.has(id)) && got;
  });
  const bodies = new Map<string, string>();
  for (const r of delivered) {
    const body = r.body.toString('utf8');
    expect(bodies.get(r.id) ?? body).toBe(body);
    bodies.set(r.id, body);
  }
}
