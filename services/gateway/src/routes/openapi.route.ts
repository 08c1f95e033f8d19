import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../schemas/api-prefix.js';
import { openApiDocument } from '../schemas/openapi.document.js';

/** The OpenAPI document, without authentication: it describes the API and holds nothing of any tenant. */
export function openApiRoute(app: FastifyInstance): void {
  const document = JSON.stringify(openApiDocument());
  app.get(`${API_PREFIX}/openapi.json`, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(document),
  );
}
