import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';

/** The header every delivery carries (Node lowercases incoming header names). */
export const SIGNATURE_HEADER = 'x-service-signature';
/** Largest distance between a signature's `t` and now that is accepted, in seconds. */
export const DEFAULT_TOLERANCE_S = 300;

const T_VALUE = /^[0-9]{1,12}$/;
const V1_VALUE = /^[0-9a-fA-F]{64}$/;

/**
 * Node's `KeyObject`, named by its shape: the package's types stand on their own, without Node's (a receiver's
 * project may have none).
 */
export interface SecretKeyObject {
  readonly type: string;
}

/**
 * An endpoint secret: its text, or that text's UTF-8 bytes as a `KeyObject` (`createSecretKey`), which a sender
 * making many signatures keeps: Node imports a raw key anew for every HMAC, which costs several times the HMAC.
 */
export type WebhookSecret = string | SecretKeyObject;

// The signed bytes are "t=" + the header's t text + "." + the raw body; the key is the secret's UTF-8 bytes.
const mac = (secret: WebhookSecret, t: string, body: Uint8Array | string) =>
  createHmac('sha256', typeof secret === 'string' ? Buffer.from(secret, 'utf8') : (secret as KeyObject))
    .update(`t=${t}.`)
    .update(body)
    .digest();

/**
 * The header value for a body sent at `unixSeconds`: `t=<unix seconds>,v1=<hex HMAC-SHA-256>`, with one `v1` per
 * secret given (several while an endpoint's secret changes). The service signs its deliveries with it; receivers
 * can use it to make test deliveries.
 */
export function signWebhook(
  body: Uint8Array | string,
  secret: WebhookSecret | readonly WebhookSecret[],
  unixSeconds: number,
): string {
  const t = String(unixSeconds);
  const secrets: readonly WebhookSecret[] = Array.isArray(secret) ? secret : [secret as WebhookSecret];
  return [`t=${t}`, ...secrets.map((s) => `v1=${mac(s, t, body).toString('hex')}`)].join(',');
}

export interface VerifyOptions {
  /** Largest accepted distance between `t` and now, in seconds (default 300). */
  toleranceS?: number;
  /** Now, in epoch milliseconds (default `Date.now`). */
  now?: () => number;
}

/**
 * The well-formed `t` and `v1` values of a header. Parts are split at their first `=`; parts without one,
 * unknown names and malformed values are skipped, so that a later version of the header still parses here.
 */
function parseSignatureHeader(header: string): { t: string[]; v1: Buffer[] } {
  const t: string[] = [];
  const v1: Buffer[] = [];
  for (const part of header.split(',')) {
    const field = part.replace(/^[ \t]+|[ \t]+$/g, '');
    const eq = field.indexOf('=');
    if (eq < 0) continue;
    const name = field.slice(0, eq);
    const value = field.slice(eq + 1);
    if (name === 't' && T_VALUE.test(value)) t.push(value);
    else if (name === 'v1' && V1_VALUE.test(value)) v1.push(Buffer.from(value, 'hex'));
  }
  return { t, v1 };
}

/**
 * True when `header` signs `rawBody` with `secret`: exactly one well-formed `t`, within the tolerance of now,
 * and at least one `v1` equal (in constant time) to the HMAC over the body. Pass the body exactly as received:
 * a parsed and re-serialized body does not verify. A missing, empty or malformed header, or an empty secret,
 * gives false; only a body that is not bytes or text throws, since that is a mistake in the receiver's code.
 */
export function verifyWebhookSignature(
  rawBody: Uint8Array | string,
  header: string | readonly string[] | undefined,
  secret: string,
  options: VerifyOptions = {},
): boolean {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('rawBody must be the request body as received (a Buffer, Uint8Array or string)');
  }
  const text = typeof header === 'string' ? header : header?.join(',');
  if (!text || typeof secret !== 'string' || secret === '') return false;
  const { t, v1 } = parseSignatureHeader(text);
  const [signedAt] = t;
  if (signedAt === undefined || t.length > 1 || v1.length === 0) return false;
  const nowS = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(nowS - Number(signedAt)) > (options.toleranceS ?? DEFAULT_TOLERANCE_S)) return false;
  const expected = mac(secret, signedAt, rawBody);
  return v1.some((candidate) => timingSafeEqual(candidate, expected));
}
