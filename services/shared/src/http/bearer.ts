import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time bearer check: hashing first makes the compare independent of the presented length. */
export function bearerMatches(header: string | undefined, expectedToken: string): boolean {
  const m = /^Bearer ([\x21-\x7e]+)$/.exec(header ?? '');
  const presented = m ? m[1]! : '';
  return timingSafeEqual(digest(presented), digest(expectedToken)) && m !== null;
}
