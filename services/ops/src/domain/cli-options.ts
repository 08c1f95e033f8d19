import type { z } from 'zod';

export type Parsed<T> = { ok: true; request: T } | { ok: false; errors: string[] };

/**
 * Zod's own wording for the problems shared schemas leave to it, said as an option's problem ("--min-days: must be
 * at least 1"); a message a schema gives is kept.
 */
function optionError(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'too_small') {
    if (issue.origin !== 'string') return `must be at least ${issue.minimum}`;
    return issue.minimum === 1 ? 'must not be empty' : `must be at least ${issue.minimum} characters`;
  }
  if (issue.code === 'too_big') {
    return `must be at most ${issue.maximum}${issue.origin === 'string' ? ' characters' : ''}`;
  }
  return undefined;
}

/**
 * A command's options checked by its schema; every problem named by its option. `names` gives the option of a
 * path that is not spelled as one: a shared schema's field (`{ 'policy.min_days': 'min-days' }`).
 */
export function parseOptions<S extends z.ZodType>(
  schema: S,
  values: Record<string, unknown>,
  names: Record<string, string> = {},
): Parsed<z.output<S>> {
  const result = schema.safeParse(values, { error: optionError });
  if (result.success) return { ok: true, request: result.data };
  return {
    ok: false,
    errors: result.error.issues.map((i) => {
      const path = i.path.join('.');
      return `--${names[path] ?? path}: ${i.message}`;
    }),
  };
}
