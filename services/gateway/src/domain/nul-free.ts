import type { FieldError } from '@audit/shared/platform';

/**
 * The text fields among `values` that hold a NUL character, which Postgres cannot store (in text or in JSON): the
 * filters an export job or a viewer token keeps there are refused with them (422) rather than failing the write.
 */
export function nulFields(values: Record<string, unknown>, prefix = ''): FieldError[] {
  return Object.entries(values)
    .filter(([, value]) => typeof value === 'string' && value.includes('\u0000'))
    .map(([field]) => ({ field: `${prefix}${field}`, message: 'must not contain NUL characters' }));
}
