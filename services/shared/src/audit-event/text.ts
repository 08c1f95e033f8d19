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
 * Text without a space or control character: what ECMA-262 calls `[\s\p{Cc}]`, listed one by one, because the
 * OpenAPI document carries this pattern to clients and fuzzers whose regex dialects read neither `\p{..}` nor `\s`
 * alike (Python's `\s` is another set; without the `u` flag, `\p{Cc}` means the letters p, C and c).
 */
export const NO_SPACE_OR_CONTROL_PATTERN =
  // eslint-disable-next-line no-control-regex -- the control characters are what it refuses
  /^[^\u0000-\u0020\u007F-\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]*$/;
