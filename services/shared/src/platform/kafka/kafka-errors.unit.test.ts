import {
  KafkaJSAggregateError,
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { tooFewBrokersError, transientKafkaError } from './kafka-errors.js';

const notHosted = () =>
  new KafkaJSProtocolError({
    message: 'This server does not host this topic-partition',
    type: 'UNKNOWN_TOPIC_OR_PARTITION',
    code: 3,
    retriable: true,
  } as unknown as Error);

describe('transientKafkaError', () => {
  it('is true for a retriable protocol error and a connection error', () => {
    expect(transientKafkaError(notHosted())).toBe(true);
    expect(transientKafkaError(new KafkaJSConnectionError('Connection error: ECONNREFUSED'))).toBe(true);
  });

  it('looks through kafkajs giving up after its own retries', () => {
    const gaveUp = new KafkaJSNumberOfRetriesExceeded(notHosted(), { retryCount: 8, retryTime: 5000 });
    expect(gaveUp.retriable).toBe(false);
    expect(transientKafkaError(gaveUp)).toBe(true);
  });

  it('is false for what retrying cannot mend', () => {
    const invalid = new KafkaJSProtocolError({
      message: 'Replication factor is larger than the number of brokers',
      type: 'INVALID_REPLICATION_FACTOR',
      code: 38,
      retriable: false,
    } as unknown as Error);
    expect(transientKafkaError(invalid)).toBe(false);
    expect(transientKafkaError(new KafkaJSNonRetriableError('no'))).toBe(false);
    expect(transientKafkaError(new Error('ECONNREFUSED'))).toBe(false);
    expect(transientKafkaError('text')).toBe(false);
  });
});

describe('tooFewBrokersError', () => {
  const tooFew = () =>
    new KafkaJSProtocolError({
      message: 'Replication factor: 3 larger than available brokers: 1.',
      type: 'INVALID_REPLICATION_FACTOR',
      code: 38,
      retriable: false,
    } as unknown as Error);

  it('is true for a topic refused for want of brokers, alone or among several topics’ errors', () => {
    expect(tooFewBrokersError(tooFew())).toBe(true);
    expect(tooFewBrokersError(new KafkaJSAggregateError('Topic creation errors', [tooFew()]))).toBe(true);
    const gaveUp = new KafkaJSNumberOfRetriesExceeded(tooFew(), { retryCount: 5, retryTime: 1000 });
    expect(tooFewBrokersError(gaveUp)).toBe(true);
  });

  it('is false for other errors', () => {
    expect(tooFewBrokersError(notHosted())).toBe(false);
    expect(tooFewBrokersError(new KafkaJSAggregateError('Topic creation errors', [notHosted()]))).toBe(false);
    expect(tooFewBrokersError(new Error('INVALID_REPLICATION_FACTOR'))).toBe(false);
  });
});
