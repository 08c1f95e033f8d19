// A fast local webhook receiver run as its own process (test/support/receiver-process.ts starts it): answers every
// POST with 204 and counts what it got; control calls under /_ctl/ reset the counters and read them. Prints
// `PORT <n>` once listening.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const ID = /"id":"([0-9a-f-]{36})"/;

let count = 0;
let firstAt = 0;
let lastAt = 0;
let record = false;
let arrivals: [string, number][] = [];

function control(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://receiver');
  const json = (value: unknown) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  if (url.pathname === '/_ctl/reset') {
    count = 0;
    firstAt = 0;
    lastAt = 0;
    arrivals = [];
    record = url.searchParams.get('record') === '1';
    return json({ ok: true });
  }
  if (url.pathname === '/_ctl/stats') return json({ count, firstAt, lastAt });
  if (url.pathname === '/_ctl/arrivals') return json(arrivals);
  res.writeHead(404).end();
}

const server = createServer((req, res) => {
  if (req.url?.startsWith('/_ctl/')) {
    req.resume();
    req.on('end', () => control(req, res));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => {
    if (record) chunks.push(chunk);
  });
  req.on('end', () => {
    // Wall-clock ms for arrivals (compared with the bench process's send times); a monotonic clock for rates.
    const now = performance.now();
    count += 1;
    if (firstAt === 0) firstAt = now;
    lastAt = now;
    if (record) {
      const id = ID.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
      if (id) arrivals.push([id, Date.now()]);
    }
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`PORT ${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
