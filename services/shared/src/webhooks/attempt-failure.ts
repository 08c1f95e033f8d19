// Failure texts are stored with the attempt and may be shown to the tenant: they are built from status codes
// and error codes only, never from messages, which could carry the URL (and a token in its query).

/**
 * A target the guard refused, whatever its address: the owner reads this text (attempts, test sends), and which
 * address a name resolved to would map the internal network for whoever points a name of theirs at it (as a
 * creation's refusal says nothing of it either).
 */
export const REFUSED_TARGET_FAILURE = 'refused target: the host does not resolve to public addresses only';

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed by the receiver',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (temporary)',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
};

// Node's TLS codes (ERR_TLS_*, ERR_SSL_*) and OpenSSL's verification codes (CERT_HAS_EXPIRED,
// UNABLE_TO_VERIFY_LEAF_SIGNATURE, ...).
const TLS_CODE = /TLS|SSL|CERT|CRL|^UNABLE_TO_/;

/** Null for a success (2xx); redirects are failures, never followed (docs/contract.md "Delivery"). */
export function statusFailure(status: number): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `status ${status} (redirect, not followed)`;
  return `status ${status}`;
}

export function errorFailure(error: unknown, timeoutMs: number): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_REFUSED_TARGET') return REFUSED_TARGET_FAILURE;
  if (typeof code !== 'string') return 'request failed';
  if (TIMEOUT_CODES.has(code)) return `timeout after ${timeoutMs} ms`;
  if (Object.hasOwn(CONNECTION_CODES, code)) return CONNECTION_CODES[code]!;
  if (TLS_CODE.test(code)) return `tls error: ${code}`;
  // A code is a short constant; anything else is not echoed.
  return /^[A-Z][A-Z0-9_]{1,63}$/.test(code) ? `request failed: ${code}` : 'request failed';
}

// RFC 9110 "Retry-After": delay-seconds (digits), or an HTTP-date (IMF-fixdate, e.g. "Wed, 21 Oct 2026 07:28:00
// GMT"; Date.parse also reads the two obsolete forms).
const DELAY_SECONDS = /^\d{1,10}$/;

/**
 * A Retry-After header as a wait in ms from `now` (0 for a date already past), or null when it is absent or
 * neither form: a receiver's typo never holds a retry back.
 */
export function retryAfter(header: string | string[] | undefined, now: number): number | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return null;
  if (DELAY_SECONDS.test(value)) return Number(value) * 1000;
  if (!/^[A-Za-z]{3,9},? /.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
