import { describe, expect, it } from 'vitest';
import type { Message, ProducerRecord } from 'kafkajs';
import { CoalescingSender, MAX_SEND_BYTES, SendRefusedError } from './coalescing-sender.js';

function fakeProducer() {
  const requests: string[][] = [];
  let release: (() => void)[] = [];
  let failNext = false;
  const producer = {
    send: async (record: ProducerRecord) => {
      requests.push(record.messages.map((m) => String(m.key)));
      await new Promise<void>((r) => release.push(r));
      if (failNext) {
        failNext = false;
        throw new Error('broker down');
      }
      return [];
    },
  };
  return {
    producer,
    requests,
    releaseAll: async () => {
      const pending = release;
      release = [];
      pending.forEach((r) => r());
      await new Promise((r) => setImmediate(r));
    },
    failNextRequest: () => {
      failNext = true;
    },
  };
}

const msg = (key: string, bytes = 10): Message => ({ key, value: Buffer.alloc(bytes) });

describe('CoalescingSender', () => {
  it('joins everything that arrives during a request into the next one', async () => {
    const fake = fakeProducer();
    const sender = new CoalescingSender(fake.producer, 'topic', {
      maxQueuedBytes: 64 * MAX_SEND_BYTES,
      maxWaitMs: 60_000,
    });
    const a = sender.send([msg('a')]);
    const b = sender.send([msg('b1'), msg('b2')]);
    const c = sender.send([msg('c')]);
    expect(fake.requests).toEqual([['a']]);
    await fake.releaseAll();
    await a;
    expect(fake.requests).toEqual([['a'], ['b1', 'b2', 'c']]);
    await fake.releaseAll();
    await Promise.all([b, c]);
  });

  it('splits one oversized submission and settles it once every part is acknowledged', async () => {
    const fake = fakeProducer();
    const sender = new CoalescingSender(fake.producer, 'topic', {
      maxQueuedBytes: 64 * MAX_SEND_BYTES,
      maxWaitMs: 60_000,
    });
    let settled = false;
    const big = sender.send([msg('p1', MAX_SEND_BYTES - 100), msg('p2', MAX_SEND_BYTES - 100)]).then(() => {
      settled = true;
    });
    await fake.releaseAll();
    expect(settled).toBe(false);
    await fake.releaseAll();
    await big;
    expect(fake.requests).toEqual([['p1'], ['p2']]);
  });

  it('keeps each request under the size cap', async () => {
    const fake = fakeProducer();
    const sender = new CoalescingSender(fake.producer, 'topic', {
      maxQueuedBytes: 64 * MAX_SEND_BYTES,
      maxWaitMs: 60_000,
    });
    const half = MAX_SEND_BYTES / 2;
    const first = sender.send([msg('x')]);
    const rest = [
      sender.send([msg('big1', half)]),
      sender.send([msg('big2', half)]),
      sender.send([msg('small')]),
    ];
    await fake.releaseAll();
    await first;
    await fake.releaseAll();
    await fake.releaseAll();
    await Promise.all(rest);
    expect(fake.requests).toEqual([['x'], ['big1'], ['big2', 'small']]);
  });

  it('rejects only the callers of a failed request', async () => {
    const fake = fakeProducer();
    const sender = new CoalescingSender(fake.producer, 'topic', {
      maxQueuedBytes: 64 * MAX_SEND_BYTES,
      maxWaitMs: 60_000,
    });
    const firstFails = expect(sender.send([msg('a')])).rejects.toThrow('broker down');
    fake.failNextRequest();
    await fake.releaseAll();
    await firstFails;
    const second = sender.send([msg('b')]);
    await fake.releaseAll();
    await expect(second).resolves.toBeUndefined();
  });

  it('refuses at once what would exceed the queued-bytes cap', async () => {
    const fake = fakeProducer();
    const sender = new CoalescingSender(fake.producer, 'topic', { maxQueuedBytes: 1000, maxWaitMs: 60_000 });
    const first = sender.send([msg('a', 500)]);
    const second = sender.send([msg('b', 500)]);
    await expect(sender.send([msg('c', 500)])).rejects.toThrow(SendRefusedError);
    await fake.releaseAll();
    await fake.releaseAll();
    await Promise.all([first, second]);
    expect(fake.requests).toEqual([['a'], ['b']]);
  });

  it('drops unsent what waited longer than maxWaitMs (its caller was already told to retry)', async () => {
    const fake = fakeProducer();
    let now = 0;
    const sender = new CoalescingSender(fake.producer, 'topic', {
      maxQueuedBytes: 64 * MAX_SEND_BYTES,
      maxWaitMs: 100,
      now: () => now,
    });
    const first = sender.send([msg('a')]);
    const staleRefused = expect(sender.send([msg('stale')])).rejects.toThrow(SendRefusedError);
    now = 101;
    const fresh = sender.send([msg('fresh')]);
    await fake.releaseAll();
    await first;
    await staleRefused;
    await fake.releaseAll();
    await fresh;
    expect(fake.requests).toEqual([['a'], ['fresh']]);
  });

  it('sends a request again where its route moved when the topic refused it, and fails it where it did not', async () => {
    const sent: string[] = [];
    const sealed = Object.assign(new Error('too large'), { type: 'MESSAGE_TOO_LARGE' });
    const producer = {
      send: async (record: ProducerRecord) => {
        sent.push(record.topic);
        if (record.topic !== 'g2') throw sealed;
        return [];
      },
    };
    let topic = 'g1';
    const route = {
      current: () => topic,
      moved: async (sentTo: string, err: unknown) => {
        if (err !== sealed || sentTo !== 'g1') return false;
        topic = 'g2';
        return true;
      },
    };
    const sender = new CoalescingSender(producer, route, {
      maxQueuedBytes: MAX_SEND_BYTES,
      maxWaitMs: 60_000,
    });
    await sender.send([msg('a')]);
    expect(sent).toEqual(['g1', 'g2']);

    topic = 'g3';
    await expect(sender.send([msg('b')])).rejects.toBe(sealed);
    expect(sent).toEqual(['g1', 'g2', 'g3']);
  });
});
