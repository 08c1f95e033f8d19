import type { z } from 'zod';

export type Parsed<T> = { ok: true; request: T } | { ok: false; errors: string[] };

/** A command's options checked by its schema; every problem named by its option. */
export function parseOptions<S extends z.ZodType>(
  schema: S,
  values: Record<string, unknown>,
): Parsed<z.output<S>> {
  const result = schema.safeParse(values);
  if (result.success) return { ok: true, request: result.data };
  return { ok: false, errors: result.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`) };
}
