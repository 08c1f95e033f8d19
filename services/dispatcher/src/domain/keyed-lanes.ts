import { Fifo } from './fifo.js';

/**
 * Work per key (an endpoint) with a concurrency limit per key: a slow or dead endpoint fills only its own lane,
 * so it never delays deliveries to the others. A task may hand its place in the lane back before it ends (once
 * its request is over, while its bookkeeping is still being stored); `size` counts queued and unfinished work
 * across all lanes until each task ends, so back-pressure still covers that bookkeeping.
 */
export class KeyedLanes {
  private readonly lanes = new Map<
    string,
    { running: number; queue: Fifo<() => void>; progressAt: number }
  >();
  private waiters: { below: number; resolve: () => void }[] = [];
  size = 0;

  constructor(
    private readonly perKey: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** `task` may call `release` to free its place in the lane early; it is freed when the task ends otherwise. */
  run(key: string, task: (release: () => void) => Promise<void>): Promise<void> {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { running: 0, queue: new Fifo(), progressAt: this.clock() }));
    const l = lane;
    this.size += 1;
    return new Promise<void>((resolve) => {
      const start = () => {
        l.running += 1;
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          l.running -= 1;
          l.progressAt = this.clock();
          const next = l.queue.shift();
          if (next) next();
          else if (l.running === 0 && this.lanes.get(key) === l) this.lanes.delete(key);
        };
        void task(release)
          .catch(() => undefined)
          .finally(() => {
            release();
            this.size -= 1;
            this.wake();
            resolve();
          });
      };
      if (l.running < this.perKey) start();
      else l.queue.push(start);
    });
  }

  /**
   * The key's lane is stuck: at least `waiting` pieces of work wait, and none of its running work has ended for
   * `stalledMs`. A busy but healthy endpoint finishes work all the time, so it is never called stuck.
   */
  stuck(key: string, waiting: number, stalledMs: number): boolean {
    const lane = this.lanes.get(key);
    return !!lane && lane.queue.length >= waiting && this.clock() - lane.progressAt >= stalledMs;
  }

  /** Resolves once less than `below` pieces of work are queued or running (back-pressure for the consumers). */
  whenBelow(below: number): Promise<void> {
    if (this.size < below) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ below, resolve }));
  }

  private wake() {
    if (this.waiters.length === 0) return;
    this.waiters = this.waiters.filter((w) => (this.size < w.below ? (w.resolve(), false) : true));
  }
}
