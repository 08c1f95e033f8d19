import { topics } from '@audit/shared/contract';
import { deleteTopics } from '@audit/shared/platform';
import { uniqueNames } from '../../test/support/names.js';
import { mintKey } from '../../test/support/ops-cli.js';
import { migratedPostgres } from '../../test/support/postgres.js';
import { gatewayService, testKafka } from '../../test/support/stack.js';

/** Per minute: no 429 interferes with the timings, yet every request still takes a token from Postgres. */
export const UNLIMITED = 100_000_000;
export const PEPPER = 'bench-pepper-0123456789abcdef0123456789';
export const CURSOR_SECRET = 'bench-cursor-0123456789abcdef0123456789';

/**
 * A gateway process reading a bench's ClickHouse database, with a Postgres database and topics of its own that
 * `stop` removes, and its rate limits out of the way.
 */
export async function datasetGateway(label: string, database: string, env: Record<string, string> = {}) {
  const base = uniqueNames(label);
  const postgres = await migratedPostgres(base);
  const names = { ...base, database };
  const gateway = gatewayService(names, {
    DATABASE_URL: postgres.url,
    API_KEY_PEPPER: PEPPER,
    CURSOR_SECRET,
    RATE_LIMIT_READ_PER_MIN: String(UNLIMITED),
    RATE_LIMIT_WRITE_PER_MIN: String(UNLIMITED),
    LOG_LEVEL: 'warn',
    ...env,
  });
  return {
    gateway,
    databaseUrl: postgres.url,
    /** A key of `tenant` minted through the operator CLI. */
    mint: (tenant: string, scopes: string) =>
      mintKey({ databaseUrl: postgres.url, topicPrefix: names.topicPrefix, pepper: PEPPER, tenant, scopes }),
    async stop() {
      await gateway.stop();
      await postgres.drop();
      await deleteTopics(
        testKafka(),
        Object.values(topics(names.topicPrefix, 1)).map((t) => t.name),
      );
    },
  };
}
