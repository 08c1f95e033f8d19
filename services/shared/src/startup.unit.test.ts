import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { untilAvailable } from './startup.js';

const logger = createLogger('test', 'silent');

describe('untilAvailable', () => {
  it('retries a failing step until it succeeds, and returns its result', async () => {
    let calls = 0;
    const result = await untilAvailable(
      'postgres',
      async () => {
        calls += 1;
        if (calls < 3) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        return 'connected';
      },
      logger,
      { firstDelayMs: 1, maxDelayMs: 2 },
    );
    expect(result).toBe('connected');
    expect(calls).toBe(3);
  });

  it('runs a step that succeeds once', async () => {
    let calls = 0;
    await untilAvailable('kafka', async () => void calls++, logger);
    expect(calls).toBe(1);
  });
});
