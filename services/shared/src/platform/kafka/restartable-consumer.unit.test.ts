import { EventEmitter } from 'node:events';
import type { Consumer } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { RestartableConsumer, whenGivenUp } from './restartable-consumer.js';

const logger = createLogger('test', 'silent');
const fatal = (_err: unknown, message: string): never => {
  throw new Error(message);
};

/** Consumers started in order, each told when it is stopped. */
function starts() {
  const started: { id: number; stopped: boolean }[] = [];
  const start = async () => {
    const consumer = { id: started.length, stopped: false, stop: async () => void (consumer.stopped = true) };
    started.push(consumer);
    return consumer;
  };
  return { started, start };
}

describe('RestartableConsumer', () => {
  it('stops the running consumer before it starts the next; restarts take turns', async () => {
    const { started, start } = starts();
    const consumer = new RestartableConsumer(start, { what: 'c', logger, stopping: () => false, fatal });
    await consumer.begin();
    await Promise.all([consumer.restart(), consumer.restart()]);
    expect(started.map((c) => c.stopped)).toEqual([true, true, false]);
    expect(consumer.get()).toBe(started[2]);
    await consumer.stop();
    expect(started[2]!.stopped).toBe(true);
    expect(consumer.get()).toBeUndefined();
  });

  it('tries a failed start again until one succeeds', async () => {
    const { started, start } = starts();
    let failures = 2;
    const flaky = async () => {
      if (failures-- > 0) throw new Error('coordinator not available');
      return start();
    };
    const consumer = new RestartableConsumer(flaky, { what: 'c', logger, stopping: () => false, fatal });
    failures = 0;
    await consumer.begin();
    failures = 2;
    await consumer.restart();
    expect(started).toHaveLength(2);
    expect(consumer.get()).toBe(started[1]);
  });

  it('starts none again once the service stops, nor once the restart is called off', async () => {
    const { started, start } = starts();
    let stopping = false;
    const consumer = new RestartableConsumer(start, { what: 'c', logger, stopping: () => stopping, fatal });
    await consumer.begin();
    await consumer.restart(() => true);
    expect(started).toHaveLength(1);
    expect(consumer.get()).toBeUndefined();
    stopping = true;
    await consumer.restart();
    expect(started).toHaveLength(1);
  });

  it('stops one that was still starting once it has started', async () => {
    let release = () => undefined as void;
    const stopped: boolean[] = [];
    const slow = () =>
      new Promise<{ stop(): Promise<void> }>((resolve) => {
        release = () => resolve({ stop: async () => void stopped.push(true) });
      });
    const consumer = new RestartableConsumer(slow, { what: 'c', logger, stopping: () => false, fatal });
    const begun = consumer.begin();
    const stopping = consumer.stop();
    release();
    await begun;
    await stopping;
    expect(stopped).toEqual([true]);
  });
  it('a shutdown during a restart waits until the consumer being replaced has stopped', async () => {
    let release = () => undefined as void;
    const stops: string[] = [];
    const slowStop = {
      stop: () =>
        new Promise<void>((resolve) => {
          release = () => {
            stops.push('old');
            resolve();
          };
        }),
    };
    let stopping = false;
    const consumer = new RestartableConsumer(async () => slowStop, {
      what: 'c',
      logger,
      stopping: () => stopping,
      fatal,
    });
    await consumer.begin();
    const restarting = consumer.restart();
    await new Promise((r) => setTimeout(r, 5));
    stopping = true;
    const stopped = consumer.stop().then(() => stops.push('shutdown done'));
    await new Promise((r) => setTimeout(r, 5));
    expect(stops).toEqual([]);
    release();
    await Promise.all([restarting, stopped]);
    expect(stops).toEqual(['old', 'shutdown done']);
  });
});

describe('whenGivenUp', () => {
  const crash = (emitter: EventEmitter, restart: boolean) =>
    emitter.emit('consumer.crash', { payload: { error: new Error('coordinator'), restart } });

  it('tells of a crash kafkajs does not restart from, unless the consumer is stopping', () => {
    const emitter = new EventEmitter();
    const consumer = Object.assign(emitter, { events: { CRASH: 'consumer.crash' } }) as unknown as Consumer;
    const told: string[] = [];
    let stopping = false;
    whenGivenUp(
      consumer,
      (err) => told.push(err.message),
      () => stopping,
    );
    crash(emitter, true);
    crash(emitter, false);
    stopping = true;
    crash(emitter, false);
    expect(told).toEqual(['coordinator']);
  });
});
