import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait-for.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LOG_DIR = `${ROOT}.data/test-logs`;

export type ServiceName = 'ingest' | 'projector' | 'gateway' | 'dispatcher';

/** A service run as a real process (node + tsx loader, one PID, so SIGKILL kills exactly it). */
export class ServiceProcess {
  private child: ChildProcess | undefined;
  private starts = 0;

  constructor(
    readonly name: ServiceName,
    private readonly env: Record<string, string>,
    readonly port: number,
    /** Where `/metrics` is served: the health port, except for the gateway. */
    readonly metricsPort = port,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  get metricsUrl() {
    return `http://127.0.0.1:${this.metricsPort}/metrics`;
  }

  async start(): Promise<void> {
    mkdirSync(LOG_DIR, { recursive: true });
    const log = createWriteStream(`${LOG_DIR}/${this.env.TEST_ID}-${this.name}-${this.starts++}.log`);
    const child = spawn(process.execPath, ['--import', 'tsx', `services/${this.name}/src/main.ts`], {
      cwd: ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Two sources share one file: neither may end it.
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    child.once('close', () => log.end());
    this.child = child;
    await waitFor(`${this.name} /readyz`, async () => {
      if (child.exitCode !== null) throw new Error(`${this.name} exited with ${child.exitCode}`);
      const res = await fetch(`${this.url}/readyz`);
      return res.status === 200;
    });
  }

  /** Stops the process with the signal and waits until it is gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    return exited;
  }
}
