interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export interface CoalescingWriterOptions {
  /** Most items in one write. */
  maxBatch: number;
  /**
   * True for an error that one bad item causes (a value the database refuses): the items of that write are then
   * written one by one, so the bad one fails alone instead of failing every write it would join again.
   */
  isolate?: (err: unknown) => boolean;
}

/**
 * Writes items one write at a time, with everything that arrived while a write was in flight joined into the
 * next one (up to `maxBatch`): under load one round trip carries many items, when idle an item is written at
 * once. Each caller settles with the write that carried its item, so it is told "stored" only once it is.
 * `write` answers one result per item, in the items' order.
 */
export class CoalescingWriter<T, R = void> {
  private queue: Pending<T, R>[] = [];
  private draining = false;

  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly options: CoalescingWriterOptions,
  ) {}

  /** Settles with the item's result once its write succeeded; rejects with that write's error (retry it). */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        // Items added in the same turn of the event loop go out together.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      try {
        const results = await this.write(batch.map((p) => p.item));
        batch.forEach((p, i) => p.resolve(results[i]!));
      } catch (err) {
        if (batch.length > 1 && this.options.isolate?.(err)) await this.oneByOne(batch);
        else batch.forEach((p) => p.reject(err));
      }
    }
    this.draining = false;
  }

  private async oneByOne(batch: Pending<T, R>[]): Promise<void> {
    for (const p of batch) {
      try {
        p.resolve((await this.write([p.item]))[0]!);
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
