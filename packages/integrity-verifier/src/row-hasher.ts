// A worker thread of the verifier command (row-threads.ts): it reads the rows of the blocks of lines it is sent,
// and answers each block with what the trail check needs of its rows, in their order.
import { parentPort, workerData } from 'node:worker_threads';
import { eachLine } from './line-reader.js';
import { rowLeaf } from './row-leaf.js';

/**
 * A block's rows, in order. Row i's event id is the text of `ids` from `idEnds[i - 1]` (0 for the first) to
 * `idEnds[i]`, its time `times[i]`, its leaf hash the 32 bytes of `hashes` from 32 × i; a refused row has an
 * empty id, and is the j-th of `refusedAt` (its place in the block), refused for `problems[refusedProblem[j]]`.
 * Ids and refusals travel in a few strings and typed arrays: an answer is copied between threads, and thousands
 * of strings or objects would each be made again.
 */
export interface HashedBlock {
  ids: string;
  idEnds: Int32Array;
  times: Float64Array;
  hashes: Uint8Array;
  refusedAt: Int32Array;
  refusedProblem: Int32Array;
  /** The block's distinct problems. */
  problems: string[];
}

/** The rows of a block of whole lines (line-reader.ts), as the verifier command reads them on its own thread. */
export function hashBlock(block: Uint8Array): HashedBlock {
  const ids: string[] = [];
  const idEnds: number[] = [];
  const times: number[] = [];
  const refusedAt: number[] = [];
  const refusedProblem: number[] = [];
  const problems = new Map<string, number>();
  let hashes = new Uint8Array(32 * 1024);
  let end = 0;
  eachLine(block, (line) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const leaf = rowLeaf(value);
    const i = times.length;
    if (typeof leaf === 'string') {
      idEnds.push(end);
      times.push(0);
      refusedAt.push(i);
      if (!problems.has(leaf)) problems.set(leaf, problems.size);
      refusedProblem.push(problems.get(leaf)!);
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
    end += leaf.id.length;
    idEnds.push(end);
    times.push(leaf.ts);
  });
  return {
    ids: ids.join(''),
    idEnds: Int32Array.from(idEnds),
    times: Float64Array.from(times),
    hashes,
    refusedAt: Int32Array.from(refusedAt),
    refusedProblem: Int32Array.from(refusedProblem),
    problems: [...problems.keys()],
  };
}

// Only on a thread row-threads.ts started: imported anywhere else, it only exports hashBlock.
if (workerData === 'row-hasher')
  parentPort!.on('message', (block: Uint8Array) => {
    const hashed = hashBlock(block);
    parentPort!.postMessage(hashed, [
      hashed.idEnds.buffer as ArrayBuffer,
      hashed.times.buffer as ArrayBuffer,
      hashed.refusedAt.buffer as ArrayBuffer,
      hashed.refusedProblem.buffer as ArrayBuffer,
      hashed.hashes.buffer as ArrayBuffer,
    ]);
  });
