import { z } from 'zod';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string that survives UTF-8 encoding unchanged: what we store must be exactly what was sent. */
export function text(max: number) {
  return z
    .string()
    .max(max, `at most ${max} characters`)
    .refine((s) => !LONE_SURROGATE.test(s), 'contains an unpaired UTF-16 surrogate');
}
