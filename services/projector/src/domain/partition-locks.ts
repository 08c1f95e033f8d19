/**
 * One write at a time per partition. A write carries the batches of several partitions; the next write of any of
 * them waits until the earlier one settled. Within one process two writes of one partition can otherwise overlap:
 * after the Kafka client restarts its consumer (a crash it recovers from), the batch still being written is
 * fetched and handed over again, and the two writes of one tenant's events would race (one repairing the summary
 * while the other inserts).
 */
export class PartitionLocks {
  private readonly held = new Map<string, Promise<void>>();

  async run<T>(partitions: readonly string[], write: () => Promise<T>): Promise<T> {
    for (;;) {
      const busy = partitions.flatMap((p) => this.held.get(p) ?? []);
      if (busy.length === 0) break;
      await Promise.all(busy);
    }
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    for (const p of partitions) this.held.set(p, done);
    try {
      return await write();
    } finally {
      for (const p of partitions) if (this.held.get(p) === done) this.held.delete(p);
      release();
    }
  }
}
