// A worker thread of the verifier command (row-threads.ts): it reads the rows of the blocks of lines it is sent,
// and answers each block with what the trail check needs of its rows, in their order.
import { parentPort, workerData } from 'node:worker_threads';
import { eachLine } from './line-reader.js';
import { rowLeaf } from './row-leaf.js';

/** A block's rows: the i-th is refused with `problems[i]` if that is a string, or else has the i-th id and time. */
export interface HashedBlock {
  ids: string[];
  times: Float64Array;
  /** The rows' leaf hashes, 32 bytes each, at 32 × i. */
  hashes: Uint8Array;
  problems: (string | null)[];
}

/** The rows of a block of whole lines (line-reader.ts), as the verifier command reads them on its own thread. */
export function hashBlock(block: Uint8Array): HashedBlock {
  const ids: string[] = [];
  const times: number[] = [];
  const problems: (string | null)[] = [];
  let hashes = new Uint8Array(32 * 1024);
  eachLine(block, (line) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const leaf = rowLeaf(value);
    const i = ids.length;
    if (typeof leaf === 'string') {
      ids.push('');
      times.push(0);
      problems.push(leaf);
      return;
    }
    // Refused rows take their place too: after many of them the buffer may need to more than double.
    if (hashes.length < 32 * (i + 1)) {
      const more = new Uint8Array(Math.max(hashes.length * 2, 64 * (i + 1)));
      more.set(hashes);
      hashes = more;
    }
    hashes.set(leaf.hash, 32 * i);
    ids.push(leaf.id);
    times.push(leaf.ts);
    problems.push(null);
  });
  return { ids, times: Float64Array.from(times), hashes, problems };
}

// Only on a thread row-threads.ts started: imported anywhere else, it only exports hashBlock.
if (workerData === 'row-hasher')
  parentPort!.on('message', (block: Uint8Array) => {
    const hashed = hashBlock(block);
    parentPort!.postMessage(hashed, [
      hashed.times.buffer as ArrayBuffer,
      hashed.hashes.buffer as ArrayBuffer,
    ]);
  });
