import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS } from '../../services/shared/src/platform/node-flags.js';
import { waitFor } from './wait-for.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LOG_DIR = `${ROOT}.data/test-logs`;

export type ServiceName =
  'ingest' | 'projector' | 'gateway' | 'dispatcher' | 'exporter' | 'notary' | 'custodian';

// Where service processes run from unless one is told otherwise: a compiled build, or their TypeScript via tsx.
let defaultCompiledApp: string | undefined;

/** From now on, service processes run from this compiled build (compiled-app.ts) unless told otherwise. */
export function runServicesCompiledFrom(app: string): void {
  defaultCompiledApp = app;
}

/**
 * A service run as a real process (one PID, so SIGKILL kills exactly it): compiled JavaScript, or its TypeScript
 * through the tsx loader.
 */
export class ServiceProcess {
  private child: ChildProcess | undefined;
  private starts = 0;
  private logPath: string | undefined;
  /** Where a compiled build of the service lives (compiled-app.ts), or undefined: its TypeScript through tsx. */
  private compiledApp: string | undefined = defaultCompiledApp;

  constructor(
    readonly name: ServiceName,
    private readonly env: Record<string, string>,
    readonly port: number,
    /** Where `/metrics` is served: the health port, except for the gateway. */
    readonly metricsPort = port,
    /** What must exist before it can become ready, which it does not create itself (the gateway's schema). */
    private readonly prepare: () => Promise<void> = async () => undefined,
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

  /** Runs the service from a compiled build laid out as the service image has it, as the image runs it. */
  runCompiledFrom(app: string): this {
    this.compiledApp = app;
    return this;
  }

  /** Starts the process and waits until it is ready. */
  async start(): Promise<void> {
    await this.prepare();
    this.launch();
    await this.ready();
  }

  /** Starts the process without waiting for it: for tests of what it does before it is ready. */
  launch(): void {
    mkdirSync(LOG_DIR, { recursive: true });
    // The port tells apart processes of one test that run the same service.
    this.logPath = `${LOG_DIR}/${this.env.TEST_ID}-${this.name}-${this.port}-${this.starts++}.log`;
    const log = createWriteStream(this.logPath);
    // A benchmark run with SERVICE_CPU_PROFILE_DIR set leaves a V8 CPU profile of each service it started there.
    const profile = process.env.SERVICE_CPU_PROFILE_DIR;
    const node = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
    const entry = this.compiledApp
      ? ['--conditions=compiled', `services/${this.name}/src/main.js`]
      : ['--import', 'tsx', `services/${this.name}/src/main.ts`];
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...node, ...entry], {
      cwd: this.compiledApp ?? ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Two sources share one file: neither may end it.
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    child.once('close', () => log.end());
    this.child = child;
  }

  async ready(): Promise<void> {
    await this.prepare();
    await waitFor(`${this.name} /readyz`, async () => {
      if (!this.running) throw new Error(`${this.name} exited with ${this.child?.exitCode}`);
      const res = await fetch(`${this.url}/readyz`);
      return res.status === 200;
    });
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The log lines of the current run so far, parsed (a line still being written is left out). */
  logged(): Record<string, unknown>[] {
    if (!this.logPath) return [];
    return readFileSync(this.logPath, 'utf8')
      .split('\n')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
  }

  /** Waits until the process logged a line with the message `msg` that `matches` accepts. */
  async waitForLog(
    msg: string,
    matches: (line: Record<string, unknown>) => boolean = () => true,
  ): Promise<Record<string, unknown>> {
    return waitFor(`${this.name} to log "${msg}"`, async () =>
      this.logged().find((line) => line.msg === msg && matches(line)),
    );
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
