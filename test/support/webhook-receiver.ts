import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
  /** The payload's `id`. */
  id: string;
}

/** An answer: a status, or a status with headers. */
export type Answer = number | { status: number; headers: Record<string, string> };

/** How a path answers: an answer, one once the promise settles, or never (the request hangs until the client gives up). */
export type Behaviour = (path: string, id: string, seen: number) => Answer | Promise<Answer> | 'hang';

/** Where the receiver listens, and the host name its URLs give (a container reaches the machine by another name). */
export interface ReceiverAddress {
  listen: string;
  urlHost: string;
}

/** A real local HTTP receiver recording every request, answering as `behaviour` says. */
export async function webhookReceiver(
  behaviour: Behaviour = () => 200,
  { listen, urlHost }: ReceiverAddress = { listen: '127.0.0.1', urlHost: '127.0.0.1' },
) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let id = '';
      try {
        id = String((JSON.parse(body.toString('utf8')) as { id?: unknown }).id ?? '');
      } catch {
        id = '';
      }
      const path = req.url ?? '';
      const seen = received.filter((r) => r.path === path && r.id === id).length;
      received.push({ path, headers: req.headers, body, at: Date.now(), id });
      const answer = behaviour(path, id, seen);
      if (answer === 'hang') return;
      void Promise.resolve(answer).then((a) =>
        typeof a === 'number' ? res.writeHead(a).end() : res.writeHead(a.status, a.headers).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, listen, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://${urlHost}:${port}${path}`,
    received,
    at: (path: string) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The spec's receiver procedure, written here independently of the service's helper: parse t and the v1 values
 * (one per live secret: several during a secret rotation), refuse a t more than 300 s away, HMAC-SHA-256 keyed
 * with the secret over "t=<t>." and the raw body, constant-time compare with each v1.
 */
export function independentlyVerified(r: Received, secret: string, now = Date.now()): boolean {
  const header = r.headers['x-service-signature'];
  if (typeof header !== 'string') return false;
  const fields = header.split(',').map((kv) => kv.split('=') as [string, string]);
  const ts = fields.filter(([k]) => k === 't').map(([, v]) => Number(v));
  const v1s = fields.filter(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v)).map(([, v]) => v);
  const t = ts[0]!;
  if (ts.length !== 1 || !Number.isInteger(t) || v1s.length === 0) return false;
  if (Math.abs(now / 1000 - t) > 300) return false;
  const mac = createHmac('sha256', secret);
  mac.update(Buffer.from(`t=${t}.`, 'utf8'));
  mac.update(r.body);
  const expected = mac.digest();
  return v1s.some((v1) => timingSafeEqual(expected, Buffer.from(v1, 'hex')));
}
