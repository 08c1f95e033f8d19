import { describe, expect, it } from 'vitest';
import {
  allowList,
  DEFAULT_WEBHOOK_PORTS,
  formatApiKey,
  generateApiKey,
  resolveWithin,
  type Resolve,
} from '@audit/shared';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';
import { REFUSED_TARGET } from './webhooks.route.js';

const key = generateApiKey('live');
const stored = storedKeyFor(key, STUB_PEPPER, { scopes: ['webhooks:write'] });

// A DNS in memory: an internal name, a public one, a name that does not exist, and one whose servers never answer.
const zone: Record<string, string[]> = {
  'internal.example': ['10.1.2.3'],
  'public.example': ['93.184.216.34'],
};
const resolve: Resolve = (host) =>
  host === 'hangs.example'
    ? new Promise(() => {})
    : zone[host]
      ? Promise.resolve(zone[host].map((address) => ({ address, family: 4 })))
      : Promise.reject(Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));

async function create(url: string) {
  const app = await buildApp(
    stubAppOptions({
      auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored },
      targets: {
        allowHttp: false,
        allowed: allowList([]),
        ports: DEFAULT_WEBHOOK_PORTS,
        resolve: resolveWithin(resolve, 50),
      },
    }),
  );
  const res = await app.inject({
    method: 'POST',
    url: '/api/v2/public/audit/webhooks',
    headers: { authorization: `Bearer ${formatApiKey(key)}` },
    payload: { url },
  });
  await app.close();
  return res;
}

describe('POST /audit/webhooks target guard', () => {
  it('refuses every refused host with one answer that tells nothing of the network', async () => {
    const refused = await Promise.all(
      [
        'https://10.0.0.1/hook',
        'https://169.254.169.254/latest/meta-data/',
        'https://internal.example/hook',
        'https://nowhere.example/hook',
        'https://hangs.example/hook',
      ].map(create),
    );
    for (const res of refused) {
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([{ field: 'url', message: REFUSED_TARGET }]);
    }
    expect(new Set(refused.map((res) => res.body)).size).toBe(1);
    expect(refused[0]!.body).not.toMatch(/10\.|169\.254|internal|resolve[sd] to|could not/);
  });

  it('still checks a public name (and only then tries to store it)', async () => {
    // The stub store refuses to be used: reaching it means the target passed the guard.
    expect((await create('https://public.example/hook')).statusCode).toBe(503);
  });
});
