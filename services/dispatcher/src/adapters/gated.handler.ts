import type { GenerationGate } from '@audit/shared/audit-topic';
import type { MessageContext } from './tracked-consumer.js';

/**
 * Holds a message of a grown audit topic's new generation, pausing its partition, until the group has read the
 * generation before up to its seal: a tenant's events reach its endpoints in their order across the two, and an
 * endpoint's change is read before the events after it (docs/topic-growth.md).
 */
export function gatedByGeneration(
  gate: Pick<GenerationGate, 'isOpen' | 'whenOpen'>,
  handle: (ctx: MessageContext) => Promise<boolean>,
  stopping: () => boolean,
) {
  return async (ctx: MessageContext): Promise<boolean> => {
    // Unknown (Postgres or Kafka not answering) counts as held: the wait below asks again.
    if (await gate.isOpen(ctx.topic).catch(() => false)) return handle(ctx);
    const resume = ctx.pause();
    void gate.whenOpen(ctx.topic, stopping).then(resume);
    return false;
  };
}
