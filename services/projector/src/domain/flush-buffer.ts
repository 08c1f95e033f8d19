export interface FlushBufferOptions<T> {
  /** Flush as soon as this many items wait. */
  maxItems: number;
  /** Flush at the latest this long after the first item arrived. */
  maxDelayMs: number;
  /**
   * Flush once nothing arrived for this long: the partitions of one fetch arrive together, so a short quiet
   * spell means the fetch is complete and waiting longer would only idle the pipeline.
   */
  idleMs: number;
  /**
   * An idle flush waits until this long after the previous flush began: a trickle of tiny fetches must not turn
   * into a stream of tiny inserts (every insert is a new part ClickHouse has to merge).
   */
  minIntervalMs: number;
  flush: (items: T[]) => Promise<void>;
}

interface Waiter<T> {
  items: readonly T[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Gathers the batches of several partitions into one sink write, flushed by size or by time. Each `add` settles
 * when the write that carried its items settled, so its caller commits offsets only after the sink acknowledged.
 */
export class FlushBuffer<T> {
  private waiting: Waiter<T>[] = [];
  private count = 0;
  private deadline: NodeJS.Timeout | undefined;
  private idle: NodeJS.Timeout | undefined;
  private lastFlushAt = -Infinity;

  constructor(private readonly options: FlushBufferOptions<T>) {}

  add(items: readonly T[]): Promise<void> {
    const settled = new Promise<void>((resolve, reject) => this.waiting.push({ items, resolve, reject }));
    this.count += items.length;
    if (this.count >= this.options.maxItems) {
      this.flushNow();
    } else {
      this.deadline ??= setTimeout(() => this.flushNow(), this.options.maxDelayMs);
      this.armIdle(this.options.idleMs);
    }
    return settled;
  }

  private armIdle(ms: number): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      const wait = this.lastFlushAt + this.options.minIntervalMs - Date.now();
      if (wait > 0) this.armIdle(wait);
      else this.flushNow();
    }, ms);
  }

  /** Writes whatever waits now (used on shutdown so no caller waits for the timer). */
  flushNow(): void {
    clearTimeout(this.deadline);
    clearTimeout(this.idle);
    this.deadline = undefined;
    this.idle = undefined;
    const waiters = this.waiting;
    if (waiters.length === 0) return;
    this.lastFlushAt = Date.now();
    this.waiting = [];
    this.count = 0;
    this.options.flush(waiters.flatMap((w) => w.items)).then(
      () => waiters.forEach((w) => w.resolve()),
      (err: unknown) => waiters.forEach((w) => w.reject(err)),
    );
  }
}
