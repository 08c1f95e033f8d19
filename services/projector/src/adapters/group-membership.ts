import type { EventSink } from '../domain/store-events.js';

// Heartbeat answers that mean this consumer no longer owns its partitions, or must rejoin before it does again.
const LOST = new Set([
  'UNKNOWN_MEMBER_ID',
  'ILLEGAL_GENERATION',
  'REBALANCE_IN_PROGRESS',
  'FENCED_INSTANCE_ID',
]);

/**
 * What the write path must know about the consumer group: whether retrying is still safe (another consumer may
 * own the partitions now), whether inserts left running by a previous owner have finished since we joined, and
 * which partitions were not written yet since then.
 */
export class GroupMembership {
  private lost = false;
  private settled: Promise<void> | undefined;
  private joins = 0;
  private written = new Set<string>();

  constructor(private readonly sink: Pick<EventSink, 'insertsSettled'>) {}

  joined(): void {
    this.lost = false;
    this.settled = undefined;
    this.joins += 1;
    this.written = new Set();
  }

  heartbeatFailed(err: unknown): void {
    if (LOST.has((err as { type?: string }).type ?? '')) this.lost = true;
  }

  get isLost(): boolean {
    return this.lost;
  }

  /** Resolves once no insert of ours is running, checked once per group join. */
  settledSinceJoin(): Promise<void> {
    this.settled ??= this.sink.insertsSettled().catch((err: unknown) => {
      this.settled = undefined;
      throw err;
    });
    return this.settled;
  }

  /**
   * Whether a write of these partitions is the first since the last join, and how to record that it succeeded. A
   * previous owner (another process, or this one before a rejoin) may have left a write of theirs torn and given
   * up on it, so the first write after a join looks for what such a write left half done (docs/architecture.md
   * "Exactly-once visible effect"). A write that began before a join does not count for the partitions after it.
   */
  firstSinceJoin(partitions: readonly string[]): { first: boolean; written: () => void } {
    const joins = this.joins;
    return {
      first: partitions.some((p) => !this.written.has(p)),
      written: () => {
        if (joins === this.joins) for (const p of partitions) this.written.add(p);
      },
    };
  }
}
