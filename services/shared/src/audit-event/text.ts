import { z } from 'zod';
import { hasLoneSurrogate } from '../unicode.js';

/** A string that survives UTF-8 encoding unchanged: what we store must be exactly what was sent. */
export function text(max: number) {
  return z
    .string()
    .max(max, `at most ${max} characters`)
    .refine((s) => !hasLoneSurrogate(s), 'contains an unpaired UTF-16 surrogate');
}

/**
 * Text without a space or control character: what ECMA-262 calls `[\s\p{Cc}]`. The OpenAPI document carries this
 * pattern to clients and fuzzers, so it is written in what their regex dialects read alike: no `\p{..}` (without
 * the `u` flag it means the letters p, C and c), ECMAScript's `\s` with `\ufeff`, which Python's `\s` lacks (the
 * two then refuse the same code points, checked one by one), and no `\u2028` or `\u2029`, which hey-api's zod
 * plugin writes as raw line separators into a regular expression literal that then does not compile (its issue
 * 4431).
 */
export const NO_SPACE_OR_CONTROL_PATTERN =
  // eslint-disable-next-line no-control-regex -- the control characters are what it refuses
  /^[^\s\x00-\x1f\x7f-\x9f\ufeff]*$/;
