import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Scope, type StoredApiKey } from '@audit/shared/api-keys';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import type { Clock } from '@audit/shared/contract';
import {
  AppError,
  DependencyUnavailableError,
  ForbiddenError,
  publishWithin,
  RateLimitedError,
  sleep,
  TokenExpiredError,
  UnauthorizedError,
  ValidationError,
} from '@audit/shared/platform';
import { authenticate, type AuthDeps, type AuthFailure, type Principal } from '../domain/authenticate.js';
import { authThrottle, type AuthThrottleOptions } from '../domain/auth-throttle.js';
import type { ApiCall } from '../domain/api-call.js';
import { cidrSet, clientIp } from '../domain/ip-match.js';
import { isNarrowed } from '../domain/narrowing.js';
import {
  capacityOf,
  rateLimitHeaders,
  requestClass,
  secondsUntil,
  type RateLimits,
  type RequestClass,
} from '../domain/rate-limit.js';
import type { TakeToken } from '../adapters/rate-limiter.js';
import type { ViewerTokenStore } from '../adapters/viewer-token-store.js';

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
  rateLimited(cls: RequestClass | 'failed_auth'): void;
}

export interface PublicApiAuthOptions {
  auth: AuthDeps;
  trustedProxies: readonly string[];
  takeToken: TakeToken;
  limits: RateLimits;
  /** Failed authentications each client address may make (docs/api-keys.md "Failed authentication"). */
  authFailures: AuthThrottleOptions;
  /**
   * A key whose prefix this gateway knows exists (held in memory, or in the key directory), else null without a
   * query: all a throttled address's key is checked against.
   */
  knownKey?: (prefix: string) => Promise<StoredApiKey | null>;
  /** Where viewer tokens are found (docs/viewer.md "Viewer tokens"), and the time they expire against. */
  viewerTokens: Pick<ViewerTokenStore, 'find'>;
  clock: Clock;
  meter: PublicApiMeter;
}

const MAX_HELD = 1000;

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
    publishWithin(opts.auditLog.publish([event]), opts.auditTimeoutMs).then(() => undefined);
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
 * Every route registered inside requires a valid key (one identical 401 for every failure; an address that failed
 * too often gets 429 unless its key is held in memory), a token from the key's shared read or write bucket (429),
 * and the scope its config names (403 naming it).
 */
export function registerPublicApiAuth(app: FastifyInstance, opts: PublicApiAuthOptions): void {
  const trusted = cidrSet(opts.trustedProxies);
  const throttle = authThrottle(opts.authFailures);
  // Bounded, so that holding answers cannot itself exhaust sockets or memory: past it a 429 leaves at once.
  let held = 0;
  const hold = async () => {
    if (held >= MAX_HELD) return;
    held += 1;
    await sleep(opts.authFailures.holdMs).finally(() => (held -= 1));
  };
  const withViewerTokens = {
    ...opts.auth,
    viewerTokens: { findViewerToken: opts.viewerTokens.find, now: opts.clock },
  };
  app.decorateRequest('principal', null);
  app.decorateRequest('clientIp', '');

  /**
   * A throttled address is answered 429 unless its key is one whose prefix the gateway knows exists: a bad
   * neighbour behind the same address must not lock out a client whose key is valid, used a moment or a month
   * ago; an unknown prefix costs no query.
   */
  async function authenticateOrThrottle(authorization: string | undefined, ip: string): Promise<Principal> {
    const retryAfterS = throttle.retryAfterS(ip);
    if (retryAfterS !== null) {
      const knownOnly = {
        ...opts.auth,
        findKey: async (prefix: string) => (await opts.knownKey?.(prefix)) ?? null,
      };
      const known = await authenticate(authorization, ip, knownOnly).catch(unavailable('postgres'));
      if (known) return known;
      opts.meter.rateLimited('failed_auth');
      await hold();
      // Counted after the hold, which the wait already spent.
      throw new RateLimitedError('failed_auth', throttle.retryAfterS(ip) ?? 1);
    }
    let failure: AuthFailure | null = null;
    const principal = await authenticate(authorization, ip, withViewerTokens, (reason) => {
      failure = reason;
      opts.meter.authRefused(reason);
    }).catch(unavailable('postgres'));
    if (principal) return principal;
    // Its holder presented the right secret: no guess to slow down, and a page that can say what happened.
    if (failure === 'expired') throw new TokenExpiredError();
    throttle.failed(ip);
    throw new UnauthorizedError();
  }

  app.addHook('onRequest', async (request, reply) => {
    const forwarded = request.headers['x-forwarded-for'];
    const forwardedFor = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
    const ip = clientIp(request.socket.remoteAddress ?? '', forwardedFor, trusted);
    request.clientIp = ip;
    const principal = await authenticateOrThrottle(request.headers.authorization, ip);
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
    const { scope, onScopeDenied, apiRoute } = request.routeOptions.config;
    if (scope && !principal.scopes.has(scope)) {
      await onScopeDenied?.(request).catch(unavailable('kafka'));
      throw new ForbiddenError(
        `This ${principal.viewer ? 'viewer token' : 'API key'} lacks the scope ${scope}.`,
      );
    }
    // A narrowed viewer token reaches only the routes that apply its filter: any other could show more.
    if (apiRoute && principal.viewer && isNarrowed(principal.viewer.narrowedTo) && !apiRoute.narrowable) {
      throw new ForbiddenError(
        'This viewer token is narrowed to a filter, which this endpoint cannot apply.',
      );
    }
  });
}
