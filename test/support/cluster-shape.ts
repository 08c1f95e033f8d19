import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runCli } from '../../services/ops/src/cli.js';
import { apiAt, type Deployment } from './deployment.js';

// The whole shape as `npm run cluster -- up` starts it: two of each service, the gateways and ingest behind
// HAProxy (infra/cluster), on the cluster's own database and topics. The tests of test/cluster keep to tenants of
// their own there. The tier (scripts/test-cluster.sh) gives the addresses and the development secrets.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

export const GATEWAY = process.env.GATEWAY_URL!;
export const INGEST = process.env.INGEST_URL!;
export const INGEST_TOKEN = process.env.INGEST_TOKEN!;

/** infra/cluster/cluster.sh with these arguments (up, kill NAME, start NAME, ...). */
export const cluster = (...args: string[]) =>
  run('bash', ['infra/cluster/cluster.sh', ...args], { cwd: ROOT, timeout: 300_000 });

/** The cluster's operator CLI, as an operator runs it against the deployment. */
export async function ops(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { ...process.env, LOG_LEVEL: 'error' } as Record<string, string>, {
    out: (t) => (out += t),
    err: (t) => (err += `${t}\n`),
  });
  return { code, out, err };
}

/** A key of the tenant's, minted by the operator CLI. */
export async function mintKey(tenant: string, scopes: string): Promise<string> {
  const created = await ops(['keys', 'create', '--tenant', tenant, '--scopes', scopes, '--json']);
  if (created.code !== 0) throw new Error(`keys create exited ${created.code}: ${created.out}`);
  return (JSON.parse(created.out) as { key: string }).key;
}

/** A request to the public API through the gateways' balancer. */
export const api = apiAt(GATEWAY);

/** This cluster, for the traffic and the oracle. */
export const nativeCluster: Deployment = { ingest: INGEST, ingestToken: INGEST_TOKEN, api, ops };

/** The process of that kind that holds the role now, as `cluster.sh status` reports it ("(leader)", "(primary)"). */
export async function roleHolder(prefix: string, role: string): Promise<string> {
  const { stdout } = await cluster('status', 'engines').catch((err: { stdout: string }) => err);
  const line = stdout.split('\n').find((l) => l.startsWith(prefix) && l.includes(`(${role}`));
  if (!line) throw new Error(`no ${prefix}* is ${role} in:\n${stdout}`);
  return line.split(/\s+/)[0]!;
}
