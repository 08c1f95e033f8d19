import { EventEmitter } from 'node:events';
import type { Consumer } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@audit/shared/platform';
import { KeyedLanes } from '../domain/keyed-lanes.js';
import { runTrackedConsumer } from './tracked-consumer.js';

const logger = createLogger('test', 'silent');
const EVENTS = { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash' };

/** A kafkajs consumer as far as the tracked consumer uses it, which, once crashed, refuses what kafkajs refuses. */
function fakeConsumer() {
  const emitter = new EventEmitter();
  const calls: string[] = [];
  let crashed = false;
  const consumer = {
    events: EVENTS,
    on: (event: string, listener: (e: unknown) => void) => emitter.on(event, listener),
    subscribe: async () => void calls.push('subscribe'),
    run: async () => void calls.push('run'),
    pause: () => {
      if (crashed) throw new Error('Consumer group was not initialized');
      calls.push('pause');
    },
    commitOffsets: async () => void calls.push('commit'),
    disconnect: async () => void calls.push('disconnect'),
  };
  const crash = () => {
    crashed = true;
    emitter.emit(EVENTS.CRASH, { payload: { error: new Error('coordinator not found'), restart: false } });
  };
  return { consumer: consumer as unknown as Consumer, calls, crash };
}

const options = (consumer: Consumer, onGivenUp: (err: Error) => void) => ({
  consumer,
  topics: ['t'],
  fromBeginning: () => true,
  concurrency: 1,
  lanes: new KeyedLanes(1),
  maxInFlight: 10,
  commitEveryMs: 60_000,
  graceMs: 10,
  logger,
  onGivenUp,
  handle: async () => true,
});

describe('runTrackedConsumer', () => {
  it('pauses, commits and leaves the group when stopped', async () => {
    const { consumer, calls } = fakeConsumer();
    const tracked = await runTrackedConsumer(options(consumer, () => undefined));
    await tracked.stop();
    expect(calls).toEqual(['subscribe', 'run', 'pause', 'disconnect']);
  });

  it('tells of a consumer kafkajs gave up on, and stops it without pausing what has no group any more', async () => {
    const { consumer, calls, crash } = fakeConsumer();
    const givenUp: string[] = [];
    const tracked = await runTrackedConsumer(options(consumer, (err) => givenUp.push(err.message)));
    crash();
    expect(givenUp).toEqual(['coordinator not found']);
    await tracked.stop();
    expect(calls).toEqual(['subscribe', 'run', 'disconnect']);
  });
});
