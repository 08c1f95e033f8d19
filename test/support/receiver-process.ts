import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('./receiver-main.ts', import.meta.url));

export interface ReceiverStats {
  count: number;
  /** performance.now() of the receiver process at the first and last delivery since the reset (0: none). */
  firstAt: number;
  lastAt: number;
}

/**
 * The webhook receiver (receiver-main.ts) as its own process, so neither the dispatcher nor the baseline loop
 * shares an event loop with it.
 */
export async function receiverProcess() {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const m = /^PORT (\d+)$/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
  });
  const origin = `http://127.0.0.1:${port}`;
  const ctl = async <T>(path: string, method = 'GET'): Promise<T> => {
    const res = await fetch(`${origin}/_ctl/${path}`, { method });
    if (res.status !== 200) throw new Error(`receiver control ${path}: ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    origin,
    pid: child.pid!,
    url: (path: string) => `${origin}${path}`,
    /** Zeroes the counters; `record` keeps every arrival's event id and wall-clock time (the latency run). */
    reset: (record = false) => ctl(`reset?record=${record ? 1 : 0}`, 'POST'),
    stats: () => ctl<ReceiverStats>('stats'),
    /** [event id, Date.now() at arrival] for every delivery since a recording reset. */
    arrivals: () => ctl<[string, number][]>('arrivals'),
    async stop(): Promise<void> {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof receiverProcess>>;
