import type { FieldError } from './validation/zod-field-errors.js';

/** Errors a client can cause or see; anything else is our bug and becomes a 500 without details. */
export abstract class AppError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  readonly details?: unknown;
  readonly headers: Record<string, string> = {};
  /** Further top-level fields of the error body, where the spec defines some (429). */
  readonly extra: Record<string, unknown> = {};

  constructor(message: string, details?: unknown) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}

/** The base of an error that is only its status and code; the message is given where it is thrown. */
export function errorKind<Status extends number, Code extends string>(status: Status, code: Code) {
  return class extends AppError {
    readonly status = status;
    readonly code = code;
  };
}

export class ValidationError extends AppError {
  readonly status = 422;
  readonly code = 'invalid_request';
  declare readonly details: FieldError[];

  constructor(message: string, details: FieldError[]) {
    super(message, details);
  }
}

export class UnauthorizedError extends AppError {
  readonly status = 401;
  readonly code = 'unauthorized';
  override readonly headers = { 'www-authenticate': 'Bearer' };

  constructor() {
    super('A valid bearer token is required.');
  }
}

/**
 * A viewer token whose secret matched but whose time is over (docs/viewer.md "Viewer tokens"): said plainly, as only
 * its holder can learn it, so that the page can ask for a new one rather than call the link broken.
 */
export class TokenExpiredError extends AppError {
  readonly status = 401;
  readonly code = 'token_expired';
  override readonly headers = { 'www-authenticate': 'Bearer error="invalid_token"' };

  constructor() {
    super('This viewer token has expired; ask for a new one.');
  }
}

export class ForbiddenError extends errorKind(403, 'forbidden') {}

export class NotFoundError extends errorKind(404, 'not_found') {}

/** A path that exists, asked with a method it does not have: `Allow` lists the ones it has. */
export class MethodNotAllowedError extends AppError {
  readonly status = 405;
  readonly code = 'method_not_allowed';

  constructor(allow: readonly string[]) {
    super(`This endpoint answers ${allow.join(', ')} only.`);
    this.headers['allow'] = allow.join(', ');
  }
}

/** Spec: 429 with `Retry-After` and `{error, scope, retry_after_s}` (plus our `message`). */
/** What is exhausted (docs/contract.md "Status codes and error bodies"), and how a 429 says it. */
const RATE_LIMITS = {
  read: 'Too many read requests for this API key',
  write: 'Too many write requests for this API key',
  failed_auth: 'Too many failed authentications from this address',
  concurrent_exports: 'Too many exports are running',
  concurrent_export_jobs: 'Too many export jobs are queued or running for this tenant',
  concurrent_replays: 'Too many webhook replays are queued or running for this tenant',
  concurrent_downloads: 'Too many downloads are running for this API key, its tenant or this server',
} as const;
export type RateLimitScope = keyof typeof RATE_LIMITS;
export const RATE_LIMIT_SCOPES = Object.keys(RATE_LIMITS) as [RateLimitScope, ...RateLimitScope[]];

export class RateLimitedError extends AppError {
  readonly status = 429;
  readonly code = 'rate_limited';

  constructor(scope: RateLimitScope, retryAfterS: number) {
    super(`${RATE_LIMITS[scope]}; retry after ${retryAfterS} s.`);
    this.headers['retry-after'] = String(retryAfterS);
    Object.assign(this.extra, { scope, retry_after_s: retryAfterS });
  }
}

/** The body cannot be parsed at all (as opposed to parsed but invalid: ValidationError). */
export class MalformedBodyError extends errorKind(400, 'malformed_body') {}

export class PayloadTooLargeError extends errorKind(413, 'payload_too_large') {}

/** A dependency (Kafka, ClickHouse, Postgres) cannot serve the request right now; the client may retry. */
export class DependencyUnavailableError extends AppError {
  readonly status = 503;
  readonly code = 'service_unavailable';

  constructor(
    readonly dependency: string,
    readonly retryAfterS = 5,
    options?: { cause?: unknown },
  ) {
    // The message names no dependency: it reaches clients, and our topology is none of theirs.
    super('The service is temporarily unavailable; retry later.');
    if (options?.cause) this.cause = options.cause;
    this.headers['retry-after'] = String(retryAfterS);
  }
}
