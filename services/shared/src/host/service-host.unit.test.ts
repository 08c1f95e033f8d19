import { describe, expect, it } from 'vitest';
import { createLogger } from '../platform/logger.js';
import { StartupStoppedError } from '../platform/startup.js';
import { createServiceHost } from './service-host.js';

const logger = createLogger('test', 'silent');
const exit = (code: number): never => {
  throw new Error(`exit ${code}`);
};
const loopback = { host: '127.0.0.1', port: 0 };
const addressOf = (app: { server: { address(): unknown } }) =>
  `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

describe('service host', () => {
  it('stops what was registered, the latest first, once however often it is asked', async () => {
    const host = createServiceHost({ name: 'test', logLevel: 'silent', logger, exit });
    const order: string[] = [];
    host.onStop(() => order.push('pool'));
    host.onStop(async () => {
      await new Promise((r) => setTimeout(r, 5));
      order.push('consumer');
    });
    host.onStop(() => order.push('timer'));
    expect(host.stopping()).toBe(false);
    await Promise.all([host.stop(), host.stop()]);
    expect(order).toEqual(['timer', 'consumer', 'pool']);
    expect(host.stopping()).toBe(true);
  });

  it('stops one registered while the others stop, and one registered after, at once', async () => {
    const host = createServiceHost({ name: 'test', logLevel: 'silent', logger, exit });
    const order: string[] = [];
    host.onStop(() => order.push('pool'));
    host.onStop(() => host.onStop(() => order.push('registered while stopping')));
    await host.stop();
    expect(order).toEqual(['registered while stopping', 'pool']);
    host.onStop(() => order.push('registered after'));
    await new Promise((r) => setTimeout(r, 0));
    expect(order.at(-1)).toBe('registered after');
  });

  it('serves /healthz while starting, /readyz with what it waits for, then its checks once finished', async () => {
    const host = createServiceHost({ name: 'test', logLevel: 'silent', logger, exit });
    let postgresUp = false;
    const app = await host.serveInternal(loopback, {
      postgres: async () => {
        if (!postgresUp) throw new Error('down');
      },
    });
    const url = addressOf(app);
    let release = () => undefined as void;
    const step = host.step('postgres', () => new Promise<void>((r) => (release = r)));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const starting = await fetch(`${url}/readyz`);
    expect(starting.status).toBe(503);
    expect(await starting.json()).toEqual({ status: 'starting', checks: { postgres: 'failed' } });
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    release();
    await step;
    postgresUp = true;
    host.finish();
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    await host.stop();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('a metrics listener serves /metrics only', async () => {
    const host = createServiceHost({ name: 'test', logLevel: 'silent', logger, exit });
    const app = await host.serveInternal(loopback);
    const url = addressOf(app);
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(404);
    await host.stop();
  });

  it('ends a start-up step waiting for its dependency when the shutdown begins', async () => {
    const host = createServiceHost({ name: 'test', logLevel: 'silent', logger, exit });
    const step = host.step('kafka', () => Promise.reject(new Error('connect ECONNREFUSED')));
    await new Promise((r) => setTimeout(r, 10));
    await host.stop();
    await expect(step).rejects.toThrow();
    await expect(host.step('postgres', async () => 1)).rejects.toBeInstanceOf(StartupStoppedError);
  });

  it('ends through its exit when the service cannot go on', () => {
    const host = createServiceHost({ name: 'test', logLevel: 'silent', logger, exit });
    expect(() => host.fatal(new Error('partition count changed'), 'the trees cannot go on')).toThrow(
      'exit 1',
    );
  });
});
