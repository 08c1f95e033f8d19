import { runCli } from '../../services/ops/src/cli.js';
import { KAFKA_BROKERS } from '../../test/support/stack.js';

/** A key minted through the real operator CLI, as an operator would, on the bench's database and topics. */
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
  };
  const argv = ['keys', 'create', '--tenant', opts.tenant, '--scopes', opts.scopes, '--json'];
  const code = await runCli(argv, env, { out: (t) => (out += t), err: () => {} });
  if (code !== 0) throw new Error(`ops keys create exited with ${code}`);
  return (JSON.parse(out) as { key: string }).key;
}
