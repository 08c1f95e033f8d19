/**
 * Work per key (an endpoint) with a concurrency limit per key: a slow or dead endpoint fills only its own lane,
 * so it never delays deliveries to the others. `size` counts queued and running work across all lanes.
 */
export class KeyedLanes {
  private readonly lanes = new Map<string, { running: number; queue: (() => void)[] }>();
  private waiters: { below: number; resolve: () => void }[] = [];
  size = 0;

  constructor(private readonly perKey: number) {}

  run(key: string, task: () => Promise<void>): Promise<void> {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { running: 0, queue: [] }));
    const l = lane;
    this.size += 1;
    return new Promise<void>((resolve) => {
      const start = () => {
        l.running += 1;
        void task()
          .catch(() => undefined)
          .finally(() => {
            l.running -= 1;
            this.size -= 1;
            const next = l.queue.shift();
            if (next) next();
            else if (l.running === 0) this.lanes.delete(key);
            this.wake();
            resolve();
          });
      };
      if (l.running < this.perKey) start();
      else l.queue.push(start);
    });
  }

  /** Resolves once less than `below` pieces of work are queued or running (back-pressure for the consumers). */
  whenBelow(below: number): Promise<void> {
    if (this.size < below) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ below, resolve }));
  }

  private wake() {
    this.waiters = this.waiters.filter((w) => (this.size < w.below ? (w.resolve(), false) : true));
  }
}
