import type { FastifyInstance } from 'fastify';
import { formatTimestamp } from '@audit/shared/contract';
import { proofPrefix } from '@audit/shared/integrity';
import { wasPurged } from '@audit/shared/retention';
import { NotFoundError, ValidationError } from '@audit/shared/platform';
import { decodeWindowCursor, encodeWindowCursor } from '../domain/cursor.js';
import { MAX_WINDOW_LEAVES, parseQuery, windowQuerySchema } from '../domain/integrity-query.js';
import { unavailable } from '../plugins/public-api.plugin.js';
import { checkpointView, hashesView, windowProofSchema } from '../schemas/integrity.schema.js';
import type { IntegrityRoutesOptions } from './integrity.route.js';
import { json } from '../schemas/openapi.responses.js';
import { apiRoute, type ApiRoute } from './api-route.js';

export const getWindowProofRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/integrity/proofs/window',
  scope: 'audit:read',
  statuses: [403, 404, 422],
  operationId: 'getWindowProof',
  tags: ['Integrity'],
  summary: "The tenant's leaves of a window of event time, proven in one of its checkpoints.",
  description:
    'Every leaf whose event time is in the window (`since` inclusive, `until` exclusive), in pages of up to 10,000 (fewer where the leaves are so scattered that the page\'s proof would read more than `WINDOW_PROOF_MAX_HASHES` stored hashes, default 50,000), each with the hashes that make the checkpoint\'s root from its leaves: with an export of the same window, the checkpoints and the keys, the offline verifier names each altered, missing and forged row (docs/integrity.md "Window proofs"). 404 when no checkpoint has that size.',
  requestParams: { query: windowQuerySchema },
  ok: { description: 'One page.', ...json(windowProofSchema) },
};

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/**
 * A window proof (docs/api.md "Integrity", docs/integrity.md "Window proofs"): the tenant's leaves of a window of
 * event time in a checkpoint, in pages, each page with the hashes that make the checkpoint's root from its leaves.
 */
export function integrityWindowRoute(app: FastifyInstance, opts: IntegrityRoutesOptions): void {
  const postgres = unavailable('postgres');

  apiRoute<{ Querystring: Record<string, unknown> }>(app, getWindowProofRoute, async (request) => {
    const parsed = parseQuery(windowQuerySchema, request.query ?? {});
    if (!parsed.ok) throw new ValidationError('Invalid query parameters.', parsed.errors);
    const { since, until, tree_size, limit = MAX_WINDOW_LEAVES, cursor } = parsed.query;
    const tenant = request.principal!.tenantId;
    const binding = { tenant, since: since ?? null, until: until ?? null };
    // Later pages are of the checkpoint the first page was: the cursor carries its size.
    const after = cursor === undefined ? null : decodeWindowCursor(cursor, binding, opts.cursorSecret);
    if (cursor !== undefined && (after === null || (tree_size !== undefined && tree_size !== after.size))) {
      throw new ValidationError('Invalid cursor.', [
        {
          field: 'cursor',
          message: 'is malformed, was altered, or was issued for another tenant, window or tree size',
        },
      ]);
    }
    const wanted = after?.size ?? tree_size;
    const checkpoint = await opts.integrity.checkpoint(tenant, wanted ?? null).catch(postgres);
    if (!checkpoint) {
      throw new NotFoundError(
        wanted === undefined
          ? 'The tenant has no checkpoint yet.'
          : `The tenant has no checkpoint of size ${wanted}.`,
      );
    }
    const size = checkpoint.tree_size;
    const window = { since, until };
    const rows = await opts.integrity.windowLeaves(tenant, window, size, after, limit + 1).catch(postgres);
    // Scattered leaves need many stored hashes each: a page ends where its proof would read more than the bound.
    const fits = proofPrefix(
      rows.slice(0, limit).map((l) => l.leaf_index),
      size,
      opts.windowProofMaxHashes,
    );
    const page = rows.slice(0, fits);
    const hasMore = rows.length > fits;
    const indices = page.map((l) => l.leaf_index).sort((a, b) => a - b);
    const [hashes, later, purges] = await Promise.all([
      opts.integrity.windowProof(tenant, indices, size),
      hasMore ? [] : opts.integrity.laterInWindow(tenant, window, size, MAX_WINDOW_LEAVES),
      opts.purges.history(tenant),
    ]).catch(postgres);
    const last = page.at(-1);
    return windowProofSchema.parse({
      tree_size: size,
      since: since === undefined ? null : formatTimestamp(since),
      until: until === undefined ? null : formatTimestamp(until),
      leaves: page.map((l) => ({
        event_id: l.event_id,
        leaf_index: l.leaf_index,
        timestamp: formatTimestamp(l.ts),
        leaf_hash: b64(l.leaf_hash),
        ...(wasPurged(purges, l.ts) ? { purged: true } : {}),
      })),
      hashes: hashesView(hashes),
      purged_before: purges.purgedBefore === null ? null : formatTimestamp(purges.purgedBefore),
      later,
      checkpoint: checkpointView(checkpoint),
      page: {
        limit,
        returned: page.length,
        next_cursor:
          hasMore && last ? encodeWindowCursor({ ...last, size }, binding, opts.cursorSecret) : null,
        has_more: hasMore,
      },
    });
  });
}
