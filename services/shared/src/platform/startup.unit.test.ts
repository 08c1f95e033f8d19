import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { Startup, StartupStoppedError, untilAvailable } from './startup.js';

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

describe('Startup', () => {
  it('names the dependency its running step waits for, and is done once finished', async () => {
    const startup = new Startup(logger, { firstDelayMs: 1, maxDelayMs: 2 });
    let release!: () => void;
    const available = new Promise<void>((resolve) => (release = resolve));
    let seen: string | null = null;
    const step = startup.step('postgres', async () => {
      seen = startup.waitingFor;
      await available;
    });
    release();
    await step;
    expect(seen).toBe('postgres');
    expect(startup.waitingFor).toBeNull();
    expect(startup.done).toBe(false);
    startup.finish();
    expect(startup.done).toBe(true);
  });

  it('begins no attempt once stopped: the step ends, and a step after it does not begin', async () => {
    const startup = new Startup(logger, { firstDelayMs: 1, maxDelayMs: 2 });
    let calls = 0;
    const first = startup.step('kafka', async () => {
      calls += 1;
      throw new Error('connect ECONNREFUSED');
    });
    await new Promise((r) => setTimeout(r, 20));
    startup.stop();
    const attemptsWhenStopped = calls;
    await expect(first).rejects.toThrow();
    await expect(startup.step('postgres', async () => void calls++)).rejects.toBeInstanceOf(
      StartupStoppedError,
    );
    expect(calls).toBe(attemptsWhenStopped);
  });
});
