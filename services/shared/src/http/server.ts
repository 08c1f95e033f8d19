import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from '../logger.js';

/**
 * Fastify as every service uses it. Errors Fastify raises before routing (an undecodable URL, odd headers) get
 * our JSON error shape too; path parameters may be long enough that a long id reaches its route (and its 404).
 */
export function createHttpServer(logger: Logger, options: { bodyLimit?: number } = {}): FastifyInstance {
  return Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    routerOptions: { maxParamLength: 1024 },
    ...options,
    frameworkErrors: (error, _request, reply) => {
      const body = { error: 'bad_request', message: `The request could not be read: ${error.message}` };
      void (reply as unknown as FastifyReply).code(400).send(body);
    },
  });
}
