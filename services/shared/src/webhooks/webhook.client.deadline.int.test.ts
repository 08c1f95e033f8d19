import { afterEach, describe, expect, it } from 'vitest';
import { allowList, DEFAULT_WEBHOOK_PORTS } from './target-policy.js';
import type { Resolve } from './webhook-target.js';
import { httpReceiver, type Handler, type LoopbackServer } from '../test-support/loopback-servers.js';
import { webhookClient, type WebhookClient } from './webhook.client.js';

// The attempt's deadline is an EventEmitter handed to undici as its signal (not an AbortController): these check
// that it still covers every phase, and that an attempt well inside it is not cut short.
const rules = { allowHttp: true, allowed: allowList(['127.0.0.0/8']), ports: DEFAULT_WEBHOOK_PORTS };
const noNames: Resolve = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};
const body = Buffer.from('{"type":"phi.read"}');
const signature = 't=1700000000,v1=' + 'ab'.repeat(32);
const headers = { 'x-service-signature': signature };

const open: (LoopbackServer | WebhookClient)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function receiver(handle: Handler) {
  const r = await httpReceiver(handle);
  open.push(r);
  return `http://127.0.0.1:${r.port}`;
}
function client(timeoutMs: number) {
  const c = webhookClient({ timeoutMs, rules, resolve: noNames });
  open.push(c);
  return c;
}

describe('webhookClient deadline', () => {
  it('times out a response whose headers came but whose body never ends', async () => {
    const url = await receiver((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const started = performance.now();
    const result = await client(300).send({ endpointId: 'wh_test', url, body, headers });
    expect(result).toMatchObject({ ok: false, status: 200, error: 'timeout after 300 ms' });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('times out a name whose resolving never ends', async () => {
    const hanging: Resolve = () => new Promise(() => undefined);
    const c = webhookClient({ timeoutMs: 200, rules, resolve: hanging });
    open.push(c);
    const result = await c.send({ endpointId: 'wh_test', url: 'http://hangs.example/hook', body, headers });
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout after 200 ms' });
  });

  it('leaves many quick deliveries on one client untouched by earlier deadlines', async () => {
    const url = await receiver((_req, res) => res.writeHead(204).end());
    const c = client(150);
    for (let i = 0; i < 5; i++) {
      const results = await Promise.all(
        Array.from({ length: 20 }, () => c.send({ endpointId: 'wh_test', url, body, headers })),
      );
      expect(results.every((r) => r.ok)).toBe(true);
      await new Promise((r) => setTimeout(r, 60));
    }
  });
});
