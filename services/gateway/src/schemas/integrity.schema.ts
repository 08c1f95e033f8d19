import { z } from 'zod';
import { formatTimestamp } from '@audit/shared/contract';
import { type IntegrityKeyRecord, type StoredCheckpoint } from '@audit/shared/integrity';
import { pageDescriptorSchema, timestampSchema } from './read-api.schema.js';

// The `/` escaped: the portable pattern syntax (generated clients, Python) wants it so inside a class.
const BASE64_HASH = new RegExp('^[A-Za-z0-9+\\/]{43}=$');

const base64Hash = (description: string) =>
  z
    .string()
    .regex(BASE64_HASH)
    .meta({
      description: `${description} SHA-256, base64.`,
      example: 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=',
    });
const treeSize = (description: string) => z.int().min(1).meta({ description, example: 1234 });

/** docs/integrity.md "Checkpoints": every checkpoint the API returns is parsed by this before it leaves. */
export const checkpointSchema = z
  .object({
    tree_size: treeSize('Leaves of the tree it is of.'),
    root_hash: base64Hash("The tree's root hash (the checkpoint's third line)."),
    created_at: timestampSchema.meta({ description: 'When it was signed (its `time` line).' }),
    key_name: z
      .string()
      .meta({ description: 'The key that signed it.', example: 'audit-trail.local-20261126-1a2b' }),
    note: z.string().meta({
      description:
        'The checkpoint as a C2SP signed note: what a verifier checks, and keeps. The other fields are read from it.',
    }),
  })
  .meta({ id: 'Checkpoint' });

export const listedCheckpointSchema = checkpointSchema
  .extend({
    previous: z
      .object({
        tree_size: treeSize("The tenant's previous checkpoint's size."),
        hashes: z.array(base64Hash('')).meta({ description: 'RFC 9162 PROOF from it to this one.' }),
      })
      .nullable()
      .meta({
        description:
          "The consistency proof from the tenant's previous checkpoint (the next smaller) to this one; null for its first. A verifier checks every link.",
      }),
  })
  .meta({ id: 'ListedCheckpoint' });

export const checkpointListSchema = z
  .object({ checkpoints: z.array(listedCheckpointSchema), page: pageDescriptorSchema })
  .meta({ id: 'CheckpointList' });

export const integrityKeySchema = z
  .object({
    name: z.string().meta({ example: 'audit-trail.local-20261126-1a2b' }),
    verifier_key: z.string().meta({
      description:
        '`<name>+<key hash>+<base64 of 0x01 and the Ed25519 public key>`: what a verifier is given.',
      example: 'audit-trail.local-20261126-1a2b+28b9cb73+AWTP8Ao48rsx3LMjYUskgahkHqMpbAuVAD02nSYlh5GP',
    }),
    status: z
      .enum(['active', 'retired'])
      .meta({ description: '`active` signs new checkpoints; one key at a time.' }),
    created_at: timestampSchema,
    retired_at: timestampSchema.nullable(),
  })
  .meta({ id: 'IntegrityKey' });

export const integrityKeyListSchema = z
  .object({ keys: z.array(integrityKeySchema) })
  .meta({ id: 'IntegrityKeyList' });

export const inclusionProofSchema = z
  .object({
    event_id: z.string().meta({ example: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90' }),
    leaf_index: z.int().min(0).meta({ description: "The event's place in its tenant's tree, from 0." }),
    leaf_hash: base64Hash('The leaf hash of the event as the tree holds it.'),
    tree_size: treeSize('Leaves of the checkpoint it is proven in.'),
    hashes: z.array(base64Hash('')).meta({ description: 'RFC 9162 PATH, leaf to root.' }),
    checkpoint: checkpointSchema,
  })
  .meta({ id: 'InclusionProof' });

export const consistencyProofSchema = z
  .object({
    from: treeSize("The earlier checkpoint's size."),
    to: treeSize("The later checkpoint's size."),
    hashes: z.array(base64Hash('')).meta({ description: 'RFC 9162 PROOF; empty when the two are one.' }),
  })
  .meta({ id: 'ConsistencyProof' });

export const windowProofSchema = z
  .object({
    tree_size: treeSize('Leaves of the checkpoint it proves the leaves in.'),
    since: timestampSchema.nullable().meta({ description: 'The window, as asked: inclusive.' }),
    until: timestampSchema.nullable().meta({ description: 'The window, as asked: exclusive.' }),
    leaves: z
      .array(
        z.object({
          event_id: z.string().meta({ example: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90' }),
          leaf_index: z.int().min(0),
          timestamp: timestampSchema,
          leaf_hash: base64Hash('The leaf hash of the event as the tree holds it.'),
          purged: z.literal(true).optional().meta({
            description:
              'Present when a purge of the tenant\'s retention passed the event\'s time and no legal hold over every event of that time stopped it: an export lacks its row by policy (a hold narrowed to a user, resource or patient may have kept it). The leaf stays, and proves as any other (docs/integrity.md "Purged or missing").',
          }),
        }),
      )
      .meta({ description: "This page's leaves of the window, in time order, then leaf order." }),
    hashes: z.array(base64Hash('')).meta({
      description:
        "The hashes of every other leaf's subtrees, in the tree's order: with the page's leaves they make the checkpoint's root (docs/integrity.md \"Window proofs\").",
    }),
    purged_before: timestampSchema.nullable().meta({
      description:
        "The tenant's purge horizon (`GET /audit/retention`): every leaf marked `purged` is older; `null` before its first purge.",
    }),
    later: z.array(z.string()).meta({
      description:
        'On the last page: events of the window appended after this checkpoint (a later one covers them), up to 10,000.',
    }),
    checkpoint: checkpointSchema,
    page: z
      .object({
        limit: z.int().min(1).max(10_000),
        returned: z.int().min(0),
        next_cursor: z.string().nullable(),
        has_more: z.boolean(),
      })
      .meta({ id: 'WindowProofPage' }),
  })
  .meta({ id: 'WindowProof' });

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

export const checkpointView = (c: StoredCheckpoint) => ({
  tree_size: c.tree_size,
  root_hash: b64(c.root_hash),
  created_at: formatTimestamp(c.made_at),
  key_name: c.key_name,
  note: c.note,
});

export const integrityKeyView = (k: IntegrityKeyRecord) => ({
  name: k.name,
  verifier_key: k.verifier_key,
  status: k.status,
  created_at: formatTimestamp(k.created_at.getTime()),
  retired_at: k.retired_at ? formatTimestamp(k.retired_at.getTime()) : null,
});

export const hashesView = (hashes: readonly Uint8Array[]) => hashes.map(b64);
