import { z } from 'zod';
import { NO_CONTROL_PATTERN } from '../contract/audit-event/patient-id.js';
import { text } from '../contract/audit-event/text.js';
import { checkWindow, FILTERS } from '../projection/event-filters.js';

/** At most this many holds in force for one tenant: each one is a condition every purge and erasure checks. */
export const MAX_ACTIVE_HOLDS = 100;
const MAX_REASON = 500;

/**
 * What a hold covers: the tenant's events that match every field it sets, as the list's filters match them; a
 * hold that sets none covers every event of the tenant.
 */
export interface HoldScope {
  user_id?: string;
  resource_id?: string;
  patient_id?: string;
  /** Inclusive lower and exclusive upper bound, ms since the epoch. */
  since?: number;
  until?: number;
}

export interface LegalHold {
  hold_id: string;
  reason: string;
  scope: HoldScope;
  created_at: Date;
  created_by: string;
  released_at: Date | null;
  released_by: string | null;
  release_reason: string | null;
}

/**
 * Free text shown to people, stored as sent once the spaces around it are trimmed: no control character (it could
 * steer a terminal), said as a pattern the OpenAPI document carries.
 */
const reason = (description: string) =>
  text(MAX_REASON)
    .regex(NO_CONTROL_PATTERN, 'must not contain control characters')
    .trim()
    .min(1, 'must not be empty')
    .meta({ description });

/** An id as the list's filter takes it, which Postgres must store too: it holds no NUL. */
const storable = <T extends z.ZodType<string>>(filter: T) =>
  filter.refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');

/** A hold's scope as a request gives it: the list's own validation of each field. */
export const holdScopeSchema = z
  .strictObject({
    user_id: storable(FILTERS.user_id.body).optional(),
    resource_id: storable(FILTERS.resource_id.body).optional(),
    patient_id: FILTERS.patient_id.body.optional(),
    since: FILTERS.since.body.optional(),
    until: FILTERS.until.body.optional(),
  })
  .superRefine(checkWindow);

export const holdCreateSchema = z.strictObject({
  reason: reason('Why the events are held: a matter, a case number. Shown to whoever lists the holds.'),
  scope: holdScopeSchema
    .default({})
    .meta({ description: 'The events held, every field AND-combined; none: every event of the tenant.' }),
});
export type HoldCreate = z.output<typeof holdCreateSchema>;

export const holdReleaseSchema = z.strictObject({
  reason: reason('Why the hold ends.'),
});

/** Whether the hold is still in force. */
export const isActive = (hold: Pick<LegalHold, 'released_at'>) => hold.released_at === null;
