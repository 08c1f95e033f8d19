import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { createHttpServer } from './server.js';

describe('createHttpServer', () => {
  it('close() waits for a request in flight, answers it, then ends its keep-alive connection', async () => {
    const app = createHttpServer(createLogger('test', 'silent'));
    let arrived!: () => void;
    const received = new Promise<void>((resolve) => (arrived = resolve));
    app.addHook('onRequest', async () => arrived());
    app.post('/echo', async (request) => request.body);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const body = JSON.stringify({ text: 'in flight' });
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/echo',
      agent: new http.Agent({ keepAlive: true }),
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.on('error', reject);
      request.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
    });
    // Half the body: the request has arrived and cannot finish before the rest is sent.
    request.write(body.slice(0, 5));
    await received;
    const closed = app.close();
    request.end(body.slice(5));
    expect(await answer).toEqual({ status: 200, text: body });
    // Left to Node, the connection would stay open for the keep-alive timeout (72 s) and hold close() as long.
    await closed;
  });
});
