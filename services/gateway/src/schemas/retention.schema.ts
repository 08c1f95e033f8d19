import { z } from 'zod';
import {
  holdCreateSchema,
  holdReleaseSchema,
  MAX_POLICY_DAYS,
  policyChangeSchema,
} from '@audit/shared/retention';
import { holdIdSchema, MAX_HOLDS_LIMIT } from '../domain/legal-hold-request.js';
import { pageDescriptorSchema, timestampSchema } from './read-api.schema.js';

// The request bodies as shared with `ops`, named in the OpenAPI document.
export const policyChangeBodySchema = policyChangeSchema.meta({ id: 'RetentionPolicyChange' });
export const holdCreateBodySchema = holdCreateSchema.meta({ id: 'LegalHoldCreate' });
export const holdReleaseBodySchema = holdReleaseSchema.meta({ id: 'LegalHoldRelease' });

const days = z.int().min(1).max(MAX_POLICY_DAYS);
const actor = z.string().meta({ example: 'api_key:0a1b2c3d' });

/** docs/retention.md "The purge": one run, as `ops retention status` shows it. */
const purgeRunSchema = z
  .object({
    purge_id: z.uuid(),
    status: z.enum(['running', 'succeeded', 'failed']),
    purged_before: timestampSchema.meta({
      description: 'The horizon it purged under: events older than this.',
    }),
    holds: z.int().min(0).meta({ description: 'Legal holds in force when it ran.' }),
    purged: z.int().min(0).nullable().meta({ description: 'Events it removed; `null` until it succeeded.' }),
    kept: z
      .int()
      .min(0)
      .nullable()
      .meta({ description: 'Events under its horizon that holds kept; `null` until it succeeded.' }),
    error: z.string().nullable().meta({ description: 'Why it failed; `null` unless it did.' }),
    started_at: timestampSchema,
    finished_at: timestampSchema.nullable().meta({ description: '`null` while it runs.' }),
    started_by: actor,
    progress: z
      .object({
        phase: z.enum(['waiting', 'deleting', 'checking', 'expiring']).meta({
          description:
            '`waiting` for the projector to see the run, `deleting` table by table of every generation, `checking` what is left, `expiring` export files.',
        }),
        round: z
          .int()
          .min(1)
          .nullable()
          .meta({ description: 'The round of deletions; `null` once past them.' }),
        tables_done: z.int().min(0).nullable().meta({ description: 'Tables done in this round.' }),
        tables: z.int().min(0).nullable().meta({ description: 'Tables a round deletes from.' }),
      })
      .nullable()
      .meta({
        id: 'RetentionPurgeProgress',
        description:
          'Where the run has got (where it stopped, for a failed one); `null` before it began deleting.',
      }),
  })
  .meta({ id: 'RetentionPurgeRun' });

/**
 * docs/retention.md "The policy": the policy in force, the default until one is set, with where purges have
 * reached.
 */
export const retentionPolicySchema = z
  .object({
    min_days: days.meta({ description: 'Events are never purged before they are this many days old.' }),
    max_days: days
      .nullable()
      .meta({ description: 'Events are purged once older than this many days; `null`: kept for ever.' }),
    version: z.int().min(0).meta({ description: 'How many times the policy was set; `0`: never.' }),
    changed_at: timestampSchema.nullable().meta({ description: 'When it was set; `null` for the default.' }),
    changed_by: actor.nullable().meta({ description: 'Who set it; `null` for the default.' }),
    default: z.boolean().meta({ description: '`true` while the tenant never set a policy.' }),
    purged_before: timestampSchema.nullable().meta({
      description:
        "The tenant's horizon: its events older than this that no legal hold covered were purged, and are never stored again; `null` before its first purge.",
    }),
    last_purge: purgeRunSchema
      .nullable()
      .meta({ description: "The tenant's latest purge run; `null` before any." }),
  })
  .meta({ id: 'RetentionPolicy' });

const holdScopeSchema = z
  .object({
    user_id: z.string().optional(),
    resource_id: z.string().optional(),
    patient_id: z.string().optional(),
    since: timestampSchema.meta({ description: 'Inclusive lower bound of event time.' }).optional(),
    until: timestampSchema.meta({ description: 'Exclusive upper bound of event time.' }).optional(),
  })
  .meta({
    id: 'LegalHoldScope',
    description: 'The events held: those matching every field given; none: every event of the tenant.',
  });

/** docs/retention.md "Legal holds": a hold, in force or released. */
export const legalHoldSchema = z
  .object({
    hold_id: holdIdSchema,
    status: z.enum(['active', 'released']).meta({ description: '`active` while the hold is in force.' }),
    reason: z.string(),
    scope: holdScopeSchema,
    created_at: timestampSchema,
    created_by: actor,
    released_at: timestampSchema.nullable().meta({ description: '`null` while the hold is in force.' }),
    released_by: actor.nullable(),
    release_reason: z.string().nullable(),
  })
  .meta({ id: 'LegalHold', description: 'Clients must tolerate fields added later.' });

export const legalHoldListSchema = z
  .object({
    holds: z.array(legalHoldSchema).meta({ description: 'Newest first.' }),
    page: pageDescriptorSchema
      .extend({ limit: z.int().min(1).max(MAX_HOLDS_LIMIT).meta({ description: 'The page size applied.' }) })
      .meta({ id: 'LegalHoldPage' }),
  })
  .meta({ id: 'LegalHoldList' });
