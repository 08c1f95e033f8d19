import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { unusedPort } from './tcp-forwarder.js';
import { waitFor } from './wait-for.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/**
 * A project name that carries this process's id, so that a later test run can take down what this one left if it
 * is killed (scripts/components.sh `remove_test_leftovers`, which knows the prefixes audit-smoke, audit-cluster and
 * audit-bench).
 */
export function ownedProjectName(prefix: 'audit-smoke' | 'audit-cluster' | 'audit-bench'): string {
  return `${prefix}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * docker-compose.yml, or docker-compose.cluster.yml for the cluster shape, through infra/containers/compose.sh
 * (Podman, the images built here), as one project.
 */
export function composeProject(
  project: string,
  env: Record<string, string>,
  shape: 'single' | 'cluster' = 'single',
) {
  const options = {
    cwd: ROOT,
    env: { ...process.env, ...env, COMPOSE_PROJECT_NAME: project },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 900_000,
  };
  const file = shape === 'cluster' ? ['--cluster'] : [];
  const compose = async (...args: string[]) =>
    (await run('bash', ['infra/containers/compose.sh', ...file, ...args], options)).stdout;
  return {
    up: () => compose('up'),
    down: () => compose('down'),
    /** Any docker-compose command on the project (ps, exec, logs, …). */
    compose,
    /** Runs the operator CLI in a one-off container of the service image, on the project's network. */
    ops: (...args: string[]) =>
      compose('run', '--rm', '-e', 'API_KEY_PEPPER', 'migrate', 'node', 'services/ops/src/main.js', ...args),
    /**
     * A crash of the service's container: its main process killed from outside (SIGKILL), as the kernel's OOM
     * killer would, which its restart policy answers by starting it again; resolves once it runs again.
     */
    crash: async (service: string) => {
      const id = (await compose('ps', '-q', service)).trim();
      const state = async () =>
        (
          await run('podman', [
            'inspect',
            '--format',
            '{{.State.Pid}} {{.State.Running}} {{.RestartCount}}',
            id,
          ])
        ).stdout
          .trim()
          .split(' ');
      const [pid, , restarts] = await state();
      process.kill(Number(pid), 'SIGKILL');
      await waitFor(`${service} started again by its restart policy`, async () => {
        const [, running, count] = await state();
        return running === 'true' && Number(count) > Number(restarts);
      });
    },
    /** What Podman still has of the project: containers, volumes and networks. */
    leftovers: async () => {
      const filter = `label=com.docker.compose.project=${project}`;
      const lists = await Promise.all(
        [
          ['ps', '-a', '-q', '--filter', filter],
          ['volume', 'ls', '-q', '--filter', filter],
          ['network', 'ls', '-q', '--filter', filter],
        ].map(async (args) => (await run('podman', args)).stdout.trim()),
      );
      return lists.filter((list) => list !== '');
    },
  };
}

/**
 * A compose project of a test's own, as a user would run it: fresh secrets, the gateway and ingest published on
 * free ports of this machine, webhook targets allowed on Podman's bridge (a private address, where this process's
 * receiver is reached), a checkpoint every second.
 */
export async function testComposeProject(shape: 'single' | 'cluster') {
  const hex = (bytes: number) => randomBytes(bytes).toString('hex');
  const secrets = {
    INGEST_TOKEN: hex(24),
    API_KEY_PEPPER: hex(24),
    CURSOR_SECRET: hex(24),
    WEBHOOK_SECRET_KEY: hex(32),
  };
  const gatewayPort = await unusedPort();
  const ingestPort = await unusedPort();
  const project = composeProject(
    ownedProjectName(shape === 'cluster' ? 'audit-cluster' : 'audit-smoke'),
    {
      ...secrets,
      GATEWAY_PUBLISH_PORT: String(gatewayPort),
      INGEST_PUBLISH_PORT: String(ingestPort),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_TARGET_CIDRS: '10.0.0.0/8',
      INTEGRITY_CHECKPOINT_INTERVAL_MS: '1000',
    },
    shape,
  );
  return {
    ...project,
    ingestToken: secrets.INGEST_TOKEN,
    gateway: `http://127.0.0.1:${gatewayPort}`,
    ingest: `http://127.0.0.1:${ingestPort}`,
  };
}
