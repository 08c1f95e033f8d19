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
 * own the partitions now), and whether inserts left running by a previous owner have finished since we joined.
 */
export class GroupMembership {
  private lost = false;
  private settled: Promise<void> | undefined;

  constructor(private readonly sink: Pick<EventSink, 'insertsSettled'>) {}

  joined(): void {
    this.lost = false;
    this.settled = undefined;
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
}
