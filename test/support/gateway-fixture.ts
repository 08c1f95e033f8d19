import { afterAll, beforeAll, expect } from 'vitest';
import { runCli } from '../../services/ops/src/cli.js';
import type { TestNames } from './names.js';
import { migratedPostgres } from './postgres.js';
import { CLUSTER_ENV, gatewayService, KAFKA_BROKERS } from './stack.js';

const PEPPER = 'e2e-pepper-0123456789abcdef0123456789';
const CURSOR_SECRET = 'e2e-cursor-0123456789abcdef0123456789';

/**
 * Gateway processes (one by default) sharing the test's own Postgres database, and keys minted through the real
 * operator CLI. The database is made here, unless the test's pipeline made it already (`databaseUrl`: a
 * pipelineFixture with its trees on).
 */
export function gatewayFixture(
  names: TestNames,
  options: { processes?: number; env?: Record<string, string>; databaseUrl?: string } = {},
) {
  let postgres: { url: string; drop(): Promise<void> } | undefined;
  const gateways: ReturnType<typeof gatewayService>[] = [];
  const opsEnv = () => ({
    DATABASE_URL: postgres!.url,
    KAFKA_BROKERS,
    TOPIC_PREFIX: names.topicPrefix,
    API_KEY_PEPPER: PEPPER,
    LOG_LEVEL: 'error',
    ...CLUSTER_ENV,
  });

  beforeAll(async () => {
    postgres = options.databaseUrl
      ? { url: options.databaseUrl, drop: async () => undefined }
      : await migratedPostgres(names);
    const env = { DATABASE_URL: postgres.url, API_KEY_PEPPER: PEPPER, CURSOR_SECRET, ...options.env };
    for (let i = 0; i < (options.processes ?? 1); i++) gateways.push(gatewayService(names, env));
    for (const gateway of gateways) await gateway.start();
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await postgres?.drop();
  });

  return {
    /** The process itself, for tests that signal it. */
    process: (which = 0) => gateways[which]!,
    url: (which = 0) => gateways[which]!.url,
    metricsUrl: (which = 0) => gateways[which]!.metricsUrl,
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
    /** The test's own Postgres database, for checks on the rows behind the API. */
    databaseUrl: () => postgres!.url,
    /** Any method, with an optional JSON body (a string is sent as it is). */
    async send(method: string, path: string, key: string | undefined, body?: unknown) {
      const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${gateways[0]!.url}/api/v2/public${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      return { status: res.status, headers: res.headers, text: await res.text() };
    },
    /** GET with the body as bytes: a PDF, a file. */
    async getBytes(path: string, key: string) {
      const res = await fetch(`${gateways[0]!.url}/api/v2/public${path}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    },
    /** GET through gateway process `which` (0 by default). */
    async get(path: string, key?: string, headers: Record<string, string> = {}, which = 0) {
      const res = await fetch(`${gateways[which]!.url}/api/v2/public${path}`, {
        headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
      });
      return { status: res.status, headers: res.headers, text: await res.text() };
    },
  };
}
