import { runCli } from '../../services/ops/src/cli.js';
import type { TestNames } from './names.js';
import { CLICKHOUSE_URL, KAFKA_BROKERS } from './stack.js';

/**
 * The operator CLI, run in-process on a test's own topics, ClickHouse database, projector group and Postgres
 * database; `extra` and each call's `overrides` add to or replace that environment.
 */
export function opsCli(names: TestNames, databaseUrl: () => string, extra: Record<string, string> = {}) {
  return async (argv: string[], overrides: Record<string, string | undefined> = {}) => {
    let out = '';
    let err = '';
    const env = {
      DATABASE_URL: databaseUrl(),
      KAFKA_BROKERS,
      CLICKHOUSE_URL,
      CLICKHOUSE_DATABASE: names.database,
      TOPIC_PREFIX: names.topicPrefix,
      PROJECTOR_GROUP_ID: names.groupId,
      OPERATOR_ID: 'operator:test',
      LOG_LEVEL: 'error',
      ...extra,
      ...overrides,
    };
    const code = await runCli(argv, env, { out: (t) => (out += t), err: (t) => (err += `${t}\n`) });
    return { code, out, err, json: <T = Record<string, unknown>>() => JSON.parse(out) as T };
  };
}
