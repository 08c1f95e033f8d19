import { runCli } from '../../services/ops/src/cli.js';
import type { TestNames } from './names.js';
import { CLICKHOUSE_URL, CLUSTER_ENV, KAFKA_BROKERS } from './stack.js';

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
      ...CLUSTER_ENV,
      ...extra,
      ...overrides,
    };
    const code = await runCli(argv, env, { out: (t) => (out += t), err: (t) => (err += `${t}\n`) });
    return { code, out, err, json: <T = Record<string, unknown>>() => JSON.parse(out) as T };
  };
}

/** A key minted through the real operator CLI, as an operator would, on the given database and topics. */
export async function mintKey(opts: {
  databaseUrl: string;
  topicPrefix: string;
  pepper: string;
  tenant: string;
  scopes: string;
}): Promise<string> {
  let out = '';
  const env = {
    DATABASE_URL: opts.databaseUrl,
    KAFKA_BROKERS,
    TOPIC_PREFIX: opts.topicPrefix,
    API_KEY_PEPPER: opts.pepper,
    LOG_LEVEL: 'error',
    ...CLUSTER_ENV,
  };
  const argv = ['keys', 'create', '--tenant', opts.tenant, '--scopes', opts.scopes, '--json'];
  const code = await runCli(argv, env, { out: (t) => (out += t), err: () => {} });
  if (code !== 0) throw new Error(`ops keys create exited with ${code}`);
  return (JSON.parse(out) as { key: string }).key;
}
