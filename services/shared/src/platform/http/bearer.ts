import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The token of an `Authorization: Bearer <token>` header; the scheme is case-insensitive (RFC 9110). */
export function bearerToken(header: string | undefined): string | null {
  return /^Bearer ([\x21-\x7e]+)$/i.exec(header ?? '')?.[1] ?? null;
}

/** Constant-time bearer check: hashing first makes the compare independent of the presented length. */
export function bearerMatches(header: string | undefined, expectedToken: string): boolean {
  const presented = bearerToken(header);
  return timingSafeEqual(digest(presented ?? ''), digest(expectedToken)) && presented !== null;
}
