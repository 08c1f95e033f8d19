import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey, type StoredApiKey } from '@audit/shared/api-keys';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import { STUB_PEPPER as PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';

const good = generateApiKey('live');
const stored: StoredApiKey = storedKeyFor(good, PEPPER);
const LOOKUP = '/api/v2/public/audit/events/00000000-0000-4000-8000-000000000000';

describe('failed authentication', () => {
  it('is throttled per client address: 429 with Retry-After before the key is even looked up', async () => {
    const lookedUp: string[] = [];
    const app = await buildApp(
      stubAppOptions({
        trustedProxies: ['127.0.0.1/32'],
        authFailures: { burst: 3, refillPerMinute: 6, holdMs: 0 },
        auth: {
          pepper: PEPPER,
          env: 'live',
          findKey: async (prefix) => {
            lookedUp.push(prefix);
            return prefix === good.prefix ? stored : null;
          },
        },
      }),
    );
    const from = (address: string, key = formatApiKey(generateApiKey('live'))) =>
      app.inject({ url: LOOKUP, headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': address } });

    for (let i = 0; i < 3; i += 1) expect((await from('203.0.113.9')).statusCode).toBe(401);
    const throttled = await from('203.0.113.9');
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('10');
    expect(throttled.json()).toEqual({
      error: 'rate_limited',
      message: 'Too many failed authentications from this address; retry after 10 s.',
      scope: 'failed_auth',
      retry_after_s: 10,
    });
    // Refused before the key was read: three lookups for three 401s, none for the 429, whatever key it carries.
    expect((await from('203.0.113.9', formatApiKey(good))).statusCode).toBe(429);
    expect(lookedUp).toHaveLength(3);
    // Another address is not affected, and its valid key works.
    expect((await from('198.51.100.7')).statusCode).toBe(401);
    expect((await from('198.51.100.7', formatApiKey(good))).statusCode).toBe(404);
  });

  it('still lets a throttled address in with a key the gateway knows exists, and no other', async () => {
    const lookedUp: string[] = [];
    const app = await buildApp(
      stubAppOptions({
        trustedProxies: ['127.0.0.1/32'],
        authFailures: { burst: 1, refillPerMinute: 1, holdMs: 0 },
        knownKey: async (prefix) => (prefix === good.prefix ? stored : null),
        auth: {
          pepper: PEPPER,
          env: 'live',
          findKey: async (prefix) => {
            lookedUp.push(prefix);
            return null;
          },
        },
      }),
    );
    const from = (key: string) =>
      app.inject({
        url: LOOKUP,
        headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': '192.0.2.1' },
      });
    expect((await from(formatApiKey(generateApiKey('live')))).statusCode).toBe(401);
    expect((await from(formatApiKey(generateApiKey('live')))).statusCode).toBe(429);
    expect((await from(formatApiKey(good))).statusCode).toBe(404);
    const text = formatApiKey(good);
    const wrongSecret = `${text.slice(0, -1)}${text.endsWith('0') ? '1' : '0'}`;
    expect((await from(wrongSecret)).statusCode).toBe(429);
    expect(lookedUp).toHaveLength(1);
  });
});
