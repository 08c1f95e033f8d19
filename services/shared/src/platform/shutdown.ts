import type { Logger } from './logger.js';

/** Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal or a stuck stop exits hard. */
export function onShutdown(logger: Logger, stop: () => Promise<void>, graceMs = 30_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error({ graceMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, graceMs).unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
