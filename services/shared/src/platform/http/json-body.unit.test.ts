import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { registerErrorHandling } from './error-handler.js';
import { registerJsonBodyParser } from './json-body.js';
import { createHttpServer } from './server.js';

describe('registerJsonBodyParser', () => {
  it('takes no body as none, and refuses white space or any other text that is not JSON with a 400', async () => {
    const app = createHttpServer(createLogger('test', 'silent'));
    registerErrorHandling(app);
    registerJsonBodyParser(app);
    app.post('/echo', async (request) => ({ body: request.body ?? null }));
    const post = (payload: string) =>
      app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });
    expect((await post('')).json()).toEqual({ body: null });
    expect((await post('{"a":1}')).json()).toEqual({ body: { a: 1 } });
    for (const text of [' ', '\n', '{', '{"__proto__":{}}']) {
      const res = await post(text);
      expect(res.statusCode, JSON.stringify(text)).toBe(400);
      expect(res.json().message, JSON.stringify(text)).toMatch(/not valid JSON/);
    }
    await app.close();
  });
});
