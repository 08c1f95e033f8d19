import { setTimeout as delay } from 'node:timers/promises';
import { loggableError, type Logger } from '../platform/logger.js';
import type { AuditGenerations } from './audit-generations.js';

/** How often a consumer's service reads the audit topic's generations by default (docs/topic-growth.md). */
export const GROWTH_POLL_MS = 5000;

export interface GrowthWatchOptions {
  pollMs?: number;
  logger: Logger;
  /** The generations the consumer reads now: a growth is a generation it does not. */
  subscribed: () => readonly string[];
  /** Called once the generations read have a topic more: the consumer is started again with them. */
  onGrown: (stopped: () => boolean) => Promise<void>;
}

/**
 * Reads the audit topic's generations every `pollMs` and tells of a growth (docs/topic-growth.md "Consumers").
 * `stop` ends the wait at once and lets a restart under way finish, so a shutdown stops what it started.
 */
export function watchGrowth(generations: AuditGenerations, opts: GrowthWatchOptions) {
  const abort = new AbortController();
  const stopped = () => abort.signal.aborted;
  const loop = (async () => {
    while (!stopped()) {
      await delay(opts.pollMs ?? GROWTH_POLL_MS, undefined, { signal: abort.signal }).catch(() => undefined);
      if (stopped()) return;
      const now = await generations.reload().catch((err: unknown) => {
        opts.logger.warn({ err: loggableError(err) }, 'audit topic generations unreadable');
        return null;
      });
      if (!now || now.map((g) => g.topic).join() === opts.subscribed().join()) continue;
      opts.logger.info({ topics: generations.topics() }, 'the audit topic grew: reading its new generation');
      await opts
        .onGrown(stopped)
        .catch((err: unknown) =>
          opts.logger.error({ err: loggableError(err) }, 'consumer not started again after a growth'),
        );
    }
  })();
  return {
    async stop(): Promise<void> {
      abort.abort();
      await loop;
    },
  };
}
