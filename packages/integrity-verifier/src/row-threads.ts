import type { Buffer } from 'node:buffer';
import { Worker } from 'node:worker_threads';
import type { HashedBlock } from './row-hasher.js';

/** What receives the rows, in their order: the trail check's `hashed` and `refused`. */
export interface RowSink {
  hashed(id: string, ts: number, hashes: Uint8Array, at: number): void;
  refused(position: number, problem: string): void;
}

// Blocks read and not yet taken, answered or not: the threads work ahead while this thread is busy (it reads and
// checks the window proof as they start), up to this many blocks (about a MiB each) of the export.
const AHEAD = 128;

/** A worker thread (row-hasher.ts) and the answers it owes, in the order of the blocks it was sent. */
function hasher() {
  const worker = new Worker(new URL('./row-hasher.js', import.meta.url), { workerData: 'row-hasher' });
  const owed: { resolve(h: HashedBlock): void; reject(e: unknown): void }[] = [];
  const fail = (err: unknown) => {
    for (const { reject } of owed.splice(0)) reject(err);
  };
  worker.on('message', (hashed: HashedBlock) => owed.shift()?.resolve(hashed));
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`a row thread stopped (exit code ${code})`)));
  return {
    /** Sends a block of lineBlocks, its memory moved to the thread. */
    send(block: Buffer): Promise<HashedBlock> {
      const answer = new Promise<HashedBlock>((resolve, reject) => owed.push({ resolve, reject }));
      worker.postMessage(block, [block.buffer as ArrayBuffer]);
      // Awaited in turn; a failure before then is the run's, not an unhandled rejection.
      answer.catch(() => undefined);
      return answer;
    },
    stop: () => worker.terminate(),
  };
}

/** A promise to wait on, and what settles it. */
function signal() {
  let settle = () => {};
  const wait = () => new Promise<void>((resolve) => (settle = resolve));
  return { wait, settle: () => settle() };
}

/**
 * Starts reading the rows of lineBlocks' blocks on `threads` worker threads, at once: `take` gives each row to a
 * sink, in the blocks' order, as eachLine gives them, so with the same findings in the same order as reading them
 * on this thread. `stop` ends the threads; call it also when the rows are not taken.
 */
export function rowThreads(blocks: AsyncIterable<Buffer>, threads: number) {
  const hashers = Array.from({ length: threads }, hasher);
  const answers: Promise<HashedBlock>[] = [];
  const sent = signal();
  const taken = signal();
  let stopped = false;
  let read = false;
  const reading = (async () => {
    try {
      let n = 0;
      for await (const block of blocks) {
        if (stopped) break;
        answers.push(hashers[n++ % threads]!.send(block));
        sent.settle();
        while (answers.length >= AHEAD && !stopped) await taken.wait();
      }
    } finally {
      read = true;
      sent.settle();
    }
  })();
  reading.catch(() => undefined);
  return {
    async take(sink: RowSink): Promise<void> {
      let position = 0;
      for (;;) {
        while (answers.length === 0 && !read) await sent.wait();
        const answer = answers.shift();
        if (!answer) break;
        taken.settle();
        const { ids, times, hashes, problems } = await answer;
        for (let i = 0; i < ids.length; i++) {
          position += 1;
          const problem = problems[i];
          if (typeof problem === 'string') sink.refused(position, problem);
          else sink.hashed(ids[i]!, times[i]!, hashes, 32 * i);
        }
      }
      await reading;
    },
    async stop(): Promise<void> {
      stopped = true;
      taken.settle();
      await Promise.all(hashers.map((h) => h.stop()));
    },
  };
}
