import { setImmediate } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { allowList, DEFAULT_WEBHOOK_PORTS } from './target-policy.js';
import type { Resolve } from './webhook-target.js';
import { httpReceiver, type Handler, type LoopbackServer } from '../test-support/loopback-servers.js';
import { webhookClient, type WebhookClient } from './webhook.client.js';

const rules = { allowHttp: true, allowed: allowList(['127.0.0.0/8']), ports: DEFAULT_WEBHOOK_PORTS };
const noNames: Resolve = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};
const body = Buffer.from('{"type":"phi.read","id":"9b2c…","details":{"note":"é"}}');
const signature = 't=1700000000,v1=' + 'ab'.repeat(32);
const headers = { 'x-service-signature': signature };

const open: (LoopbackServer | WebhookClient)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

function client(timeoutMs = 5000, connectionsPerEndpoint?: number) {
  const c = webhookClient({ timeoutMs, rules, resolve: noNames, connectionsPerEndpoint });
  open.push(c);
  return c;
}
async function receiver(handle: Handler) {
  const r = await httpReceiver(handle);
  open.push(r);
  return { ...r, url: `http://127.0.0.1:${r.port}` };
}
const answer = (status: number, headers: Record<string, string> = {}): Handler => {
  return (_req, res) => res.writeHead(status, headers).end('ok');
};

describe('webhookClient delivery', () => {
  it('POSTs the exact body bytes with the signature and succeeds on a 2xx', async () => {
    const target = await receiver(answer(204));
    const result = await client().send({
      endpointId: 'wh_test',
      url: `${target.url}/hook?v=1`,
      body,
      headers,
    });
    expect(result).toMatchObject({ ok: true, status: 204 });
    const [got] = target.received;
    expect(got?.method).toBe('POST');
    expect(got?.url).toBe('/hook?v=1');
    expect(got?.body.equals(body)).toBe(true);
    expect(got?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-signature': signature,
      'user-agent': expect.stringContaining('audit-trail-service'),
      host: `127.0.0.1:${target.port}`,
      'content-length': String(body.length),
    });
  });

  it('fails on a redirect and never follows it', async () => {
    const elsewhere = await receiver(answer(200));
    const target = await receiver(answer(302, { location: `${elsewhere.url}/stolen` }));
    const result = await client().send({ endpointId: 'wh_test', url: target.url, body, headers });
    expect(result).toMatchObject({ ok: false, status: 302, error: 'status 302 (redirect, not followed)' });
    expect(elsewhere.connections()).toBe(0);
  });

  it('fails on a 500', async () => {
    const target = await receiver(answer(500));
    expect(await client().send({ endpointId: 'wh_test', url: target.url, body, headers })).toMatchObject({
      ok: false,
      status: 500,
      error: 'status 500',
    });
  });

  it('fails with a timeout when the receiver never answers', async () => {
    const target = await receiver(() => {});
    const result = await client(300).send({ endpointId: 'wh_test', url: target.url, body, headers });
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout after 300 ms' });
  });

  it('fails with connection refused when nothing listens', async () => {
    const target = await receiver(answer(200));
    await target.close();
    const result = await client().send({ endpointId: 'wh_test', url: target.url, body, headers });
    expect(result).toMatchObject({ ok: false, status: null, error: 'connection refused' });
  });

  it('reads at most the limit of an endless response body, then drops the connection', async () => {
    const cap = 256 * 1024 * 1024;
    let written = 0;
    let closed!: () => void;
    const socketClosed = new Promise<void>((resolve) => (closed = resolve));
    const target = await receiver((_req, res) => {
      res.writeHead(200);
      res.on('close', closed);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (written < cap && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const result = await client().send({ endpointId: 'wh_test', url: target.url, body, headers });
    expect(result).toMatchObject({ ok: true, status: 200 });
    await socketClosed;
    // What the kernel buffered on both sides may be a few MB; draining would have taken all 256.
    expect(written).toBeLessThan(cap / 8);
  });

  it('reuses one kept-alive connection for sequential deliveries', async () => {
    const target = await receiver(answer(200));
    const c = client();
    for (let i = 0; i < 5; i++) {
      expect((await c.send({ endpointId: 'wh_test', url: target.url, body, headers })).ok).toBe(true);
      // undici hands a connection back to its pool one event-loop turn after the response ends (on purpose:
      // a server may close it anyway); a send in that same turn would open a second connection.
      await setImmediate();
    }
    expect(target.connections()).toBe(1);
  });

  it.each(['another origin', 'the same origin'])(
    'lets a fast delivery pass a slow one to %s',
    async (where) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let arrived!: () => void;
      const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
      const handle: Handler = (req, res) => {
        if (req.url !== '/slow') return void res.writeHead(200).end();
        arrived();
        void released.then(() => res.writeHead(200).end());
      };
      const slowTarget = await receiver(handle);
      const fastTarget = where === 'the same origin' ? slowTarget : await receiver(handle);
      const c = client();
      const finished: string[] = [];
      const slow = c
        .send({ endpointId: 'wh_test', url: `${slowTarget.url}/slow`, body, headers })
        .then((r) => {
          finished.push('slow');
          return r;
        });
      await slowArrived;
      expect(
        await c.send({ endpointId: 'wh_test', url: `${fastTarget.url}/fast`, body, headers }),
      ).toMatchObject({ ok: true });
      finished.push('fast');
      release();
      expect(await slow).toMatchObject({ ok: true });
      expect(finished).toEqual(['fast', 'slow']);
    },
  );

  it("keeps an endpoint's connections its own: one that hangs on all of them leaves another of its host free", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const target = await receiver((req, res) => {
      if (req.url === '/hangs') void released.then(() => res.writeHead(200).end());
      else res.writeHead(200).end();
    });
    const c = client(5000, 2);
    const hanging = Array.from({ length: 4 }, () =>
      c.send({ endpointId: 'wh_hangs', url: `${target.url}/hangs`, body, headers }),
    );
    const healthy = await c.send({ endpointId: 'wh_healthy', url: `${target.url}/ok`, body, headers });
    expect(healthy).toMatchObject({ ok: true });
    expect(target.connections()).toBe(3);
    release();
    expect((await Promise.all(hanging)).every((r) => r.ok)).toBe(true);
  });
});
