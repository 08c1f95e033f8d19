import type { EventFilters } from '@audit/shared/projection';

/** The filters a viewer token may be narrowed to: one user, one resource, one action prefix, one patient (docs/viewer.md). */
export const NARROWING_FIELDS = [
  'user_id',
  'resource_type',
  'resource_id',
  'action_prefix',
  'patient_id',
] as const;
export type NarrowingField = (typeof NARROWING_FIELDS)[number];
export type Narrowing = Partial<Record<NarrowingField, string>>;

export const isNarrowed = (narrowing: Narrowing): boolean => Object.keys(narrowing).length > 0;

/**
 * The filters of a read by a narrowed token: its narrowing always holds. A filter the read gives that would reach
 * past it is refused by name rather than quietly replaced, so that neither the page nor a caller of the API is left
 * believing it saw what it asked for; one within it (the same value, a longer action prefix, an action under the
 * prefix) narrows further.
 */
export function narrowFilters(
  given: EventFilters,
  narrowing: Narrowing,
): { ok: true; filters: EventFilters } | { ok: false; field: NarrowingField | 'action' } {
  const filters: EventFilters = { ...given };
  for (const field of NARROWING_FIELDS) {
    const fixed = narrowing[field];
    if (fixed === undefined) continue;
    const asked = given[field];
    const within = field === 'action_prefix' ? asked?.startsWith(fixed) : asked === fixed;
    if (asked !== undefined && !within) return { ok: false, field };
    if (asked === undefined) filters[field] = fixed;
  }
  if (narrowing.action_prefix !== undefined && given.action?.startsWith(narrowing.action_prefix) === false) {
    return { ok: false, field: 'action' };
  }
  return { ok: true, filters };
}

/** Whether one event is inside a narrowing: a lookup by id must not reach past it either. */
export function withinNarrowing(
  event: { user_id: string; resource_type: string; resource_id: string; action: string; patient_id: string },
  narrowing: Narrowing,
): boolean {
  return NARROWING_FIELDS.every((field) => {
    const fixed = narrowing[field];
    if (fixed === undefined) return true;
    return field === 'action_prefix' ? event.action.startsWith(fixed) : event[field] === fixed;
  });
}

/**
 * Whether a read's filters (a stored export job's) already hold the whole narrowing: then what they select is
 * inside it, and a narrowed token may see it.
 */
export function coveredBy(filters: EventFilters, narrowing: Narrowing): boolean {
  const narrowed = narrowFilters(filters, narrowing);
  return narrowed.ok && NARROWING_FIELDS.every((field) => narrowed.filters[field] === filters[field]);
}
