import type { Logger } from '@audit/shared/platform';
import type { EventSink } from '../domain/store-events.js';
import type { Pipeline } from './projection.pipeline.js';
import type { ReplayRunner } from './projection-watcher.js';

/**
 * This process's share of a replay: a pipeline into the target generation, in the replay's own consumer group
 * (several projectors split its partitions). Stopped, it also waits until no insert of ours still runs in
 * ClickHouse, so a drain confirmed means nothing more is written to the target by the replay.
 */
export function replayRunner(
  start: (target: number) => Promise<Pipeline>,
  sink: Pick<EventSink, 'insertsSettled'>,
  logger: Logger,
): ReplayRunner {
  let current: { target: number; pipeline: Pipeline } | null = null;
  return {
    running: () => current?.target ?? null,
    async start(target) {
      current = { target, pipeline: await start(target) };
      logger.info({ target }, 'replay into a new projection generation started');
    },
    async stop() {
      if (!current) return;
      const { target, pipeline } = current;
      await pipeline.stop();
      await sink.insertsSettled();
      current = null;
      logger.info({ target }, 'replay consumer stopped');
    },
  };
}
