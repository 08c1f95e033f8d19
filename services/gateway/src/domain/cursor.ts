import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { filterKey, type EventFilters } from './event-filters.js';

/** Where the previous page ended: the last returned event in the list's order (timestamp desc, id desc). */
export interface PagePosition {
  ts: number;
  id: string;
}

interface CursorPayload {
  v: 2;
  /** Tenant and filters the cursor was issued for, as a digest: the cursor says nothing readable about them. */
  q: string;
  ts: number;
  id: string;
}

function scopeDigest(tenantId: string, filters: EventFilters): string {
  return createHash('sha256').update(filterKey(tenantId, filters)).digest('base64url').slice(0, 22);
}

const sign = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest();

/** Opaque and integrity-protected (HMAC); valid only for the tenant and filters it was issued for. */
export function encodeCursor(
  position: PagePosition,
  tenantId: string,
  filters: EventFilters,
  secret: string,
): string {
  const payload: CursorPayload = {
    v: 2,
    q: scopeDigest(tenantId, filters),
    ts: position.ts,
    id: position.id,
  };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(body, secret).toString('base64url')}`;
}

/** The position, or null for anything malformed, tampered with, or issued for another tenant or other filters. */
export function decodeCursor(
  cursor: string,
  tenantId: string,
  filters: EventFilters,
  secret: string,
): PagePosition | null {
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
  if (payload.v !== 2 || payload.q !== scopeDigest(tenantId, filters)) return null;
  if (!Number.isSafeInteger(payload.ts) || typeof payload.id !== 'string') return null;
  return { ts: payload.ts, id: payload.id };
}
