import { Fifo } from './fifo.js';

export interface CommitPoint {
  topic: string;
  partition: number;
  offset: string;
}

interface Pending {
  offset: bigint;
  remaining: number;
}

/**
 * Which offsets may be committed while records finish out of order: a partition's commit point is the first
 * record not yet finished, so nothing unfinished is ever committed past (a crash redelivers it instead).
 */
export class OffsetTracker {
  private readonly partitions = new Map<
    string,
    { topic: string; partition: number; queue: Fifo<Pending>; next: bigint | null }
  >();
  private readonly committed = new Map<string, bigint>();

  /** A record read, with how many pieces of work it started; call the returned function once per finished piece. */
  begin(topic: string, partition: number, offset: string, pieces: number): () => void {
    const key = `${topic}\u0000${partition}`;
    let p = this.partitions.get(key);
    if (!p) this.partitions.set(key, (p = { topic, partition, queue: new Fifo(), next: null }));
    const entry: Pending = { offset: BigInt(offset), remaining: pieces };
    p.queue.push(entry);
    const state = p;
    const settle = () => {
      for (let head = state.queue.peek(); head && head.remaining <= 0; head = state.queue.peek()) {
        state.queue.shift();
        state.next = head.offset + 1n;
      }
    };
    settle();
    return () => {
      entry.remaining -= 1;
      settle();
    };
  }

  /** The commit points that moved since they were last committed. */
  commitsDue(): CommitPoint[] {
    const out: CommitPoint[] = [];
    for (const [key, p] of this.partitions) {
      if (p.next === null || this.committed.get(key) === p.next) continue;
      out.push({ topic: p.topic, partition: p.partition, offset: p.next.toString() });
    }
    return out;
  }

  /** Records commit points Kafka accepted; a failed commit leaves them due. */
  committedTo(points: readonly CommitPoint[]): void {
    for (const c of points) this.committed.set(`${c.topic}\u0000${c.partition}`, BigInt(c.offset));
  }

  /** Forgets partitions this consumer no longer owns; their unfinished work will be redone by the new owner. */
  retainOnly(owned: (topic: string, partition: number) => boolean): void {
    for (const [key, p] of this.partitions) {
      if (owned(p.topic, p.partition)) continue;
      this.partitions.delete(key);
      this.committed.delete(key);
    }
  }
}
