import type { Buffer } from 'node:buffer';
import { Worker } from 'node:worker_threads';
import type { HashedBlock } from './row-hasher.js';

/** What receives the rows, a block at a time, in their order: the trail check's `block`. */
export interface RowSink {
  block(rows: HashedBlock): void;
}

// Blocks sent to the threads and not yet answered, 4 a thread up to 16 in all: enough to keep them busy while
// this thread checks the window proof, and no more, since each holds its 4 MiB or so of the export until answered.
const inFlightOf = (threads: number) => Math.min(4 * threads, 16);
// Blocks read and not yet taken, answered or not: the threads work ahead while this thread is busy. An answer of
// rows of the usual size holds about a sixth of its block (ids, times, hashes).
const AHEAD = 64;

/**
 * A worker thread (row-hasher.ts) and the answers it owes, in the order of the blocks it was sent; the memory of
 * each block it answered goes to `spare`.
 */
function hasher(spare: ArrayBuffer[] | undefined) {
  const worker = new Worker(new URL('./row-hasher.js', import.meta.url), { workerData: 'row-hasher' });
  const owed: { resolve(h: HashedBlock): void; reject(e: unknown): void }[] = [];
  const fail = (err: unknown) => {
    for (const { reject } of owed.splice(0)) reject(err);
  };
  let gone: Error | undefined;
  worker.on('message', ({ hashed, memory }: { hashed: HashedBlock; memory: ArrayBuffer }) => {
    spare?.push(memory);
    owed.shift()?.resolve(hashed);
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail((gone = new Error(`a row thread stopped (exit code ${code})`))));
  return {
    /** Sends a block of lineBlocks, its memory moved to the thread; refused at once once the thread is gone. */
    send(block: Buffer): Promise<HashedBlock> {
      const answer = gone
        ? Promise.reject(gone)
        : new Promise<HashedBlock>((resolve, reject) => owed.push({ resolve, reject }));
      if (!gone) worker.postMessage(block, [block.buffer as ArrayBuffer]);
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
 * Starts reading the rows of blocks of whole lines (lineBlocks, fileBlocks) on `threads` worker threads, at once: `take` gives each block's
 * rows to a sink, in the blocks' order, as eachLine gives them, so with the same findings in the same order as
 * reading them on this thread. `stop` ends the threads; call it also when the rows are not taken. The memory of
 * each block read goes to `spare`, if given, for the reader of the blocks to read more into (fileBlocks).
 */
export function rowThreads(blocks: AsyncIterable<Buffer>, threads: number, spare?: ArrayBuffer[]) {
  const hashers = Array.from({ length: threads }, () => hasher(spare));
  const inFlightAtMost = inFlightOf(threads);
  const answers: Promise<HashedBlock>[] = [];
  const sent = signal();
  // An answer came, or one was taken: the reader may send more.
  const progress = signal();
  let inFlight = 0;
  const answered = () => {
    inFlight -= 1;
    progress.settle();
  };
  let stopped = false;
  let read = false;
  const reading = (async () => {
    try {
      let n = 0;
      for await (const block of blocks) {
        if (stopped) break;
        const answer = hashers[n++ % threads]!.send(block);
        inFlight += 1;
        answer.then(answered, answered);
        answers.push(answer);
        sent.settle();
        while ((inFlight >= inFlightAtMost || answers.length >= AHEAD) && !stopped) await progress.wait();
        if (stopped) break;
      }
    } finally {
      read = true;
      sent.settle();
    }
  })();
  reading.catch(() => undefined);
  return {
    async take(sink: RowSink): Promise<void> {
      for (;;) {
        while (answers.length === 0 && !read) await sent.wait();
        const answer = answers.shift();
        if (!answer) break;
        progress.settle();
        sink.block(await answer);
      }
      await reading;
    },
    async stop(): Promise<void> {
      stopped = true;
      progress.settle();
      await Promise.all(hashers.map((h) => h.stop()));
    },
  };
}
