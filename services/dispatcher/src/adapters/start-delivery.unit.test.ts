import { describe, expect, it } from 'vitest';
import type { DeliveryJob } from '@audit/shared/webhooks';
import { KeyedLanes } from '../domain/keyed-lanes.js';
import { startDelivery } from './start-delivery.js';

const job = (endpointId: string, n: number) =>
  ({ endpointId, eventId: `e${n}`, attempt: 1 }) as unknown as DeliveryJob;

describe('startDelivery', () => {
  it("defers a stuck endpoint's jobs beyond its waiting limit, and never another endpoint's", async () => {
    let now = 0;
    const lanes = new KeyedLanes(1, () => now);
    let open!: () => void;
    const stuck = new Promise<void>((r) => (open = r));
    const delivered: string[] = [];
    const deferred: string[] = [];
    const finished: string[] = [];
    const settled: string[] = [];
    const deps = {
      lanes,
      maxWaitingPerEndpoint: 2,
      deliver: async (j: DeliveryJob) => {
        if (j.endpointId === 'dead') await stuck;
        delivered.push(j.eventId);
        return 'delivered' as const;
      },
      defer: async (j: DeliveryJob) => void deferred.push(j.eventId),
      meter: { settled: (outcome: string, attempt: number) => settled.push(`${outcome}@${attempt}`) },
    };
    // Waiting beyond the limit is fine while the lane makes progress; once it stalls, the overflow is deferred.
    for (let n = 0; n < 4; n++) startDelivery(deps, job('dead', n), () => finished.push(`dead${n}`));
    now = 1000;
    for (let n = 4; n < 6; n++) startDelivery(deps, job('dead', n), () => finished.push(`dead${n}`));
    startDelivery(deps, job('healthy', 9), () => finished.push('healthy9'));
    await new Promise((r) => setTimeout(r, 10));
    expect(deferred).toEqual(['e4', 'e5']);
    expect(delivered).toEqual(['e9']);
    expect(finished.sort()).toEqual(['dead4', 'dead5', 'healthy9']);
    open();
    await lanes.whenBelow(1);
    expect(delivered.sort()).toEqual(['e0', 'e1', 'e2', 'e3', 'e9']);
    await new Promise((r) => setTimeout(r, 10));
    expect(settled.sort()).toEqual(['deferred@1', 'deferred@1', ...Array<string>(5).fill('delivered@1')]);
  });
});
