import { z } from 'zod';
import { ACCOUNTING_EXCLUSIONS, STORED_UUID_PATTERN } from '@audit/shared/contract';
import { ACCOUNTING_STATUSES, REPORT_MODES, SORT_COLUMNS } from '@audit/shared/reports';
import { pageDescriptorSchema, timestampSchema } from './read-api.schema.js';

const exclusionSchema = z.enum([...ACCOUNTING_EXCLUSIONS, 'before_compliance_date']);

export const patientAccessRowSchema = z
  .object({
    event_id: z.string().regex(STORED_UUID_PATTERN).meta({ description: 'Ask getInclusionProof with it.' }),
    timestamp: timestampSchema,
    user_id: z.string(),
    user_role: z.string(),
    action: z.string(),
    resource_type: z.string(),
    resource_id: z.string(),
    fields_accessed: z.array(z.string()),
    phi_involved: z.boolean(),
    purpose_of_use: z.string(),
    purpose_display: z
      .string()
      .meta({ description: 'The purpose code\'s name in HL7\'s code system, or `""`.' }),
    justification: z.string(),
    disclosure: z.boolean(),
    recipient: z.string(),
    success: z.boolean(),
    source_ip: z.string(),
    accounting_status: z.enum(ACCOUNTING_STATUSES).meta({
      description:
        '`use`: within the covered entity, never accounted for; `attempted`: a disclosure that failed, which disclosed nothing; `excluded`: a disclosure HIPAA 164.528(a)(1) leaves out (`exclusion` says which); `reportable`: a disclosure owed to the patient.',
    }),
    exclusion: exclusionSchema.nullable(),
    checkpoint: z
      .object({
        tree_size: z.int().min(1),
        signed_at: timestampSchema,
      })
      .nullable()
      .meta({
        description:
          'The first signed checkpoint whose tree holds the event: its inclusion proof is asked at this `tree_size`. `null` while none does yet.',
      }),
  })
  .meta({ id: 'PatientAccessRow' });

export const patientAccessReportSchema = z
  .object({
    report: z.object({
      tenant_id: z.string(),
      tenant_name: z.string().meta({
        description:
          'The name an operator gave the tenant (`ops tenants set-name`), else its id: what the PDF is headed with.',
      }),
      patient_id: z.string(),
      since: timestampSchema.meta({ description: 'Inclusive; the default is six years before `until`.' }),
      until: timestampSchema.meta({ description: 'Exclusive; the default is the time of the first page.' }),
      mode: z.enum(REPORT_MODES),
      sort: z.enum(SORT_COLUMNS),
      order: z.enum(['asc', 'desc']),
      generated_at: timestampSchema,
    }),
    counts: z
      .object({
        use: z.int().min(0),
        attempted: z.int().min(0),
        excluded: z.int().min(0),
        reportable: z.int().min(0),
      })
      .meta({ description: "The patient's events in the window by accounting status, whatever the mode." }),
    rows: z.array(patientAccessRowSchema),
    page: pageDescriptorSchema,
  })
  .meta({ id: 'PatientAccessReport' });
