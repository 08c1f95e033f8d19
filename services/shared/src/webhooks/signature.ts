import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';
const DEFAULT_TOLERANCE_S = 300;

const hmac = (secret: string, t: number, body: Buffer | string) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(`t=${t}.`).update(body).digest('hex');

/** `t=<unix seconds>,v1=<hex HMAC-SHA-256 of "t=<t>." + body>`, keyed with the secret's 64 characters. */
export function signWebhook(body: Buffer | string, secret: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmac(secret, unixSeconds, body)}`;
}

export interface VerifyOptions {
  /** Largest accepted distance between `t` and now, in seconds (spec: 300). */
  toleranceS?: number;
  /** Now, in epoch milliseconds. */
  now?: () => number;
}

/**
 * The receiver's check (spec "Receiver verification procedure"): parse `t` and `v1`, refuse a `t` further than
 * the tolerance from now, compare the HMAC over the raw body bytes in constant time. Pass the body exactly as
 * received: a re-serialized body does not verify.
 */
export function verifyWebhookSignature(
  rawBody: Buffer | string,
  header: string | undefined,
  secret: string,
  options: VerifyOptions = {},
): boolean {
  if (!header) return false;
  let t: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const [name, value, ...rest] = part.trim().split('=');
    if (rest.length > 0 || value === undefined) return false;
    if (name === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (t === undefined || candidates.length === 0) return false;
  const nowS = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(nowS - t) > (options.toleranceS ?? DEFAULT_TOLERANCE_S)) return false;
  const expected = Buffer.from(hmac(secret, t, rawBody), 'hex');
  return candidates.some((c) => timingSafeEqual(Buffer.from(c, 'hex'), expected));
}
