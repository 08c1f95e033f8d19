import type { FastifyInstance, HTTPMethods } from 'fastify';
import { MethodNotAllowedError } from '@audit/shared';

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Registers the routes `register` adds, then answers every other method on their paths with 405 and `Allow`
 * (a 404 would say the path does not exist). These answers come from inside `app`, so they are authenticated and
 * counted like every other request there.
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
    const allow = METHODS.filter((m) => methods.has(m));
    app.route({
      method: METHODS.filter((m) => !methods.has(m)),
      url,
      handler: async () => {
        throw new MethodNotAllowedError(allow);
      },
    });
  }
}
