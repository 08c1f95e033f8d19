import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseApiKey } from '@audit/shared/api-keys';
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

  it('share one read budget per key across both processes, even in a concurrent burst', async () => {
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 3 * READ_PER_MIN }, (_, i) => gw.get(path, key, {}, i % 2)),
    );
    const elapsedS = (Date.now() - started) / 1000;
    const passed = answers.filter((a) => a.status === 200).length;
    // The bucket holds READ_PER_MIN tokens and gains one every 60 / READ_PER_MIN seconds: no more may pass.
    expect(passed).toBeGreaterThanOrEqual(READ_PER_MIN);
    expect(passed).toBeLessThanOrEqual(READ_PER_MIN + Math.ceil((elapsedS * READ_PER_MIN) / 60));
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length + passed).toBe(answers.length);
    for (const a of answers) expect(a.headers.get('ratelimit-limit')).toBe(String(READ_PER_MIN));

    const one = limited[0]!;
    expect(Number(one.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(one.text)).toEqual({
      error: 'rate_limited',
      message: expect.any(String),
      scope: 'read',
      retry_after_s: Number(one.headers.get('retry-after')),
    });
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
