import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  AppError,
  DependencyUnavailableError,
  ForbiddenError,
  RateLimitedError,
  UnauthorizedError,
  ValidationError,
  withDeadline,
  type AuditPublisher,
  type Scope,
} from '@audit/shared';
import { authenticate, type AuthDeps, type AuthFailure, type Principal } from '../domain/authenticate.js';
import type { ApiCall } from '../domain/api-call.js';
import { cidrSet, clientIp } from '../domain/ip-match.js';
import {
  capacityOf,
  rateLimitHeaders,
  requestClass,
  secondsUntil,
  type RateLimits,
  type RequestClass,
} from '../domain/rate-limit.js';
import type { TakeToken } from '../adapters/rate-limiter.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    clientIp: string;
  }
  interface FastifyContextConfig {
    /** The scope a route requires (spec: Scopes). */
    scope?: Scope;
    /** Runs before the 403 of a request that lacks the scope (export records refused calls). */
    onScopeDenied?: (request: FastifyRequest) => Promise<void>;
  }
}

/** What the refusals are counted by (metrics). */
export interface PublicApiMeter {
  authRefused(reason: AuthFailure): void;
  rateLimited(cls: RequestClass): void;
}

export interface PublicApiAuthOptions {
  auth: AuthDeps;
  trustedProxies: readonly string[];
  takeToken: TakeToken;
  limits: RateLimits;
  meter: PublicApiMeter;
}

/** A failure of ours (Postgres, ClickHouse) is a 503 the client may retry; client errors pass unchanged. */
export const unavailable = (dependency: string) => (err: unknown) => {
  throw err instanceof AppError ? err : new DependencyUnavailableError(dependency, 5, { cause: err });
};

/**
 * Publishes one of the gateway's own audit events (export, webhook changes) within the deadline: a change that
 * waits for it never happens unaudited, and Kafka slow or down is a 503, not a hung request.
 */
export function auditWriter(opts: { auditLog: Pick<AuditPublisher, 'publish'>; auditTimeoutMs: number }) {
  return (event: unknown): Promise<void> =>
    withDeadline(
      opts.auditLog.publish([event]),
      opts.auditTimeoutMs,
      () => new DependencyUnavailableError('kafka'),
    ).then(() => undefined, unavailable('kafka'));
}

/** Routes without query parameters still name any they are given: a typo must not pass unnoticed (422). */
export function refuseUnknownQuery(query: unknown): void {
  const unknown = Object.keys((query as object | undefined) ?? {});
  if (unknown.length > 0) {
    throw new ValidationError(
      'Unknown query parameters.',
      unknown.map((field) => ({ field, message: 'unknown parameter' })),
    );
  }
}

export function apiCallOf(request: FastifyRequest): ApiCall {
  const userAgent = request.headers['user-agent'];
  return {
    principal: request.principal!,
    clientIp: request.clientIp,
    userAgent: typeof userAgent === 'string' ? userAgent : '',
  };
}

/**
 * Every route registered inside requires a valid key (one identical 401 for every failure), a token from the
 * key's shared read or write bucket (429), and the scope its config names (403 naming it).
 */
export function registerPublicApiAuth(app: FastifyInstance, opts: PublicApiAuthOptions): void {
  const trusted = cidrSet(opts.trustedProxies);
  app.decorateRequest('principal', null);
  app.decorateRequest('clientIp', '');

  app.addHook('onRequest', async (request, reply) => {
    const forwarded = request.headers['x-forwarded-for'];
    const forwardedFor = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
    const ip = clientIp(request.socket.remoteAddress ?? '', forwardedFor, trusted);
    request.clientIp = ip;
    const principal = await authenticate(
      request.headers.authorization,
      ip,
      opts.auth,
      opts.meter.authRefused,
    ).catch(unavailable('postgres'));
    if (!principal) throw new UnauthorizedError();
    request.principal = principal;
    request.log = request.log.child({ key_prefix: principal.prefix });

    // Every authenticated request counts, whatever it turns out to be; the headers go on every such response.
    const cls = requestClass(request.method);
    const capacity = capacityOf(opts.limits, cls);
    const { allowed, remaining } = await opts
      .takeToken(principal.prefix, cls, capacity)
      .catch(unavailable('postgres'));
    void reply.headers(rateLimitHeaders(capacity, remaining));
    if (!allowed) {
      opts.meter.rateLimited(cls);
      throw new RateLimitedError(cls, secondsUntil(remaining, 1, capacity));
    }

    // Before the body is read: a key without the scope gets its 403 (and any audit of it) whatever it sent.
    const { scope, onScopeDenied } = request.routeOptions.config;
    if (scope && !request.principal!.scopes.has(scope)) {
      await onScopeDenied?.(request).catch(unavailable('kafka'));
      throw new ForbiddenError(`This API key lacks the scope ${scope}.`);
    }
  });
}
