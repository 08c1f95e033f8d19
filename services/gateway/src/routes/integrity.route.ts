import type { FastifyInstance } from 'fastify';
import { UUID_PATTERN } from '@audit/shared/contract';
import { type IntegrityStore } from '@audit/shared/integrity';
import { NotFoundError, ValidationError } from '@audit/shared/platform';
import { decodeCheckpointsCursor, encodeCheckpointsCursor } from '../domain/cursor.js';
import {
  checkpointsQuerySchema,
  consistencyQuerySchema,
  inclusionQuerySchema,
  parseQuery,
} from '../domain/integrity-query.js';
import { refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import {
  checkpointListSchema,
  checkpointView,
  consistencyProofSchema,
  hashesView,
  inclusionProofSchema,
  integrityKeyListSchema,
  integrityKeyView,
} from '../schemas/integrity.schema.js';
import { json } from '../schemas/openapi.responses.js';
import type { EventsReader } from '../adapters/events.reader.js';
import { isNarrowed, withinNarrowing } from '../domain/narrowing.js';
import { apiRoute, type ApiRoute } from './api-route.js';
import type { PurgeReader } from './retention.route.js';

export const listCheckpointsRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/integrity/checkpoints',
  scope: 'audit:read',
  statuses: [403, 422],
  operationId: 'listCheckpoints',
  tags: ['Integrity'],
  summary: "The tenant's signed checkpoints, largest tree first.",
  description:
    'Each says the tenant\'s tree had this size and root, signed (docs/integrity.md "Checkpoints"); verify `note` with the keys of `/audit/integrity/keys`. Page with `cursor` until `has_more` is false.',
  requestParams: { query: checkpointsQuerySchema },
  ok: { description: 'One page.', ...json(checkpointListSchema) },
};

export const listIntegrityKeysRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/integrity/keys',
  scope: 'audit:read',
  narrowable: true,
  statuses: [403, 422],
  operationId: 'listIntegrityKeys',
  tags: ['Integrity'],
  summary: 'The public halves of every key that signs checkpoints, retired ones included.',
  description: 'A verifier is given the `verifier_key` texts it trusts (docs/integrity.md "Signing keys").',
  ok: { description: 'The keys.', ...json(integrityKeyListSchema) },
};

export const getInclusionProofRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/integrity/proofs/inclusion',
  scope: 'audit:read',
  narrowable: true,
  statuses: [403, 404, 422],
  operationId: 'getInclusionProof',
  tags: ['Integrity'],
  summary: "An event's inclusion proof in one of the tenant's checkpoints (the latest by default).",
  description:
    "RFC 9162 PATH from the event's leaf to the checkpoint's root. 404 when the id is no leaf of the tenant's tree (missing, another tenant's, outside a narrowed viewer token's filter, not a UUID, or written so recently it is not appended yet: one answer), when no checkpoint has that size, and when the event came after the checkpoint.",
  requestParams: { query: inclusionQuerySchema },
  ok: { description: 'The proof, with the checkpoint.', ...json(inclusionProofSchema) },
};

export const getConsistencyProofRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/integrity/proofs/consistency',
  scope: 'audit:read',
  statuses: [403, 404, 422],
  operationId: 'getConsistencyProof',
  tags: ['Integrity'],
  summary: "The consistency proof between two of the tenant's checkpoints.",
  description:
    "RFC 9162 PROOF that the tree of `to` leaves extends the tree of `from` leaves: nothing of the earlier was changed or removed. 404 when either size is no checkpoint of the tenant's.",
  requestParams: { query: consistencyQuerySchema },
  ok: { description: 'The proof.', ...json(consistencyProofSchema) },
};

export interface IntegrityRoutesOptions {
  integrity: IntegrityStore;
  /** A narrowed viewer token's proofs are only of events inside its filter, which the event's row tells. */
  events: Pick<EventsReader, 'findEvent'>;
  cursorSecret: string;
  /** The stored hashes one page of a window proof may read (WINDOW_PROOF_MAX_HASHES). */
  windowProofMaxHashes: number;
  /** A window proof marks the leaves whose events a purge removed. */
  purges: PurgeReader;
}

// Missing, another tenant's, not a UUID, or not appended yet: one identical answer, so that ids cannot be probed.
const noSuchLeaf = () =>
  new NotFoundError(
    "No event with this id in the tenant's tree (an event just written may not be in it yet).",
  );
const noSuchCheckpoint = (size: number | undefined) =>
  new NotFoundError(
    size === undefined
      ? 'The tenant has no checkpoint yet.'
      : `The tenant has no checkpoint of size ${size}.`,
  );

function parsed<T>(
  result: { ok: true; query: T } | { ok: false; errors: { field: string; message: string }[] },
) {
  if (!result.ok) throw new ValidationError('Invalid query parameters.', result.errors);
  return result.query;
}

/** The tenant's checkpoints, the signing keys and proofs (docs/api.md "Integrity", docs/integrity.md). */
export function integrityRoutes(app: FastifyInstance, opts: IntegrityRoutesOptions): void {
  const postgres = unavailable('postgres');

  apiRoute<{ Querystring: Record<string, unknown> }>(app, listCheckpointsRoute, async (request) => {
    const { limit = 100, cursor } = parsed(parseQuery(checkpointsQuerySchema, request.query ?? {}));
    const tenant = request.principal!.tenantId;
    const below = cursor === undefined ? null : decodeCheckpointsCursor(cursor, tenant, opts.cursorSecret);
    if (cursor !== undefined && below === null) {
      throw new ValidationError('Invalid cursor.', [
        { field: 'cursor', message: 'is malformed, was altered, or was issued for another tenant or list' },
      ]);
    }
    const rows = await opts.integrity.checkpoints(tenant, below, limit + 1).catch(postgres);
    const page = rows.slice(0, limit);
    // Each checkpoint's link to the one before it (the next row: one more was read than the page holds).
    const links = page.flatMap((c, i) =>
      rows[i + 1] ? [[rows[i + 1]!.tree_size, c.tree_size] as [number, number]] : [],
    );
    const proofs = await opts.integrity.consistencyProofs(tenant, links).catch(postgres);
    const last = page.at(-1);
    const hasMore = rows.length > limit && last !== undefined;
    return checkpointListSchema.parse({
      checkpoints: page.map((c, i) => ({
        ...checkpointView(c),
        previous: rows[i + 1] ? { tree_size: rows[i + 1]!.tree_size, hashes: hashesView(proofs[i]!) } : null,
      })),
      page: {
        limit,
        returned: page.length,
        next_cursor: hasMore ? encodeCheckpointsCursor(last.tree_size, tenant, opts.cursorSecret) : null,
        has_more: hasMore,
      },
    });
  });

  apiRoute<{ Querystring: Record<string, unknown> }>(app, listIntegrityKeysRoute, async (request) => {
    refuseUnknownQuery(request.query);
    const keys = await opts.integrity.keys().catch(postgres);
    return integrityKeyListSchema.parse({ keys: keys.map(integrityKeyView) });
  });

  apiRoute<{ Querystring: Record<string, unknown> }>(app, getInclusionProofRoute, async (request) => {
    const query = parsed(parseQuery(inclusionQuerySchema, request.query ?? {}));
    const tenant = request.principal!.tenantId;
    if (!UUID_PATTERN.test(query.event_id)) throw noSuchLeaf();
    const eventId = query.event_id.toLowerCase();
    const narrowing = request.principal!.viewer?.narrowedTo;
    if (narrowing && isNarrowed(narrowing)) {
      const row = await opts.events.findEvent(tenant, eventId).catch(unavailable('clickhouse'));
      if (!row || !withinNarrowing(row, narrowing)) throw noSuchLeaf();
    }
    const [leaf, checkpoint] = await Promise.all([
      opts.integrity.leaf(tenant, eventId),
      opts.integrity.checkpoint(tenant, query.tree_size ?? null),
    ]).catch(postgres);
    if (!checkpoint) throw noSuchCheckpoint(query.tree_size);
    if (!leaf) throw noSuchLeaf();
    if (leaf.leaf_index >= checkpoint.tree_size) {
      throw new NotFoundError(
        `This event is leaf ${leaf.leaf_index}, after the ${checkpoint.tree_size} leaves of that checkpoint: a later one covers it.`,
      );
    }
    const hashes = await opts.integrity
      .inclusionProof(tenant, leaf.leaf_index, checkpoint.tree_size)
      .catch(postgres);
    return inclusionProofSchema.parse({
      event_id: eventId,
      leaf_index: leaf.leaf_index,
      leaf_hash: Buffer.from(leaf.leaf_hash).toString('base64'),
      tree_size: checkpoint.tree_size,
      hashes: hashesView(hashes),
      checkpoint: checkpointView(checkpoint),
    });
  });

  apiRoute<{ Querystring: Record<string, unknown> }>(app, getConsistencyProofRoute, async (request) => {
    const { from, to } = parsed(parseQuery(consistencyQuerySchema, request.query ?? {}));
    const tenant = request.principal!.tenantId;
    const [first, second] = await Promise.all([
      opts.integrity.checkpoint(tenant, from),
      opts.integrity.checkpoint(tenant, to),
    ]).catch(postgres);
    if (!first) throw noSuchCheckpoint(from);
    if (!second) throw noSuchCheckpoint(to);
    const hashes = await opts.integrity.consistencyProof(tenant, from, to).catch(postgres);
    return consistencyProofSchema.parse({ from, to, hashes: hashesView(hashes) });
  });
}
