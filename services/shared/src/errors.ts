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

export class ForbiddenError extends AppError {
  readonly status = 403;
  readonly code = 'forbidden';
}

export class NotFoundError extends AppError {
  readonly status = 404;
  readonly code = 'not_found';
}

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
export class RateLimitedError extends AppError {
  readonly status = 429;
  readonly code = 'rate_limited';

  constructor(scope: 'read' | 'write', retryAfterS: number) {
    super(`Too many ${scope} requests for this API key; retry after ${retryAfterS} s.`);
    this.headers['retry-after'] = String(retryAfterS);
    Object.assign(this.extra, { scope, retry_after_s: retryAfterS });
  }
}

/** The client's address failed to authenticate too often (docs/api-keys.md "Failed authentication"). */
export class AuthThrottledError extends AppError {
  readonly status = 429;
  readonly code = 'rate_limited';

  constructor(retryAfterS: number) {
    super(`Too many failed authentications from this address; retry after ${retryAfterS} s.`);
    this.headers['retry-after'] = String(retryAfterS);
    Object.assign(this.extra, { scope: 'failed_auth', retry_after_s: retryAfterS });
  }
}

/** The gateway runs as many exports as it may at once (docs/api.md "POST /audit/export"); another may start shortly. */
export class ExportsBusyError extends AppError {
  readonly status = 429;
  readonly code = 'rate_limited';

  constructor(retryAfterS: number) {
    super(`Too many exports are running; retry after ${retryAfterS} s.`);
    this.headers['retry-after'] = String(retryAfterS);
    Object.assign(this.extra, { scope: 'concurrent_exports', retry_after_s: retryAfterS });
  }
}

/** The body cannot be parsed at all (as opposed to parsed but invalid: ValidationError). */
export class MalformedBodyError extends AppError {
  readonly status = 400;
  readonly code = 'malformed_body';
}

export class PayloadTooLargeError extends AppError {
  readonly status = 413;
  readonly code = 'payload_too_large';
}

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
