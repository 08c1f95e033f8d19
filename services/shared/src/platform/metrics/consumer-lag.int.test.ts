import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Kafka, logLevel } from 'kafkajs';
import { uniqueNames } from '../../../../../test/support/names.js';
import { testKafka } from '../../../../../test/support/stack.js';
import { DurableProducer } from '../kafka/producer.js';
import { deleteTopics, ensureTopics } from '../kafka/topic-admin.js';
import { consumerLagSource, fetchConsumerLag, registerConsumerLag } from './consumer-lag.js';
import { Registry } from './metrics.registry.js';

const names = uniqueNames('lagmetric');
const topic = `${names.topicPrefix}lag.test`;
const [behind, neverCommitted] = [`${names.groupId}-behind`, `${names.groupId}-never`];
const kafka = testKafka();
const admin = kafka.admin();
const silent = pino({ level: 'silent' });

beforeAll(async () => {
  await ensureTopics(kafka, [{ name: topic, partitions: 2, config: {} }], 1);
  const producer = new DurableProducer(kafka);
  await producer.connect();
  const messages = (partition: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({ partition, value: `m${i}` }));
  await producer.send({ topic, messages: [...messages(0, 5), ...messages(1, 3)] });
  await producer.disconnect();
  await admin.connect();
  await admin.setOffsets({ groupId: behind, topic, partitions: [{ partition: 0, offset: '2' }] });
});
afterAll(async () => {
  await admin.deleteGroups([behind]).catch(() => undefined);
  await admin.disconnect();
  await deleteTopics(kafka, [topic]);
});

describe('consumer lag from a real broker', () => {
  it('is the end offset minus the committed offset, or every record without a commit', async () => {
    const groups = [
      { groupId: behind, topics: [topic] },
      { groupId: neverCommitted, topics: [topic] },
    ];
    expect(await fetchConsumerLag(admin, groups)).toEqual([
      { group: behind, topic, partition: 0, lag: 3 },
      { group: behind, topic, partition: 1, lag: 3 },
      { group: neverCommitted, topic, partition: 0, lag: 5 },
      { group: neverCommitted, topic, partition: 1, lag: 3 },
    ]);
    const registry = new Registry();
    registerConsumerLag(registry, consumerLagSource(admin, groups, silent));
    expect(await registry.metrics()).toContain(
      `kafka_consumer_lag{group="${behind}",topic="${topic}",partition="0"} 3`,
    );
  });

  it('answers a scrape quickly, without the series, when Kafka cannot be reached', async () => {
    const unreachable = new Kafka({
      clientId: 'lag-test',
      brokers: ['127.0.0.1:1'],
      logLevel: logLevel.NOTHING,
      // Retries outlast the scrape deadline, as the services' own client settings do.
      retry: { retries: 3, initialRetryTime: 500 },
    }).admin();
    const registry = new Registry();
    registerConsumerLag(
      registry,
      consumerLagSource(unreachable, [{ groupId: behind, topics: [topic] }], silent),
    );
    const started = Date.now();
    const text = await registry.metrics();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(text).toContain('# TYPE kafka_consumer_lag gauge');
    expect(text).not.toContain('kafka_consumer_lag{');
  });
});
