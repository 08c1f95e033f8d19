import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../schemas/api-prefix.js';
import { openApiDocument } from '../schemas/openapi.document.js';
import type { ApiRoute } from './api-route.js';

/** The OpenAPI document, without authentication: it describes the API and holds nothing of any tenant. */
export function openApiRoute(app: FastifyInstance, routes: readonly ApiRoute[]): void {
  let document: string | undefined;
  app.get(`${API_PREFIX}/openapi.json`, async (_request, reply) => {
    // Made at the first request, when every route has registered its description.
    document ??= JSON.stringify(openApiDocument(routes));
    return reply.type('application/json; charset=utf-8').send(document);
  });
}
