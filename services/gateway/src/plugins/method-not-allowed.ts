import type { FastifyInstance } from 'fastify';
import { MethodNotAllowedError } from '@audit/shared/platform';

/**
 * Registers the routes `register` adds, then answers every other method Fastify routes on their paths with 405
 * and `Allow` (a 404 would say the path does not exist). These answers come from inside `app`, so they are
 * authenticated and counted like every other request there.
 */
export function withMethodNotAllowed(app: FastifyInstance, register: () => void): void {
  const allowed = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const path = route.url.slice(route.prefix.length);
    const methods = allowed.get(path) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    allowed.set(path, methods);
  });
  register();
  for (const [url, methods] of [...allowed]) {
    const allow = app.supportedMethods.filter((m) => methods.has(m));
    app.route({
      method: app.supportedMethods.filter((m) => !methods.has(m)),
      url,
      // Answered in onRequest, after the API's own onRequest hooks (authentication, rate limit) and before
      // Fastify reads a body: a method the path does not have gets 405 whatever it sent, even a QUERY without
      // the Content-Type Fastify otherwise demands.
      onRequest: async () => {
        throw new MethodNotAllowedError(allow);
      },
      handler: async () => undefined,
    });
  }
}
