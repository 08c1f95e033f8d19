import { afterAll, beforeAll, expect } from 'vitest';
import { runCli } from '../../services/ops/src/cli.js';
import type { TestNames } from './names.js';
import { freshPostgres } from './postgres.js';
import { gatewayService, KAFKA_BROKERS } from './stack.js';

const PEPPER = 'e2e-pepper-0123456789abcdef0123456789';
const CURSOR_SECRET = 'e2e-cursor-0123456789abcdef0123456789';

/** A gateway process on the test's own Postgres database, and keys minted through the real operator CLI. */
export function gatewayFixture(names: TestNames) {
  let postgres: Awaited<ReturnType<typeof freshPostgres>>;
  let gateway: ReturnType<typeof gatewayService>;
  const opsEnv = () => ({
    DATABASE_URL: postgres.url,
    KAFKA_BROKERS,
    TOPIC_PREFIX: names.topicPrefix,
    API_KEY_PEPPER: PEPPER,
    LOG_LEVEL: 'error',
  });

  beforeAll(async () => {
    postgres = await freshPostgres(names);
    gateway = gatewayService(names, { DATABASE_URL: postgres.url, API_KEY_PEPPER: PEPPER, CURSOR_SECRET });
    await gateway.start();
  });
  afterAll(async () => {
    await gateway.stop();
    await postgres.drop();
  });

  return {
    async ops(...argv: string[]): Promise<string> {
      let out = '';
      expect(await runCli(argv, opsEnv(), { out: (t) => (out += t), err: () => undefined })).toBe(0);
      return out;
    },
    async mint(tenant: string, scopes: string, ipAllow?: string): Promise<string> {
      const extra = ipAllow ? ['--ip-allow', ipAllow] : [];
      const out = await this.ops(
        'keys',
        'create',
        '--tenant',
        tenant,
        '--scopes',
        scopes,
        '--json',
        ...extra,
      );
      return (JSON.parse(out) as { key: string }).key;
    },
    async get(path: string, key?: string, headers: Record<string, string> = {}) {
      const res = await fetch(`${gateway.url}/api/v2/public${path}`, {
        headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
      });
      return { status: res.status, headers: res.headers, text: await res.text() };
    },
  };
}
