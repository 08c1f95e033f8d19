import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const COMMON = fileURLToPath(new URL('./common.sh', import.meta.url));
const run = promisify(execFile);

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

describe('launch_detached (the local stack starts Kafka with it)', () => {
  const started: number[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const pid of started.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  // With job control on, a background job leads its own process group, so setsid forks and $! is a parent that
  // exits at once: the stack took that for the broker dying during startup.
  it.each([
    ['without job control', 'hashall'],
    ['with job control (monitor in an exported SHELLOPTS)', 'hashall:monitor'],
  ])('records the pid of the command itself, in a session of its own, %s', async (_name, shellopts) => {
    const dir = mkdtempSync(join(tmpdir(), 'launch-detached-'));
    dirs.push(dir);
    const pidfile = join(dir, 'sleeper.pid');
    const script = `source "${COMMON}" && launch_detached "${pidfile}" "${dir}/out.log" sleep 600`;
    await run('bash', ['-c', script], { env: { ...process.env, SHELLOPTS: shellopts } });

    const pid = Number(readFileSync(pidfile, 'utf8').trim());
    started.push(pid);
    expect(commandLine(pid)).toBe('sleep 600');
    const { stdout } = await run('ps', ['-o', 'sid=', '-p', String(pid)]);
    expect(Number(stdout.trim())).toBe(pid);
  });
});
