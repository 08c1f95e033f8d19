import { AppError } from '@audit/shared/platform';

/** An inactive endpoint is sent nothing: no test send, no replay (docs/webhooks.md). */
export class EndpointInactiveError extends AppError {
  readonly status = 409;
  readonly code = 'endpoint_inactive';
}

/** One replay per endpoint at a time (docs/webhooks.md "Replays"). */
export class ReplayInProgressError extends AppError {
  readonly status = 409;
  readonly code = 'replay_in_progress';
}
