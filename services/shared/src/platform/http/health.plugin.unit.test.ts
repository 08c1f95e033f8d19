import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { registerHealth } from './health.plugin.js';
import { createHttpServer } from './server.js';

describe('registerHealth', () => {
  it('asks its dependencies at most once a second, however many probes call at once', async () => {
    let now = 0;
    const asked = { postgres: 0, kafka: 0 };
    let kafkaUp = true;
    const app = createHttpServer(createLogger('test', 'silent'));
    registerHealth(
      app,
      {
        postgres: async () => void asked.postgres++,
        kafka: async () => {
          asked.kafka += 1;
          if (!kafkaUp) throw new Error('ECONNREFUSED');
        },
      },
      { clock: () => now },
    );
    const probes = await Promise.all(Array.from({ length: 20 }, () => app.inject({ url: '/readyz' })));
    expect(probes.every((res) => res.statusCode === 200)).toBe(true);
    expect(asked).toEqual({ postgres: 1, kafka: 1 });

    kafkaUp = false;
    now = 999;
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    now = 1000;
    const down = await app.inject({ url: '/readyz' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({ status: 'not_ready', checks: { postgres: 'ok', kafka: 'failed' } });
    expect(asked).toEqual({ postgres: 2, kafka: 2 });
  });
});
