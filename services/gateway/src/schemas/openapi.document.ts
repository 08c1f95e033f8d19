import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';
import type { ApiRoute } from '../routes/api-route.js';
import { API_PREFIX } from './api-prefix.js';
import { operation } from './openapi.responses.js';

/** The routes' operations by path and method. */
function pathsOf(routes: readonly ApiRoute[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const { method, path, scope, statuses, narrowable: _narrowable, ...description } of routes)
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation(scope, statuses, description) };
  return paths;
}

/**
 * The public API's OpenAPI 3.1 document, assembled from the routes registered: each describes itself (apiRoute)
 * with the zod schemas it validates with.
 */
export function openApiDocument(routes: readonly ApiRoute[]) {
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Audit Trail Service public API',
        version: '2',
        description:
          "Read a tenant's audit trail (a paged list, single lookup, synchronous bulk export and export jobs for whole windows), manage the webhook endpoints it is pushed to, and record its retention policy and legal holds. Every request needs `Authorization: Bearer <API key>` (or a viewer token); the security requirement of each operation names the scope it needs.",
      },
      servers: [{ url: API_PREFIX }],
      tags: [
        { name: 'Events', description: "The tenant's audit trail: list, lookup and export." },
        {
          name: 'Exports',
          description:
            'Export jobs: one file of a whole window, written off the request path, downloaded by range.',
        },
        { name: 'Webhooks', description: 'The endpoints the audit trail is pushed to, signed.' },
        {
          name: 'Integrity',
          description:
            "Tamper evidence (docs/integrity.md): the tenant's tree checkpoints, signed, the keys that sign them, and proofs.",
        },
        {
          name: 'Viewer',
          description:
            'Viewer tokens (docs/viewer.md): short-lived bearer tokens for the viewer page, which a browser uses instead of an API key.',
        },
        {
          name: 'Retention',
          description:
            "The tenant's retention policy and legal holds (docs/retention.md): recorded and audited; a purge removes the events past the maximum that no hold covers.",
        },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              'An API key issued by an operator, or a viewer token one made (docs/viewer.md), which has at most its scopes.',
          },
        },
      },
      paths: pathsOf(routes),
    },
    {
      // The spec lets responses gain fields without a version change: clients must not reject unknown ones.
      override: ({ jsonSchema, io }) => {
        if (io === 'output' && jsonSchema.additionalProperties === false)
          delete jsonSchema.additionalProperties;
        // zod bounds every integer by the safe range; on the wire that only adds noise.
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      },
    },
  );
}
