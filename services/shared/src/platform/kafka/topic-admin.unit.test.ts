import { KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaSettled } from './topic-admin.js';

const notHosted = () =>
  new KafkaJSProtocolError({
    message: 'This server does not host this topic-partition',
    type: 'UNKNOWN_TOPIC_OR_PARTITION',
    code: 3,
    retriable: true,
  } as unknown as Error);

describe('kafkaSettled', () => {
  it('runs a step again while a broker does not know a topic yet', async () => {
    let calls = 0;
    const partitions = await kafkaSettled(async () => {
      calls += 1;
      if (calls < 2) throw notHosted();
      return 12;
    });
    expect({ partitions, calls }).toEqual({ partitions: 12, calls: 2 });
  });

  it('gives up at once on what retrying cannot mend', async () => {
    let calls = 0;
    await expect(
      kafkaSettled(async () => {
        calls += 1;
        throw new KafkaJSNonRetriableError('no');
      }),
    ).rejects.toThrow('no');
    expect(calls).toBe(1);
  });
});
