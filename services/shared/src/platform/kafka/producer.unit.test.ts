import { describe, expect, it } from 'vitest';
import type { Kafka, Producer, ProducerRecord } from 'kafkajs';
import { DurableProducer } from './producer.js';

function fakeKafka(outcomes: ('ok' | 'fail')[], connects: ('ok' | 'fail')[] = []) {
  const made: { id: number; sends: number; disconnected: boolean }[] = [];
  const kafka = {
    producer: () => {
      const state = { id: made.length, sends: 0, disconnected: false };
      made.push(state);
      return {
        connect: async () => {
          if (connects.shift() === 'fail') throw new Error('connect ECONNREFUSED');
        },
        disconnect: async () => {
          state.disconnected = true;
        },
        send: async (_record: ProducerRecord) => {
          state.sends++;
          if (outcomes.shift() === 'fail') throw new Error('request timed out');
          return [];
        },
      } as unknown as Producer;
    },
  } as unknown as Pick<Kafka, 'producer'>;
  return { kafka, made };
}

const record = { topic: 't', messages: [{ value: 'x' }] };

describe('DurableProducer', () => {
  it('keeps one producer while sends succeed', async () => {
    const { kafka, made } = fakeKafka(['ok', 'ok']);
    const producer = new DurableProducer(kafka);
    await producer.send(record);
    await producer.send(record);
    expect(made.map((m) => m.sends)).toEqual([2]);
  });

  it('sends the next records with a new producer (fresh sequence numbers) after a failure', async () => {
    const { kafka, made } = fakeKafka(['ok', 'fail', 'ok']);
    const producer = new DurableProducer(kafka);
    await producer.send(record);
    await expect(producer.send(record)).rejects.toThrow('request timed out');
    await producer.send(record);
    expect(made.map((m) => [m.sends, m.disconnected])).toEqual([
      [2, true],
      [1, false],
    ]);
  });

  it('connects with a new producer when called again after a failed connection (start-up waits for Kafka)', async () => {
    const { kafka, made } = fakeKafka(['ok'], ['fail', 'fail', 'ok']);
    const producer = new DurableProducer(kafka);
    await expect(producer.connect()).rejects.toThrow('ECONNREFUSED');
    await expect(producer.connect()).rejects.toThrow('ECONNREFUSED');
    await producer.connect();
    await producer.send(record);
    expect(made.map((m) => [m.sends, m.disconnected])).toEqual([
      [0, true],
      [0, true],
      [1, false],
    ]);
  });
});
