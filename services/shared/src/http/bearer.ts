import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time bearer check: hashing first makes the compare independent of the presented length. */
export function bearerMatches(header: string | undefined, expectedToken: string): boolean {
  // The scheme is case-insensitive (RFC 9110); the token is compared exactly.
  const m = /^Bearer ([\x21-\x7e]+)$/i.exec(header ?? '');
  const presented = m ? m[1]! : '';
  return timingSafeEqual(digest(presented), digest(expectedToken)) && m !== null;
}
