import { retryWithBackoff } from './retry.js';
import { loggableError, type Logger } from './logger.js';

export interface WaitOptions {
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** True ends the waiting: the failure is thrown. */
  stopping?: () => boolean;
}

/** A start-up step begun, or tried again, once the service is stopping: nothing after it runs. */
export class StartupStoppedError extends Error {
  constructor(what: string) {
    super(`the start-up was stopped while it waited for ${what}`);
    this.name = 'StartupStoppedError';
  }
}

/**
 * Runs a start-up step (a migration, a connection, a topic check) until it succeeds, with backoff: a service
 * started before its dependencies waits for them instead of crashing, and says what it waits for.
 */
export async function untilAvailable<T>(
  what: string,
  step: () => Promise<T>,
  logger: Logger,
  options: WaitOptions = {},
): Promise<T> {
  let failures = 0;
  const result = await retryWithBackoff(step, {
    firstDelayMs: options.firstDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 5000,
    stopping: options.stopping,
    failed: (err, attempt, delayMs) => {
      failures += 1;
      logger.warn(
        { dependency: what, attempt: attempt + 1, retry_in_ms: delayMs, err: loggableError(err) },
        'waiting for a dependency',
      );
    },
  });
  if (failures > 0) logger.info({ dependency: what, attempts: failures + 1 }, 'dependency available');
  return result;
}

/** What a service's HTTP listener needs to know about its start-up (`registerStartupGate`). */
export interface StartupState {
  readonly done: boolean;
  /** The dependency the running step needs; null between steps and once done. */
  readonly waitingFor: string | null;
}

/**
 * The start-up of a service that listens before its dependencies answer: its steps run through `untilAvailable`,
 * and the listener reports which one it waits for. Once the service is stopping, no further step begins (nor
 * does a retry: the step throws StartupStoppedError), so a signal during the wait does not race a half-started
 * service against its shutdown.
 */
export class Startup implements StartupState {
  private finished = false;
  private stopped = false;
  private current: string | null = null;
  private readonly began = Date.now();

  constructor(
    private readonly logger: Logger,
    private readonly options: WaitOptions = {},
  ) {}

  get done(): boolean {
    return this.finished;
  }

  get waitingFor(): string | null {
    return this.current;
  }

  async step<T>(what: string, step: () => Promise<T>): Promise<T> {
    this.current = what;
    const attempt = () => (this.stopped ? Promise.reject(new StartupStoppedError(what)) : step());
    const result = await untilAvailable(what, attempt, this.logger, {
      ...this.options,
      stopping: () => this.stopped,
    });
    this.current = null;
    return result;
  }

  finish(): void {
    this.finished = true;
    this.logger.info({ startup_ms: Date.now() - this.began }, 'started');
  }

  stop(): void {
    this.stopped = true;
  }
}
