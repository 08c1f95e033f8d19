import { filterKey, type EventFilters } from '@audit/shared/projection';
import { type AttemptFilters } from '@audit/shared/webhooks';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Where the previous page ended: its last item in the list's order (time descending, then id descending). */
export interface PagePosition {
  ts: number;
  id: string;
}

interface CursorPayload {
  v: 2;
  /** What the cursor was issued for (tenant, filters), as a digest. */
  q: string;
  ts: number;
  id: string;
}

/** What a cursor is valid for, as a digest: the cursor says nothing readable about it. */
const digest = (binding: string) => createHash('sha256').update(binding).digest('base64url').slice(0, 22);

const sign = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest();

/** Opaque and integrity-protected (HMAC); valid only for the binding (tenant, and what is paged) it was issued for. */
function seal(position: PagePosition, binding: string, secret: string): string {
  const payload: CursorPayload = { v: 2, q: digest(binding), ts: position.ts, id: position.id };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(body, secret).toString('base64url')}`;
}

/** The position, or null for anything malformed, tampered with, or issued for another binding. */
function open(cursor: string, binding: string, secret: string): PagePosition | null {
  const [body, mac, ...rest] = cursor.split('.');
  if (!body || !mac || rest.length > 0) return null;
  // Compared as text: base64url has slack bits, so only the exact encoding we issued is accepted.
  const expected = Buffer.from(sign(body, secret).toString('base64url'));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const text = Buffer.from(body, 'base64url').toString('utf8');
  if (Buffer.from(text).toString('base64url') !== body) return null;
  let payload: CursorPayload;
  try {
    payload = JSON.parse(text) as CursorPayload;
  } catch {
    return null;
  }
  if (payload.v !== 2 || payload.q !== digest(binding)) return null;
  if (!Number.isSafeInteger(payload.ts) || typeof payload.id !== 'string') return null;
  return { ts: payload.ts, id: payload.id };
}

/** The event list's cursor: valid only for the tenant and filters it was issued for. */
export const encodeCursor = (
  position: PagePosition,
  tenantId: string,
  filters: EventFilters,
  secret: string,
) => seal(position, filterKey(tenantId, filters), secret);

export const decodeCursor = (cursor: string, tenantId: string, filters: EventFilters, secret: string) =>
  open(cursor, filterKey(tenantId, filters), secret);

/**
 * A patient access report's cursor (docs/reports.md "Paging"): the window's end as the first page settled it, and
 * the last row's event id. Valid only for the report it was issued for (`binding`, patient-access-query.ts).
 */
export const encodeReportCursor = (until: number, lastEventId: string, binding: string, secret: string) =>
  seal({ ts: until, id: lastEventId }, binding, secret);

export const decodeReportCursor = (cursor: string, binding: string, secret: string) => {
  const position = open(cursor, binding, secret);
  return position && { until: position.ts, after: position.id };
};

// A filter key is a JSON array, so this text never equals one: a cursor of the event list is never one of the
// export jobs' list, whatever its tenant and filters.
const jobsBinding = (tenantId: string) => `export-jobs ${JSON.stringify(tenantId)}`;

/** The export jobs' list cursor (position: acceptance time and job id), valid only for its tenant. */
export const encodeJobsCursor = (position: PagePosition, tenantId: string, secret: string) =>
  seal(position, jobsBinding(tenantId), secret);

export const decodeJobsCursor = (cursor: string, tenantId: string, secret: string) =>
  open(cursor, jobsBinding(tenantId), secret);

// Neither a filter key nor the export jobs' binding: a cursor of another list is never one of an endpoint's
// delivery attempts. The filters are bound in a fixed order, absent ones as null.
const attemptsBinding = (tenantId: string, endpointId: string, f: AttemptFilters) =>
  `webhook-attempts ${JSON.stringify([tenantId, endpointId, f.eventId ?? null, f.succeeded ?? null, f.since ?? null, f.until ?? null])}`;

/**
 * The delivery attempts' cursor (position: the attempt's time in microseconds and its row id), valid only for the
 * tenant, the endpoint and the filters it was issued for.
 */
export const encodeAttemptsCursor = (
  position: PagePosition,
  tenantId: string,
  endpointId: string,
  filters: AttemptFilters,
  secret: string,
) => seal(position, attemptsBinding(tenantId, endpointId, filters), secret);

export const decodeAttemptsCursor = (
  cursor: string,
  tenantId: string,
  endpointId: string,
  filters: AttemptFilters,
  secret: string,
) => open(cursor, attemptsBinding(tenantId, endpointId, filters), secret);

// Bound to the list it pages: a cursor of another list is never one of the checkpoints'.
const checkpointsBinding = (tenantId: string) => `integrity-checkpoints ${JSON.stringify(tenantId)}`;

/** The checkpoints' list cursor (position: the last checkpoint's tree size), valid only for its tenant. */
export const encodeCheckpointsCursor = (treeSize: number, tenantId: string, secret: string) =>
  seal({ ts: treeSize, id: '' }, checkpointsBinding(tenantId), secret);

export const decodeCheckpointsCursor = (cursor: string, tenantId: string, secret: string) =>
  open(cursor, checkpointsBinding(tenantId), secret)?.ts ?? null;

// Bound to the tenant and the window it pages: a cursor of another window or list is never one of it.
const windowBinding = (tenantId: string, since: number | null, until: number | null) =>
  `integrity-window ${JSON.stringify([tenantId, since, until])}`;

/** Where a window proof's page ended: its last leaf (event time, index), and the checkpoint's size it is of. */
export interface WindowPosition {
  ts: number;
  leaf_index: number;
  size: number;
}

/** A window proof's cursor, valid only for its tenant and window; it carries the checkpoint it pages. */
export const encodeWindowCursor = (
  at: WindowPosition,
  binding: { tenant: string; since: number | null; until: number | null },
  secret: string,
) =>
  seal(
    { ts: at.ts, id: `${at.leaf_index}:${at.size}` },
    windowBinding(binding.tenant, binding.since, binding.until),
    secret,
  );

export function decodeWindowCursor(
  cursor: string,
  binding: { tenant: string; since: number | null; until: number | null },
  secret: string,
): WindowPosition | null {
  const at = open(cursor, windowBinding(binding.tenant, binding.since, binding.until), secret);
  const id = at && /^(\d{1,16}):([1-9]\d{0,15})$/.exec(at.id);
  return at && id ? { ts: at.ts, leaf_index: Number(id[1]), size: Number(id[2]) } : null;
}

// Bound to the tenant and the status listed: a cursor of another list, or of this one with another status, is never
// one of it.
const holdsBinding = (tenantId: string, status: string) =>
  `legal-holds ${JSON.stringify([tenantId, status])}`;

/** The legal holds' list cursor (position: the hold's creation time and id), valid only for its tenant and status. */
export const encodeHoldsCursor = (position: PagePosition, tenantId: string, status: string, secret: string) =>
  seal(position, holdsBinding(tenantId, status), secret);

export const decodeHoldsCursor = (cursor: string, tenantId: string, status: string, secret: string) =>
  open(cursor, holdsBinding(tenantId, status), secret);
