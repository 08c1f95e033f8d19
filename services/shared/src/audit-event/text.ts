import { z } from 'zod';
import { hasLoneSurrogate } from '../unicode.js';

/** A string that survives UTF-8 encoding unchanged: what we store must be exactly what was sent. */
export function text(max: number) {
  return z
    .string()
    .max(max, `at most ${max} characters`)
    .refine((s) => !hasLoneSurrogate(s), 'contains an unpaired UTF-16 surrogate');
}
