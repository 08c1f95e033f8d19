import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import {
  clickhouseReady,
  createClickHouse,
  withDeadline,
  type ClickHouseSettings,
} from '@audit/shared/platform';

export type State = 'up' | 'not_ready' | 'down';

export interface StatusRow {
  name: string;
  kind: 'component' | 'service';
  address: string;
  state: State;
  /** What failed, when something did: a readiness check's name, or the error's code. */
  detail: string | null;
}

export interface StatusTargets {
  databaseUrl: string;
  clickhouse: ClickHouseSettings;
  brokers: string[];
  services: Record<string, { host: string; port: number }>;
}

type Failure = { code?: unknown; message?: unknown; cause?: Failure } | null | undefined;
// fetch hides the socket's error code in its cause ("fetch failed").
const reason = (err: unknown): string => {
  const e = err as Failure;
  return String(e?.code ?? e?.cause?.code ?? e?.message ?? err).slice(0, 200);
};

async function probe(
  name: string,
  kind: StatusRow['kind'],
  address: string,
  deadlineMs: number,
  check: () => Promise<{ state: State; detail: string | null }>,
): Promise<StatusRow> {
  try {
    const result = await withDeadline(
      check(),
      deadlineMs,
      () => new Error(`no answer within ${deadlineMs} ms`),
    );
    return { name, kind, address, ...result };
  } catch (err) {
    return { name, kind, address, state: 'down', detail: reason(err) };
  }
}

const up = { state: 'up', detail: null } as const;

/** A service is up when its /readyz says ready, not ready when it answers otherwise, down when it does not answer. */
async function serviceReadiness(url: string, deadlineMs: number) {
  const res = await fetch(url, { signal: AbortSignal.timeout(deadlineMs) });
  const body = (await res.json().catch(() => ({}))) as { checks?: Record<string, string> };
  if (res.ok) return up;
  const failed = Object.entries(body.checks ?? {}).filter(([, s]) => s !== 'ok');
  return {
    state: 'not_ready' as const,
    detail: failed.map(([n]) => `${n} failed`).join(', ') || `HTTP ${res.status}`,
  };
}

/** Every component and service, up or down, with its address (passwords left out). */
export async function statusCommand(targets: StatusTargets, deadlineMs = 3000): Promise<StatusRow[]> {
  const pgUrl = new URL(targets.databaseUrl);
  const components = [
    probe('postgres', 'component', `${pgUrl.hostname}:${pgUrl.port || 5432}`, deadlineMs, async () => {
      const client = new pg.Client({
        connectionString: targets.databaseUrl,
        connectionTimeoutMillis: deadlineMs,
      });
      try {
        await client.connect();
        await client.query('SELECT 1');
        return up;
      } finally {
        await client.end().catch(() => undefined);
      }
    }),
    probe('clickhouse', 'component', new URL(targets.clickhouse.url).host, deadlineMs, async () => {
      const client = createClickHouse(targets.clickhouse);
      try {
        await clickhouseReady(client);
        return up;
      } finally {
        await client.close();
      }
    }),
    probe('kafka', 'component', targets.brokers.join(','), deadlineMs, async () => {
      // Asked once: a status must answer, not ride out an outage as the services do.
      const kafka = new Kafka({
        clientId: 'audit-trail-ops-status',
        brokers: targets.brokers,
        logLevel: logLevel.NOTHING,
        connectionTimeout: deadlineMs,
        retry: { retries: 0 },
      });
      const admin = kafka.admin();
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        return { state: 'up' as const, detail: `${cluster.brokers.length} broker(s)` };
      } finally {
        await admin.disconnect();
      }
    }),
  ];
  const services = Object.entries(targets.services).map(([name, { host, port }]) =>
    probe(name, 'service', `${host}:${port}`, deadlineMs, () =>
      serviceReadiness(`http://${host.includes(':') ? `[${host}]` : host}:${port}/readyz`, deadlineMs),
    ),
  );
  return Promise.all([...components, ...services]);
}
