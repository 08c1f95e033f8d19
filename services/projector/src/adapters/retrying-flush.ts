import { type AuditEventRecord, type Codec } from '@audit/shared/contract';
import { loggableError, permanentInsertError, retryWithBackoff, type Logger } from '@audit/shared/platform';
import { type ProjectionTables } from '@audit/shared/projection';
import { partitionKeys, type ConsumedRecord, type DeadLetter } from '../domain/consumed-record.js';
import { idKey, projectBatch } from '../domain/project-batch.js';
import { storeEvents, type EventSink, type StoreOutcome } from '../domain/store-events.js';
import { storeOrRefuse } from '../domain/store-or-refuse.js';
import { treeBatch } from '../domain/tree-batch.js';
import type { DeadLetterPublisher } from './dead-letter.publisher.js';
import type { RetentionFilter } from '@audit/shared/retention';
import type { TreeAppender } from './tree.appender.js';

const MAX_BACKOFF_MS = 10_000;
// A few failures are an outage riding out; more look like a stuck partition an operator must see.
const ESCALATE_AFTER_ATTEMPTS = 5;

/** What each successful write is counted by (metrics). */
export interface FlushMeter {
  flushed(write: { records: number; deadLetters: readonly DeadLetter[]; outcome: StoreOutcome }): void;
}

export interface FlushDeps {
  codec: Codec<AuditEventRecord>;
  /** The events to store: a purge's leave the projection (not the trees), so that none comes back. */
  retention: RetentionFilter;
  sink: EventSink;
  deadLetters: DeadLetterPublisher;
  /** Inserts of a previous owner of our partitions have finished (checked once per group join). */
  settledSinceJoin: () => Promise<void>;
  /** Whether this write is the first of its partitions since the group's last join (GroupMembership). */
  firstSinceJoin: (partitions: readonly string[]) => { first: boolean; written: () => void };
  /** Stop retrying: shutting down, or the group took our partitions (a new owner must not race our retries). */
  shouldStop: () => boolean;
  meter: FlushMeter;
  /**
   * Runs the store step on the generation to write: the live one through the projection gate (held while a
   * replay takes over), or the one a replay builds.
   */
  target: <T>(write: (tables: ProjectionTables) => Promise<T>, lost: () => boolean) => Promise<T>;
  /** The tenants' trees, appended beside the live projection's store (never by a replay's). */
  trees?: Pick<TreeAppender, 'append'>;
}

function retry<T>(logger: Logger, step: string, deps: FlushDeps, attemptFn: (attempt: number) => Promise<T>) {
  return retryWithBackoff(attemptFn, {
    firstDelayMs: 200,
    maxDelayMs: MAX_BACKOFF_MS,
    stopping: deps.shouldStop,
    failed: (err, attempt, backoffMs) => {
      const level = attempt < ESCALATE_AFTER_ATTEMPTS ? 'warn' : 'error';
      logger[level](
        { err: loggableError(err), step, attempt, backoffMs },
        'write failed; partitions held until it succeeds',
      );
    },
  });
}

/**
 * Decodes once, publishes the dead letters once, then stores the events and appends them to their tenants' trees
 * at the same time, each step retried with backoff until it succeeds: an outage must not skip records. Events
 * ClickHouse refuses for good are dead-lettered with the reason instead of retried forever; they are leaves still,
 * as every valid event is (docs/integrity.md "Leaf order"). Nothing is committed until the whole write succeeded.
 */
export function retryingFlush(deps: FlushDeps, logger: Logger) {
  return async (records: ConsumedRecord[]) => {
    const { events, sources, deadLetters, origins } = projectBatch(records, deps.codec);
    const partitions = partitionKeys(records);
    await retry(logger, 'dead letters', deps, () => deps.deadLetters.publish(deadLetters));
    if (deadLetters.length > 0) logger.warn({ count: deadLetters.length }, 'records dead-lettered');
    const trees = deps.trees;
    const appended = trees
      ? retry(logger, 'trees', deps, () => trees.append(treeBatch(records, events, sources)))
      : undefined;
    // Asked afresh at each attempt, after its wait: a join may come while the write waits.
    let sinceJoin = deps.firstSinceJoin(partitions);
    const stored = retry(logger, 'store', deps, async (attempt) => {
      // After a failure the insert may still be running in ClickHouse: the lookup must see its result.
      await (attempt === 0 ? deps.settledSinceJoin() : deps.sink.insertsSettled());
      sinceJoin = deps.firstSinceJoin(partitions);
      const storable = await deps.retention(events);
      if (storable.length < events.length) {
        logger.info({ count: events.length - storable.length }, 'events under a purge horizon not stored');
      }
      return storeOrRefuse(storable, {
        // A failed write may have died half way in the server: a retry also looks in the events table, and so
        // does the first write after a join (the previous owner may have given up on a torn write).
        store: (some, afterFailure) =>
          deps.target(
            (tables) =>
              storeEvents(
                some,
                deps.sink.on(tables),
                undefined,
                attempt > 0 || afterFailure || sinceJoin.first,
              ),
            deps.shouldStop,
          ),
        permanent: permanentInsertError,
        stopping: deps.shouldStop,
      });
    });
    // Both settle before either's failure is thrown: a write given up must not leave a step running behind it.
    const [store, tree] = await Promise.allSettled([stored, appended]);
    if (store.status === 'rejected') throw store.reason;
    if (tree.status === 'rejected') throw tree.reason;
    // A write of dead letters alone looked nothing up: the partitions' next write still checks for a torn one.
    if (events.length > 0) sinceJoin.written();
    const { outcome, refused } = store.value;
    const storeLetters: DeadLetter[] = refused.map(({ event, error }) => ({
      record: origins.get(idKey(event))!,
      stage: 'store',
      error,
    }));
    if (storeLetters.length > 0) {
      await retry(logger, 'dead letters', deps, () => deps.deadLetters.publish(storeLetters));
      logger.error(
        { count: storeLetters.length, reason: storeLetters[0]!.error },
        'ClickHouse refused records',
      );
    }
    const letters = [...deadLetters, ...storeLetters];
    deps.meter.flushed({ records: records.length, deadLetters: letters, outcome });
    logger.debug({ ...outcome, records: records.length, deadLettered: letters.length }, 'flushed');
  };
}
