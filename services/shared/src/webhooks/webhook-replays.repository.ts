import { randomUUID } from 'node:crypto';
import type pg from 'pg';

type Queryable = Pick<pg.ClientBase, 'query'>;

export type ReplayStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** A replay an endpoint's owner asked for, and how far it got (docs/webhooks.md "Replays"). */
export interface WebhookReplay {
  id: string;
  endpointId: string;
  tenantId: string;
  /** The window of ingestion times, epoch ms, `until` exclusive. */
  since: number;
  until: number;
  requestedBy: string;
  createdAt: number;
  status: ReplayStatus;
  startedAt: number | null;
  finishedAt: number | null;
  /** How often a dispatcher has taken it up. */
  attempts: number;
  recordsRead: number;
  deliveriesQueued: number;
  /**
   * The generation of the audit topic read (null: the first), the tenant's partition of it, the first record there
   * not handed on yet, the window's end there.
   */
  topic: string | null;
  partition: number | null;
  nextOffset: bigint | null;
  endOffset: bigint | null;
  error: string | null;
}

/** A replay as a dispatcher holds it: the token that fences its updates. */
export interface HeldReplay extends WebhookReplay {
  leaseToken: string;
}

interface Row {
  id: string;
  endpoint_id: string;
  tenant_id: string;
  since_ms: string;
  until_ms: string;
  requested_by: string;
  created_at: Date;
  status: ReplayStatus;
  started_at: Date | null;
  finished_at: Date | null;
  attempts: number;
  records_read: string;
  deliveries_queued: string;
  topic: string | null;
  partition: number | null;
  next_offset: string | null;
  end_offset: string | null;
  error: string | null;
  lease_token: string | null;
}

const COLUMNS = `id, endpoint_id, tenant_id, since_ms, until_ms, requested_by, created_at, status, started_at,
  finished_at, attempts, records_read, deliveries_queued, topic, partition, next_offset, end_offset, error,
  lease_token`;

const ms = (d: Date | null) => (d ? d.getTime() : null);
const big = (v: string | null) => (v === null ? null : BigInt(v));

function replayOf(r: Row): WebhookReplay {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    tenantId: r.tenant_id,
    since: Number(r.since_ms),
    until: Number(r.until_ms),
    requestedBy: r.requested_by,
    createdAt: r.created_at.getTime(),
    status: r.status,
    startedAt: ms(r.started_at),
    finishedAt: ms(r.finished_at),
    attempts: r.attempts,
    recordsRead: Number(r.records_read),
    deliveriesQueued: Number(r.deliveries_queued),
    topic: r.topic,
    partition: r.partition,
    nextOffset: big(r.next_offset),
    endOffset: big(r.end_offset),
    error: r.error,
  };
}

export type ReplayProgress = Pick<
  WebhookReplay,
  'recordsRead' | 'deliveriesQueued' | 'topic' | 'partition' | 'nextOffset' | 'endOffset'
>;

/**
 * The progress update of a held replay: its lease's new end, and its attempts (SQL) when it got further and when
 * it did not.
 */
async function recordProgress(
  db: Queryable,
  held: Pick<HeldReplay, 'id' | 'leaseToken'>,
  p: ReplayProgress,
  set: { leaseUntil: string; attempts: [further: string, same: string] },
  leaseMs?: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_replays SET records_read = $3, deliveries_queued = $4, next_offset = $5, end_offset = $6,
       partition = $7, topic = $8, lease_until = ${set.leaseUntil},
       attempts = CASE WHEN next_offset IS DISTINCT FROM $5::bigint OR coalesce(topic, $8) IS DISTINCT FROM $8
         THEN ${set.attempts[0]} ELSE ${set.attempts[1]} END
     WHERE id = $1 AND lease_token = $2 AND status = 'running'`,
    [
      held.id,
      held.leaseToken,
      p.recordsRead,
      p.deliveriesQueued,
      p.nextOffset?.toString() ?? null,
      p.endOffset?.toString() ?? null,
      p.partition,
      p.topic,
      ...(leaseMs === undefined ? [] : [leaseMs]),
    ],
  );
  return (rowCount ?? 0) > 0;
}

export const webhookReplaysRepository = {
  /** The tenant's replays queued or running, of all its endpoints. */
  async countActive(db: Queryable, tenantId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_replays WHERE tenant_id = $1 AND status IN ('queued', 'running')`,
      [tenantId],
    );
    return rows[0]!.n;
  },

  /** A new queued replay; null when the endpoint has one queued or running. */
  async insert(
    db: Queryable,
    r: Pick<WebhookReplay, 'id' | 'endpointId' | 'tenantId' | 'since' | 'until' | 'requestedBy'>,
  ): Promise<WebhookReplay | null> {
    const { rows } = await db.query<Row>(
      `INSERT INTO webhook_replays (id, endpoint_id, tenant_id, since_ms, until_ms, requested_by)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (endpoint_id) WHERE status IN ('queued', 'running') DO NOTHING
       RETURNING ${COLUMNS}`,
      [r.id, r.endpointId, r.tenantId, r.since, r.until, r.requestedBy],
    );
    return rows[0] ? replayOf(rows[0]) : null;
  },

  /** The endpoint's newest replay, or null. */
  async latest(db: Queryable, endpointId: string): Promise<WebhookReplay | null> {
    const { rows } = await db.query<Row>(
      `SELECT ${COLUMNS} FROM webhook_replays WHERE endpoint_id = $1 ORDER BY created_at DESC, id LIMIT 1`,
      [endpointId],
    );
    return rows[0] ? replayOf(rows[0]) : null;
  },

  /**
   * Takes a replay that is queued, or running but not held (its lease ran out, or its holder let go at the end of
   * a slice), whose window ended more than `settleMs` ago (events acknowledged before its end are on the audit
   * topic by then), and holds it for `leaseMs`: null when there is none. Tenants are served in turn: the replay
   * taken is that of the tenant whose replays were taken longest ago (never first), then the tenant's own least
   * recently taken, then the oldest. A taken-over replay keeps its progress; each take counts an attempt.
   */
  async claim(db: Queryable, leaseMs: number, settleMs: number): Promise<HeldReplay | null> {
    const { rows } = await db.query<Row>(
      `UPDATE webhook_replays SET status = 'running', lease_token = $1, attempts = attempts + 1,
         lease_until = now() + make_interval(secs => $2::float8 / 1000), started_at = coalesce(started_at, now()),
         taken_at = clock_timestamp()
       WHERE id = (SELECT r.id FROM webhook_replays r
                   WHERE (r.status = 'queued' OR (r.status = 'running' AND r.lease_until < now()))
                     AND r.until_ms + $3 < (extract(epoch FROM now()) * 1000)::bigint
                   ORDER BY (SELECT max(t.taken_at) FROM webhook_replays t WHERE t.tenant_id = r.tenant_id)
                              NULLS FIRST,
                            r.taken_at NULLS FIRST, r.created_at
                   LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      [randomUUID(), leaseMs, settleMs],
    );
    return rows[0] ? { ...replayOf(rows[0]), leaseToken: rows[0].lease_token! } : null;
  },

  /** Whether a replay other than this one could be taken now (as `claim` would take it). */
  async othersWaiting(db: Queryable, id: string, settleMs: number): Promise<boolean> {
    const { rows } = await db.query<{ waiting: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM webhook_replays
         WHERE id <> $1 AND (status = 'queued' OR (status = 'running' AND lease_until < now()))
           AND until_ms + $2 < (extract(epoch FROM now()) * 1000)::bigint) AS waiting`,
      [id, settleMs],
    );
    return rows[0]!.waiting;
  },

  /**
   * Records how far the replay got and extends its lease; false when it is no longer held (taken over after the
   * lease ran out, or deleted with its endpoint): its holder then stops. A replay that got further has been
   * taken up once since it last did.
   */
  async progress(
    db: Queryable,
    held: Pick<HeldReplay, 'id' | 'leaseToken'>,
    leaseMs: number,
    p: ReplayProgress,
  ): Promise<boolean> {
    const leaseUntil = 'now() + make_interval(secs => $9::float8 / 1000)';
    return recordProgress(db, held, p, { leaseUntil, attempts: ['1', 'attempts'] }, leaseMs);
  },

  /**
   * Records how far the replay got and lets go of it at once (its holder stops): the next dispatcher to look
   * goes on from there. A holder that stopped on purpose did not fail, so its take does not count.
   */
  async release(
    db: Queryable,
    held: Pick<HeldReplay, 'id' | 'leaseToken'>,
    p: ReplayProgress,
  ): Promise<void> {
    await recordProgress(db, held, p, { leaseUntil: 'now()', attempts: ['0', 'attempts - 1'] });
  },

  /** Ends the held replay; false when it was no longer held. */
  async finish(
    db: Queryable,
    held: Pick<HeldReplay, 'id' | 'leaseToken'>,
    status: 'succeeded' | 'failed',
    error: string | null,
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE webhook_replays SET status = $3, error = $4, finished_at = now(), lease_until = NULL
       WHERE id = $1 AND lease_token = $2 AND status = 'running'`,
      [held.id, held.leaseToken, status, error],
    );
    return (rowCount ?? 0) > 0;
  },
};
