import type { z } from 'zod';

export interface FieldError {
  field: string;
  message: string;
}

/** Flattens zod issues into one entry per offending field; unknown keys are named one by one. */
export function zodFieldErrors(error: z.ZodError, rootName = '(body)'): FieldError[] {
  return error.issues.flatMap((issue) => {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: base ? `${base}.${key}` : key, message: 'unknown field' }));
    }
    return [{ field: base || rootName, message: issue.message }];
  });
}
