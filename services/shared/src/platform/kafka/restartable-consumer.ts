import type { Consumer } from 'kafkajs';
import type { Logger } from '../logger.js';
import { retryWithBackoff } from '../retry.js';

export interface Running {
  stop(): Promise<unknown>;
}

export interface RestartableOptions {
  /** What runs, for the log: "the live pipeline", "the events consumer". */
  what: string;
  logger: Logger;
  /** True once the service stops: nothing starts again after that. */
  stopping: () => boolean;
  /** Ends the process: a consumer that does not start again leaves a state nothing here can tell. */
  fatal: (err: unknown, message: string) => never;
}

/**
 * Calls `givenUp` when kafkajs stops a consumer for good: after some errors it does not start it again (the group
 * coordinator not found through a broker outage, which it calls non-retriable), and the consumer would idle.
 */
export function whenGivenUp(
  consumer: Consumer,
  givenUp: (err: Error) => void,
  stopping: () => boolean,
): void {
  consumer.on(consumer.events.CRASH, (e) => {
    if (!e.payload.restart && !stopping()) givenUp(e.payload.error);
  });
}

/**
 * A consumer that is started again: when a growth of the audit topic gives it a generation to read
 * (docs/topic-growth.md "Consumers"), or when kafkajs gave it up (docs/operations.md "Outages"). Restarts take
 * turns; a start that fails is retried with backoff until the service stops.
 */
export class RestartableConsumer<T extends Running> {
  private running: Promise<T | undefined> = Promise.resolve(undefined);
  private current: T | undefined;
  private turns: Promise<void> = Promise.resolve();

  constructor(
    private readonly start: () => Promise<T>,
    private readonly options: RestartableOptions,
  ) {}

  /** The first start; `first` says how it is tried (a start-up step retries it, by default it is tried once). */
  async begin(first: (start: () => Promise<T>) => Promise<T> = (start) => start()): Promise<T> {
    const running = first(this.start);
    this.running = running;
    this.current = await running;
    return this.current;
  }

  /** The consumer running now; none while one stops or starts. */
  get(): T | undefined {
    return this.current;
  }

  /** Stops the running consumer and starts another; `stopped` (a growth watch that stops) ends it too. */
  restart(stopped: () => boolean = () => false): Promise<void> {
    this.turns = this.turns.then(() => this.restartNow(stopped));
    return this.turns;
  }

  /** Stops the running consumer, also one still starting (its group would wait for it otherwise). */
  async stop(): Promise<void> {
    const running = await this.running.catch(() => undefined);
    this.current = undefined;
    await running?.stop();
  }

  private async restartNow(stopped: () => boolean): Promise<void> {
    const ended = () => this.options.stopping() || stopped();
    try {
      const previous = await this.running.catch(() => undefined);
      this.current = undefined;
      // A shutdown meanwhile waits for this stop, as for a running consumer's.
      const stopped = Promise.resolve(previous?.stop());
      this.running = stopped.then(
        () => undefined,
        () => undefined,
      );
      await stopped;
      if (ended()) return;
      const running = retryWithBackoff(this.start, { firstDelayMs: 500, maxDelayMs: 5000, stopping: ended });
      this.running = running;
      this.current = await running;
      this.options.logger.info({ consumer: this.options.what }, 'consumer started again');
    } catch (err) {
      if (ended()) return;
      this.options.fatal(err, `${this.options.what} did not start again; stopping`);
    }
  }
}
