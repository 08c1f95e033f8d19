// Failure texts are stored with the attempt and may be shown to the tenant: they are built from status codes
// and error codes only, never from messages, which could carry the URL (and a token in its query).

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
  if (code === 'ERR_REFUSED_TARGET' && error instanceof Error) return error.message;
  if (typeof code !== 'string') return 'request failed';
  if (TIMEOUT_CODES.has(code)) return `timeout after ${timeoutMs} ms`;
  if (Object.hasOwn(CONNECTION_CODES, code)) return CONNECTION_CODES[code]!;
  if (TLS_CODE.test(code)) return `tls error: ${code}`;
  // A code is a short constant; anything else is not echoed.
  return /^[A-Z][A-Z0-9_]{1,63}$/.test(code) ? `request failed: ${code}` : 'request failed';
}
