import { errorKind } from '@audit/shared/platform';

/** An inactive endpoint is sent nothing: no test send, no replay (docs/webhooks.md). */
export class EndpointInactiveError extends errorKind(409, 'endpoint_inactive') {}

/** One replay per endpoint at a time (docs/webhooks.md "Replays"). */
export class ReplayInProgressError extends errorKind(409, 'replay_in_progress') {}
