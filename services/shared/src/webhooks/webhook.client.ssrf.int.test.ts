import { createServer, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowList, DEFAULT_WEBHOOK_PORTS } from './target-policy.js';
import type { Resolve } from './webhook-target.js';
import { serversOnOnePort } from '../test-support/loopback-servers.js';
import { guardedConnector } from './guarded-connector.js';
import { REFUSED_TARGET_FAILURE } from './attempt-failure.js';
import { webhookClient, type WebhookClient } from './webhook.client.js';

// Only 127.0.0.2 is opened: the counting server on 127.0.0.1 (same port) stands for the internal network.
const rules = { allowHttp: true, allowed: allowList(['127.0.0.2/32']), ports: DEFAULT_WEBHOOK_PORTS };
const body = Buffer.from('{}');
const signature = 't=1,v1=00';
const headers = { 'x-service-signature': signature };

const table: Record<string, string[]> = {
  'loopback.test': ['127.0.0.1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'allowed.test': ['127.0.0.2'],
};
const answers = (list: string[]) =>
  list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
const fixed: Resolve = async (host) => answers(table[host] ?? []);
/** Answers the allowed address `honest` times, then the forbidden one: DNS rebinding. */
const rebinding = (honest: number): Resolve => {
  let calls = 0;
  return async () => answers([calls++ < honest ? '127.0.0.2' : '127.0.0.1']);
};

let servers: Awaited<ReturnType<typeof serversOnOnePort>>;
let port: number;
const clients: WebhookClient[] = [];
const client = (resolve: Resolve = fixed) => {
  const c = webhookClient({ timeoutMs: 2000, rules, resolve });
  clients.push(c);
  return c;
};

beforeAll(async () => {
  servers = await serversOnOnePort((_req, res) => res.writeHead(200).end(), '127.0.0.2', '127.0.0.1');
  port = servers.receiver.port;
});
afterAll(async () => {
  await Promise.all([...clients.map((c) => c.close()), servers.receiver.close(), servers.counter.close()]);
});

describe('webhookClient target guard', () => {
  it.each([
    'http://127.0.0.1:PORT/',
    'http://[::ffff:127.0.0.1]:PORT/',
    'http://[::ffff:7f00:1]:PORT/',
    'http://2130706433:PORT/',
    'http://0x7f.1:PORT/',
    'http://loopback.test:PORT/',
    'http://mapped.test:PORT/',
    'http://mixed.test:PORT/',
    'https://loopback.test:PORT/',
    'https://127.0.0.1:PORT/',
  ])('refuses %s without connecting', async (template) => {
    const result = await client().send({
      endpointId: 'wh_test',
      url: template.replace('PORT', String(port)),
      body,
      headers,
    });
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.ok || result.error).toBe(REFUSED_TARGET_FAILURE);
    expect(servers.counter.connections()).toBe(0);
  });

  it.each([
    ['http:', '127.0.0.1'],
    ['http:', '::ffff:7f00:1'],
    ['http:', 'loopback.test'],
    ['http:', 'mixed.test'],
    ['https:', 'loopback.test'],
  ])('refuses %s//%s at connect time, whatever was checked before', async (protocol, hostname) => {
    const connect = guardedConnector(rules.allowed, fixed, 2000);
    const error = await new Promise((resolve) =>
      connect({ protocol, hostname, host: `${hostname}:${port}`, port: String(port) }, (...args) =>
        resolve(args[0]),
      ),
    );
    expect(error).toMatchObject({ code: 'ERR_REFUSED_TARGET' });
    expect(servers.counter.connections()).toBe(0);
  });

  it('refuses a port the operator does not allow, for an endpoint made before the rule, without connecting', async () => {
    const c = webhookClient({ timeoutMs: 2000, rules: { ...rules, ports: [[443, 443]] }, resolve: fixed });
    clients.push(c);
    const before = servers.receiver.connections();
    const result = await c.send({
      endpointId: 'wh_test',
      url: `http://allowed.test:${port}/`,
      body,
      headers,
    });
    expect(result).toMatchObject({ ok: false, status: null, error: 'refused url: must use a port of 443' });
    expect(servers.receiver.connections()).toBe(before);
  });

  it.each([1, 2])('never reaches a rebound address (%i honest answers first)', async (honest) => {
    const c = client(rebinding(honest));
    const results = [];
    for (let i = 0; i < 5; i++)
      results.push(
        await c.send({ endpointId: 'wh_test', url: `http://rebind.test:${port}/`, body, headers }),
      );
    // Two honest answers let the first delivery through (pre-check and connect); every later one is refused.
    expect(results.map((r) => r.ok)).toEqual([honest === 2, false, false, false, false]);
    expect(results.at(-1)).toMatchObject({ error: REFUSED_TARGET_FAILURE });
    expect(servers.counter.connections()).toBe(0);
  });

  it('fails at the timeout when the resolver never answers', async () => {
    const c = webhookClient({ timeoutMs: 300, rules, resolve: () => new Promise(() => {}) });
    clients.push(c);
    const result = await c.send({
      endpointId: 'wh_test',
      url: `http://stuck.test:${port}/`,
      body,
      headers,
    });
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout after 300 ms' });
  });

  it('delivers to a name resolving to an allowed address, with the name as Host', async () => {
    const before = servers.receiver.received.length;
    const result = await client().send({
      endpointId: 'wh_test',
      url: `http://allowed.test:${port}/hook`,
      body,
      headers,
    });
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(servers.receiver.received.slice(before)).toMatchObject([
      { headers: { host: `allowed.test:${port}` } },
    ]);
    expect(servers.counter.connections()).toBe(0);
  });

  it('connects TLS to the checked address with the name as SNI', async () => {
    const names: string[] = [];
    // No certificate: recording the SNI is all this server does before failing the handshake.
    const tls: Server = createServer({
      SNICallback: (name, done) => (names.push(name), done(new Error('no cert'))),
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.2', resolve));
    const tlsPort = (tls.address() as { port: number }).port;
    const result = await client().send({
      endpointId: 'wh_test',
      url: `https://allowed.test:${tlsPort}/`,
      body,
      headers,
    });
    await new Promise((resolve) => tls.close(resolve));
    expect(result).toMatchObject({ ok: false, status: null });
    expect(names).toEqual(['allowed.test']);
  });
});
