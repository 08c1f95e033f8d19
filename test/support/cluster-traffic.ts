import type { Deployment } from './deployment.js';
import { makeEvent } from './events.js';

export interface Answer {
  /** 0 when no answer came: the connection failed or was closed under the request (`error` says how). */
  status: number;
  retryAfter: string | null;
  at: number;
  error?: string;
}

export interface TrafficTenant {
  tenant: string;
  key: string;
}

function unanswered(err: unknown): Answer {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return { status: 0, retryAfter: null, at: Date.now(), error: `${String(err)}${cause}` };
}

/**
 * Batches of 20 events round the tenants through the deployment's ingest balancer, one request after the other,
 * and list reads through its gateways' balancer beside them, until stopped; every answer is kept with its time.
 * A request that got no answer is kept too, and the traffic goes on: a client sees it, so a test reports it.
 */
export function clusterTraffic(tenants: readonly TrafficTenant[], { ingest, ingestToken, api }: Deployment) {
  const accepted = new Map(tenants.map((t) => [t.tenant, new Set<string>()]));
  const ingests: Answer[] = [];
  const reads: Answer[] = [];
  let running = true;
  let n = 0;
  // Reads stay well within a key's read budget (1,000 a minute), whatever the tenants' count.
  const pause = () => new Promise((r) => setTimeout(r, 100));
  const writer = (async () => {
    while (running) {
      const t = tenants[n % tenants.length]!;
      const events = Array.from({ length: 20 }, (_, i) => makeEvent(t.tenant, n * 20 + i));
      n++;
      try {
        const res = await fetch(`${ingest}/internal/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ingestToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(events),
        });
        await res.arrayBuffer();
        ingests.push({ status: res.status, retryAfter: res.headers.get('retry-after'), at: Date.now() });
        if (res.status === 202) for (const e of events) accepted.get(t.tenant)!.add(e.event_id);
      } catch (err) {
        ingests.push(unanswered(err));
      }
      await pause();
    }
  })();
  const reader = (async () => {
    for (let i = 0; running; i++) {
      const t = tenants[i % tenants.length]!;
      try {
        const res = await api(t.key, 'GET', '/audit/events?limit=10');
        reads.push({ status: res.status, retryAfter: res.retryAfter, at: Date.now() });
      } catch (err) {
        reads.push(unanswered(err));
      }
      await pause();
    }
  })();
  const served = (answers: Answer[], status: number, since: number) =>
    answers.some((a) => a.at > since && a.status === status);
  return {
    accepted,
    ingests,
    reads,
    /** An ingest answered 202 and a read 200 after `since`. */
    flowing: (since: number) => served(ingests, 202, since) && served(reads, 200, since),
    readsServed: (since: number) => served(reads, 200, since),
    /** Answers other than `ok` and 503 with a Retry-After (what a client is told while an engine is missed). */
    unexpected: (answers: Answer[], ok: number) =>
      answers.filter((a) => a.status !== ok && !(a.status === 503 && Number(a.retryAfter) > 0)),
    async stop() {
      running = false;
      await Promise.all([writer, reader]);
    },
  };
}
