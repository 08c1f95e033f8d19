import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey, type StoredApiKey } from '@audit/shared/api-keys';
import { Registry } from '@audit/shared/platform';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';

const key = generateApiKey('live');
const stored: StoredApiKey = storedKeyFor(key, STUB_PEPPER);
const auth = { authorization: `Bearer ${formatApiKey(key)}` };
const EVENT_PATH = '/api/v2/public/audit/events/00000000-0000-4000-8000-0000000000aa';

async function setup(findKey: () => Promise<StoredApiKey | null>, allowed = true) {
  const metrics = new Registry();
  const app = await buildApp(
    stubAppOptions({
      metrics,
      auth: { pepper: STUB_PEPPER, env: 'live', findKey },
      takeToken: async () => ({ allowed, remaining: allowed ? 999 : 0 }),
    }),
  );
  return { app, text: () => metrics.metrics() };
}

describe('public API metrics', () => {
  it('counts 401s by reason, and the requests by route pattern, without keys, tenants or ids', async () => {
    const { app, text } = await setup(async () => null);
    await app.inject(EVENT_PATH);
    await app.inject({ url: EVENT_PATH, headers: auth });
    await app.inject({ url: '/api/v2/public/no-such-thing', headers: auth });
    const body = await text();
    expect(body).toContain('auth_failures_total{reason="missing"} 1');
    expect(body).toContain('auth_failures_total{reason="unknown_key"} 2');
    expect(body).toContain('auth_failures_total{reason="revoked"} 0');
    expect(body).toMatch(
      /^http_request_duration_seconds_count\{method="GET",route="\/api\/v2\/public\/audit\/events\/:event_id",status_code="401"\} 2$/m,
    );
    expect(body).toMatch(
      /^http_request_duration_seconds_count\{method="GET",route="unmatched",status_code="401"\} 1$/m,
    );
    for (const secret of [key.prefix, key.secret, 'acme', '0000000000aa', 'no-such-thing']) {
      expect(body).not.toContain(secret);
    }
  });

  it('counts 429s by request class', async () => {
    const { app, text } = await setup(async () => stored, false);
    expect((await app.inject({ url: EVENT_PATH, headers: auth })).statusCode).toBe(429);
    const body = await text();
    expect(body).toContain('rate_limit_rejections_total{class="read"} 1');
    expect(body).toContain('rate_limit_rejections_total{class="write"} 0');
  });

  it('leaves /metrics off the public listener', async () => {
    const { app } = await setup(async () => stored);
    expect((await app.inject('/metrics')).statusCode).toBe(404);
  });
});
