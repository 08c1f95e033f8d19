import { describe, expect, it } from 'vitest';
import { deadLetterMessage } from './dead-letter.publisher.js';

const record = (value: Buffer | null) => ({
  topic: 'audit.events.v1',
  partition: 3,
  offset: '42',
  key: Buffer.from('tenant-a'),
  value,
  headers: { origin: 'x' },
});

describe('deadLetterMessage', () => {
  it('keeps key, value and headers, and adds origin and reason', () => {
    const message = deadLetterMessage(
      { record: record(Buffer.from('junk')), stage: 'decode', error: 'bad' },
      7,
    );
    expect(message.key).toEqual(Buffer.from('tenant-a'));
    expect(message.value).toEqual(Buffer.from('junk'));
    expect(message.headers).toEqual({
      origin: 'x',
      'dlq.origin.topic': 'audit.events.v1',
      'dlq.origin.partition': '3',
      'dlq.origin.offset': '42',
      'dlq.stage': 'decode',
      'dlq.error': 'bad',
      'dlq.failed_at': '7',
    });
  });

  it('leaves out a value too large to republish, saying how large it was', () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 1);
    const message = deadLetterMessage({ record: record(big), stage: 'decode', error: 'bad' }, 7);
    expect(message.value).toBeNull();
    expect(message.headers).toMatchObject({
      'dlq.value_omitted_bytes': String(big.length),
      'dlq.origin.offset': '42',
    });
  });
});
