import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { containerOutageStep, type ComponentEnv } from './container-stack.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

export type Component = 'postgres' | 'clickhouse' | 'kafka';

/**
 * Stops or starts one component, keeping its data (what an outage looks like here): the local stack's process, or
 * on the containers path (scripts/test-components.ts) its container.
 */
export async function stack(command: 'stop' | 'start', component: Component): Promise<void> {
  const containers = process.env.AUDIT_TEST_CONTAINERS;
  if (containers) {
    const ids = JSON.parse(containers) as Record<Component, string>;
    await containerOutageStep(command, component, ids, process.env as unknown as ComponentEnv);
    return;
  }
  await run('bash', ['infra/local/stack.sh', command, component], { cwd: ROOT, timeout: 180_000 });
}

/**
 * Stops the component, runs `during` while it is down, and starts it again after at least `downMs`, whatever
 * `during` did: a test never leaves a component down for the ones after it.
 */
export async function outage<T>(component: Component, downMs: number, during: () => Promise<T>): Promise<T> {
  await stack('stop', component);
  const stoppedAt = Date.now();
  try {
    const result = await during();
    const left = downMs - (Date.now() - stoppedAt);
    if (left > 0) await new Promise((r) => setTimeout(r, left));
    return result;
  } finally {
    await stack('start', component);
  }
}
