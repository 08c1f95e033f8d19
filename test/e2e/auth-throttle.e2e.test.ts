import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey, parseApiKey } from '@audit/shared/api-keys';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';

// A client address of the test's own behind a trusted proxy (the test itself), and lookups reused 200 ms only.
const TTL_MS = 200;
const { names } = pipelineFixture('authth');
const gw = gatewayFixture(names, {
  env: {
    TRUSTED_PROXIES: '127.0.0.1/32',
    AUTH_FAILURE_BURST: '1',
    AUTH_FAILURES_PER_MIN: '1',
    AUTH_THROTTLE_HOLD_MS: '0',
    KEY_CACHE_TTL_MS: String(TTL_MS),
  },
});

const from = async (address: string, key: string) => {
  const res = await fetch(`${gw.url()}/api/v2/public/audit/webhooks`, {
    headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': address },
  });
  return res.status;
};

describe('the failed-authentication throttle', () => {
  it('still accepts from a throttled address a valid key used long ago or never, and nothing else', async () => {
    const usedBefore = await gw.mint(names.tenant, 'audit:read');
    const neverUsed = await gw.mint(names.tenant, 'audit:read');
    const address = '198.51.100.23';
    expect(await from(address, usedBefore)).toBe(200);
    // Longer ago than any cached lookup lives.
    await new Promise((r) => setTimeout(r, 3 * TTL_MS));
    const parsed = parseApiKey(usedBefore)!;
    const unknown = formatApiKey(generateApiKey(parsed.env));
    const wrongSecret = formatApiKey({ ...parsed, secret: generateApiKey(parsed.env).secret });
    expect(await from(address, unknown)).toBe(401);
    expect(await from(address, unknown)).toBe(429);
    expect(await from(address, usedBefore)).toBe(200);
    expect(await from(address, neverUsed)).toBe(200);
    // A known prefix with a wrong secret, and a prefix that does not exist, stay throttled.
    expect(await from(address, wrongSecret)).toBe(429);
    expect(await from(address, unknown)).toBe(429);
  });
});
