import { z } from 'zod';
import { hasLoneSurrogate } from '../../platform/unicode.js';

/** A string that survives UTF-8 encoding unchanged: what we store must be exactly what was sent. */
export function text(max: number) {
  return z
    .string()
    .max(max, `at most ${max} characters`)
    .refine((s) => !hasLoneSurrogate(s), 'contains an unpaired UTF-16 surrogate');
}

/**
 * Text without a space or control character: what ECMA-262 calls `[\s\p{Cc}]`, listed, because the OpenAPI
 * document carries this pattern to clients and fuzzers whose regex dialects read neither `\p{..}` nor `\s` alike
 * (without the `u` flag `\p{Cc}` means the letters p, C and c; Python's `\s` is another set). U+2028 and U+2029
 * alone are named by `\s`, which holds them in ECMA-262, Python and .NET: written `\u2028` and `\u2029`, hey-api's
 * zod plugin puts them raw into a regular expression literal that then does not compile (its issue 4431).
 */
export const NO_SPACE_OR_CONTROL_PATTERN =
  // eslint-disable-next-line no-control-regex -- the control characters are what it refuses
  /^[^\s\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff]*$/;
