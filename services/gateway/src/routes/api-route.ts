import type {
  FastifyContextConfig,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';
import type { Scope } from '@audit/shared/api-keys';
import type { ErrorStatus, OperationDescription } from '../schemas/openapi.responses.js';

/**
 * A public API route as it describes itself, once: where it is, the scope a key needs for it, and the operation the
 * OpenAPI document shows (openapi.document.ts assembles the document from the routes registered).
 */
export interface ApiRoute extends OperationDescription {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Under the API prefix, with parameters as OpenAPI writes them: `/audit/events/{event_id}`. */
  path: string;
  scope: Scope;
  /** Its error answers besides 401, 429 and 503, which every route may give. */
  statuses: ErrorStatus[];
  /** It applies a narrowed viewer token's filter (docs/viewer.md); any other route refuses such a token. */
  narrowable?: true;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's own description (apiRoute). */
    apiRoute?: ApiRoute;
  }
}

type Handler<G extends RouteGenericInterface> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  G
>;

/** Registers a route under its description; `config` adds what the route needs besides (onScopeDenied). */
export function apiRoute<G extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  route: ApiRoute,
  handler: Handler<G>,
  config: Omit<FastifyContextConfig, 'scope' | 'apiRoute'> = {},
): void {
  app.route<G>({
    method: route.method,
    url: route.path.replace(/\{(\w+)\}/g, ':$1'),
    config: { ...config, scope: route.scope, apiRoute: route },
    handler,
  });
}

/** The descriptions of every route registered on `app` from now on, in their order. */
export function describedRoutes(app: FastifyInstance): readonly ApiRoute[] {
  const routes: ApiRoute[] = [];
  app.addHook('onRoute', (options) => {
    const route = options.config?.apiRoute;
    // Fastify adds a HEAD route of its own beside each GET, with the same config: the GET is the one described.
    if (route && options.method === route.method) routes.push(route);
  });
  return routes;
}
