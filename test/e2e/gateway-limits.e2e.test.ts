import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseApiKey } from '@audit/shared';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { uniqueNames } from '../support/names.js';
import { cleanUp } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

// Two gateway processes of one deployment, with a small read budget so the test runs in seconds.
const READ_PER_MIN = 30;
const names = uniqueNames('gwlimits');
const gw = gatewayFixture(names, { processes: 2, env: { RATE_LIMIT_READ_PER_MIN: String(READ_PER_MIN) } });
const path = '/audit/events?limit=1';

afterAll(() => cleanUp(names));

describe('two gateway processes', () => {
  let key: string;
  beforeAll(async () => {
    key = await gw.mint(names.tenant, 'audit:read');
  });

  it('share one read budget per key: the budget is spent across both, then both answer 429', async () => {
    const answers = [];
    for (let i = 0; i < READ_PER_MIN; i++) answers.push(await gw.get(path, key, {}, i % 2));
    expect(answers.map((a) => a.status)).toEqual(Array(READ_PER_MIN).fill(200));
    expect(answers[0]!.headers.get('ratelimit-limit')).toBe(String(READ_PER_MIN));
    const remaining = answers.map((a) => Number(a.headers.get('ratelimit-remaining')));
    expect(remaining[0]).toBeGreaterThanOrEqual(READ_PER_MIN - 2);
    expect(remaining.at(-1)).toBeLessThanOrEqual(1);

    for (const which of [0, 1]) {
      const limited = await gw.get(path, key, {}, which);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const body = JSON.parse(limited.text) as Record<string, unknown>;
      expect(body).toEqual({
        error: 'rate_limited',
        message: expect.any(String),
        scope: 'read',
        retry_after_s: Number(limited.headers.get('retry-after')),
      });
    }
  });

  it('keep the budgets of different keys apart', async () => {
    const other = await gw.mint(names.tenant, 'audit:read');
    expect((await gw.get(path, other, {}, 1)).status).toBe(200);
  });

  it('both refuse a revoked key', async () => {
    const doomed = await gw.mint(names.tenant, 'audit:read');
    expect((await gw.get(path, doomed, {}, 0)).status).toBe(200);
    expect((await gw.get(path, doomed, {}, 1)).status).toBe(200);
    await gw.ops('keys', 'revoke', '--prefix', parseApiKey(doomed)!.prefix);
    const revokedAt = Date.now();
    await waitFor('both gateways refuse the key', async () => {
      const [a, b] = await Promise.all([gw.get(path, doomed, {}, 0), gw.get(path, doomed, {}, 1)]);
      return a.status === 401 && b.status === 401;
    });
    // Reported, not asserted (tests do not assert timings): the bound comes from KEY_CACHE_TTL_MS <= 3 s.
    console.info(`revoked key refused by both gateways after ${Date.now() - revokedAt} ms`);
  });
});
