// bench:integrity's floor of the notary (notary-floor-child.ts) as a process of its own, as the notary runs: the
// bench measures its CPU like the notary's and reads how many leaves it has appended from what it prints.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS } from '../../services/shared/src/node-flags.js';
import type { FloorNotaryOptions } from './notary-floor-child.js';

const CHILD = fileURLToPath(new URL('./notary-floor-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface FloorNotary {
  pid: number;
  leaves(): number;
  stop(): Promise<void>;
}

/** Starts the floor and resolves once its consumer has joined its group. */
export async function startFloorNotary(opts: FloorNotaryOptions): Promise<FloorNotary> {
  const child = spawn(
    process.execPath,
    [...SERVICE_NODE_FLAGS, '--import', 'tsx', CHILD, JSON.stringify(opts)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let leaves = 0;
  const joined = new Promise<void>((resolve, reject) => {
    void exited.then(() => reject(new Error(`the notary's floor exited with ${child.exitCode}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const said = JSON.parse(line) as { joined?: boolean; leaves?: number };
      if (said.joined) resolve();
      if (said.leaves !== undefined) leaves = said.leaves;
    });
  });
  await joined;
  return {
    pid: child.pid!,
    leaves: () => leaves,
    /** Stops it and waits until it is gone; again once gone does nothing. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
