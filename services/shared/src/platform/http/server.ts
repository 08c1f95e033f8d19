import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from '../logger.js';

/**
 * Fastify as every service uses it. Errors Fastify raises before routing (an undecodable URL, odd headers) get
 * our JSON error shape too; path parameters may be long enough that a long id reaches its route (and its 404).
 */
export function createHttpServer(logger: Logger, options: { bodyLimit?: number } = {}): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    routerOptions: { maxParamLength: 1024 },
    ...options,
    frameworkErrors: (error, _request, reply) => {
      const body = { error: 'bad_request', message: `The request could not be read: ${error.message}` };
      void (reply as unknown as FastifyReply).code(400).send(body);
    },
  });
  closeConnectionsAfterLastResponse(app);
  return app;
}

/**
 * `close()` lets requests in flight finish, but Node closes only the connections idle when it begins: one whose
 * response ends later stays open for the keep-alive timeout (72 s), past any shutdown grace. Once closing, each
 * connection is ended as soon as its response is sent.
 */
function closeConnectionsAfterLastResponse(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onResponse', async (request) => {
    if (closing) request.raw.socket.destroySoon();
  });
}
