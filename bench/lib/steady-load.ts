// The load a retention purge runs beside: ingest at a fixed rate (one tenant), and list pages of another, one after
// the other; each started at a phase's beginning and stopped at its end with what it measured.
import { sleep, sqlList, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import { makeEvent } from '../../test/support/events.js';
import type { HttpClient } from './http-timing.js';
import { summarize } from './stats.js';

export interface IngestTarget {
  url: string;
  token: string;
  tenant: string;
  ratePerS: number;
  perRequest: number;
  /** Where the sampled events become visible (the by-id table's database). */
  ch: ClickHouseClient;
}

/** Counts events across phases, so that every request's events have ids of their own. */
let sequence = 0;

/**
 * Requests of `perRequest` events sent on a fixed schedule (open loop: a slow answer delays none after it) until
 * stopped; the first event of each is looked for in the by-id table every 50 ms. At the stop, waits for every
 * answer and every sampled event: the rates are events over the time from the first request to the last answer
 * (acknowledged) and to the last sampled event seen (visible).
 */
export function steadyIngest(t: IngestTarget) {
  const intervalMs = (1000 * t.perRequest) / t.ratePerS;
  const started = performance.now();
  const sentAt = new Map<string, number>();
  const acks: number[] = [];
  const visible: number[] = [];
  const inflight: Promise<void>[] = [];
  let lastAck = started;
  let lastSeen = started;
  let errors = 0;
  let sent = 0;
  let sending = true;
  const post = async (body: string) => {
    const at = performance.now();
    try {
      const res = await fetch(t.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
        body,
      });
      await res.arrayBuffer();
      if (res.status !== 202) errors++;
    } catch {
      errors++;
    }
    lastAck = performance.now();
    acks.push(lastAck - at);
  };
  const sender = (async () => {
    for (let k = 0; sending; k++) {
      const due = started + k * intervalMs;
      if (due > performance.now()) await sleep(due - performance.now());
      if (!sending) break;
      const first = sequence;
      sequence += t.perRequest;
      const batch = Array.from({ length: t.perRequest }, (_, j) => makeEvent(t.tenant, first + j));
      sentAt.set(batch[0]!.event_id, performance.now());
      sent += t.perRequest;
      inflight.push(post(JSON.stringify(batch)));
    }
  })();
  let polling = true;
  const poller = (async () => {
    while (polling || sentAt.size > 0) {
      const pending = [...sentAt.keys()];
      if (pending.length > 0) {
        const r = await t.ch.query({
          query: `SELECT event_id FROM audit_event_ids
            WHERE tenant_id = ${sqlValue(t.tenant)} AND event_id IN ${sqlList(pending)}`,
          format: 'JSONEachRow',
        });
        const now = performance.now();
        for (const { event_id } of await r.json<{ event_id: string }>()) {
          visible.push(now - sentAt.get(event_id)!);
          sentAt.delete(event_id);
          lastSeen = now;
        }
      }
      await sleep(50);
    }
  })();
  return {
    async stop() {
      sending = false;
      await sender;
      await Promise.all(inflight);
      polling = false;
      await poller;
      const s = (ms: number) => (ms - started) / 1000;
      return {
        sent,
        errors,
        acked: sent / s(lastAck),
        visibleRate: sent / s(lastSeen),
        ack: summarize(acks),
        visible: summarize(visible),
      };
    },
  };
}

export type IngestStats = Awaited<ReturnType<ReturnType<typeof steadyIngest>['stop']>>;

export interface ListCase {
  name: string;
  path: string;
}

/** The cases' pages requested in turn, one at a time, until stopped: each case's latencies. */
export function listLoop(http: HttpClient, auth: Record<string, string>, cases: ListCase[]) {
  const times = cases.map(() => [] as number[]);
  let errors = 0;
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const c = i % cases.length;
      const res = await http.request(cases[c]!.path, { headers: auth });
      if (res.status !== 200) errors++;
      else times[c]!.push(res.totalMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { errors, cases: cases.map((c, i) => ({ name: c.name, s: summarize(times[i]!) })) };
    },
  };
}

export type ListStats = Awaited<ReturnType<ReturnType<typeof listLoop>['stop']>>;
