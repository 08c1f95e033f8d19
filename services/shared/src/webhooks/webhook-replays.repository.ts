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
  recordsRead: number;
  deliveriesQueued: number;
  /** The first record of the tenant's partition not handed on yet, and the end of the window there. */
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
  records_read: string;
  deliveries_queued: string;
  next_offset: string | null;
  end_offset: string | null;
  error: string | null;
  lease_token: string | null;
}

const COLUMNS = `id, endpoint_id, tenant_id, since_ms, until_ms, requested_by, created_at, status, started_at,
  finished_at, records_read, deliveries_queued, next_offset, end_offset, error, lease_token`;

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
    recordsRead: Number(r.records_read),
    deliveriesQueued: Number(r.deliveries_queued),
    nextOffset: big(r.next_offset),
    endOffset: big(r.end_offset),
    error: r.error,
  };
}

// Postgres' unique violation: the endpoint has a replay queued or running already.
const ONE_ACTIVE = '23505';

export const webhookReplaysRepository = {
  /** A new queued replay; null when the endpoint has one queued or running. */
  async insert(
    db: Queryable,
    r: Pick<WebhookReplay, 'id' | 'endpointId' | 'tenantId' | 'since' | 'until' | 'requestedBy'>,
  ): Promise<WebhookReplay | null> {
    try {
      const { rows } = await db.query<Row>(
        `INSERT INTO webhook_replays (id, endpoint_id, tenant_id, since_ms, until_ms, requested_by)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [r.id, r.endpointId, r.tenantId, r.since, r.until, r.requestedBy],
      );
      return replayOf(rows[0]!);
    } catch (err) {
      if ((err as { code?: unknown }).code === ONE_ACTIVE) return null;
      throw err;
    }
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
   * Takes the oldest replay that is queued, or running under a lease that ran out, and holds it for `leaseMs`:
   * null when there is none. A taken-over replay keeps its progress.
   */
  async claim(db: Queryable, leaseMs: number): Promise<HeldReplay | null> {
    const { rows } = await db.query<Row>(
      `UPDATE webhook_replays SET status = 'running', lease_token = $1,
         lease_until = now() + make_interval(secs => $2::float8 / 1000), started_at = coalesce(started_at, now())
       WHERE id = (SELECT id FROM webhook_replays
                   WHERE status = 'queued' OR (status = 'running' AND lease_until < now())
                   ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      [randomUUID(), leaseMs],
    );
    return rows[0] ? { ...replayOf(rows[0]), leaseToken: rows[0].lease_token! } : null;
  },

  /**
   * Records how far the replay got and extends its lease; false when it is no longer held (taken over after the
   * lease ran out, or deleted with its endpoint): its holder then stops.
   */
  async progress(
    db: Queryable,
    held: Pick<HeldReplay, 'id' | 'leaseToken'>,
    leaseMs: number,
    p: Pick<WebhookReplay, 'recordsRead' | 'deliveriesQueued' | 'nextOffset' | 'endOffset'>,
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE webhook_replays SET records_read = $3, deliveries_queued = $4, next_offset = $5, end_offset = $6,
         lease_until = now() + make_interval(secs => $7::float8 / 1000)
       WHERE id = $1 AND lease_token = $2 AND status = 'running'`,
      [
        held.id,
        held.leaseToken,
        p.recordsRead,
        p.deliveriesQueued,
        p.nextOffset?.toString() ?? null,
        p.endOffset?.toString() ?? null,
        leaseMs,
      ],
    );
    return (rowCount ?? 0) > 0;
  },

  /** Lets go of a running replay at once (its holder stops): the next dispatcher to look goes on with it. */
  async release(db: Queryable, held: Pick<HeldReplay, 'id' | 'leaseToken'>): Promise<void> {
    await db.query(
      `UPDATE webhook_replays SET lease_until = now() WHERE id = $1 AND lease_token = $2 AND status = 'running'`,
      [held.id, held.leaseToken],
    );
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
