import { CommitFailedError } from '@audit/shared/platform';
import type { AuditedContext } from '../contexts.js';
import { CliError } from './cli-error.js';

/**
 * Publishes a change's audit event from inside the change's transaction (a repository's `announce`): when Kafka
 * refuses it, the change is rolled back, so that nothing changes without its event in the tenant's trail.
 */
export const announcer = (ctx: AuditedContext) => async (event: unknown) => {
  await ctx.publisher.publish([event]).catch((err: unknown) => {
    throw new CliError(`the audit event could not be written (${(err as Error).message}): nothing changed`);
  });
};

/** A change whose event Kafka has, but whose commit failed: whether it holds is not known, so the operator looks. */
export const committed = <T>(change: Promise<T>, what: string, check: string): Promise<T> =>
  change.catch((err: unknown) => {
    if (!(err instanceof CommitFailedError)) throw err;
    throw new CliError(
      `the audit event was written, but the ${what} could not be committed (${err.message}); check it with ` +
        `"${check}" and repeat the command`,
    );
  });
