import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/**
 * A project name that carries this process's id, so that a later test run can take down what this one left if it
 * is killed (scripts/components.sh `remove_test_leftovers`, which knows the prefixes audit-smoke and audit-bench).
 */
export function ownedProjectName(prefix: 'audit-smoke' | 'audit-bench'): string {
  return `${prefix}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** docker-compose.yml through infra/containers/compose.sh (Podman, the images built here), as one project. */
export function composeProject(project: string, env: Record<string, string>) {
  const options = {
    cwd: ROOT,
    env: { ...process.env, ...env, COMPOSE_PROJECT_NAME: project },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 900_000,
  };
  const compose = async (...args: string[]) =>
    (await run('bash', ['infra/containers/compose.sh', ...args], options)).stdout;
  return {
    up: () => compose('up'),
    down: () => compose('down'),
    /** Runs the operator CLI in a one-off container of the service image, on the project's network. */
    ops: (...args: string[]) =>
      compose('run', '--rm', '-e', 'API_KEY_PEPPER', 'migrate', 'node', 'services/ops/src/main.js', ...args),
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
