import { onShutdown } from '../platform/shutdown.js';
import { createServiceHost, type ServiceHost } from './service-host.js';

/** A service: what it builds and starts in its host (tests run it in a host of their own). */
export type Service = (host: ServiceHost) => Promise<void>;

/** Runs a service as its process: in a host of its own, stopped on SIGINT or SIGTERM (onShutdown). */
export async function runService(name: string, logLevel: string, service: Service): Promise<void> {
  const host = createServiceHost({ name, logLevel });
  // Installed before anything waits, so a signal during the start-up also stops the process cleanly.
  onShutdown(host.logger, () => host.stop());
  try {
    await service(host);
  } catch (err) {
    // A start-up cut short by the shutdown (StartupStoppedError, or a step's failure then) ends with it.
    if (!host.stopping()) throw err;
  }
}
