import type { FastifyInstance } from 'fastify';
import {
  AppError,
  DependencyUnavailableError,
  ForbiddenError,
  UnauthorizedError,
  type Scope,
} from '@audit/shared';
import { authenticate, type AuthDeps, type Principal } from '../domain/authenticate.js';
import { cidrSet, clientIp } from '../domain/ip-match.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** The scope a route requires (spec: Scopes). */
    scope?: Scope;
  }
}

export interface PublicApiAuthOptions {
  auth: AuthDeps;
  trustedProxies: readonly string[];
}

/** A failure of ours (Postgres, ClickHouse) is a 503 the client may retry; client errors pass unchanged. */
export const unavailable = (dependency: string) => (err: unknown) => {
  throw err instanceof AppError ? err : new DependencyUnavailableError(dependency, 5, { cause: err });
};

/**
 * Every route registered inside requires a valid key (one identical 401 for every failure) and the scope its
 * config names (403 naming it).
 */
export function registerPublicApiAuth(app: FastifyInstance, opts: PublicApiAuthOptions): void {
  const trusted = cidrSet(opts.trustedProxies);
  app.decorateRequest('principal', null);

  app.addHook('onRequest', async (request) => {
    const forwarded = request.headers['x-forwarded-for'];
    const forwardedFor = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
    const ip = clientIp(request.socket.remoteAddress ?? '', forwardedFor, trusted);
    const principal = await authenticate(request.headers.authorization, ip, opts.auth).catch(
      unavailable('postgres'),
    );
    if (!principal) throw new UnauthorizedError();
    request.principal = principal;
    request.log = request.log.child({ key_prefix: principal.prefix });
  });

  app.addHook('preHandler', async (request) => {
    const scope = request.routeOptions.config.scope;
    if (scope && !request.principal!.scopes.has(scope)) {
      throw new ForbiddenError(`This API key lacks the scope ${scope}.`);
    }
  });
}
