// A worker thread of the verifier command (row-threads.ts): it reads the rows of the blocks of lines it is sent,
// and answers each block with what the trail check needs of its rows, in their order.
import * as buffer from 'node:buffer';
import { parentPort, workerData } from 'node:worker_threads';
import { asBuffer, eachLineFeed, eachLineOf } from './line-reader.js';
import { rowLeafOfBytes } from './row-bytes.js';
import { rowLeaf, type RowLeaf } from './row-leaf.js';

/** A line's JSON value; undefined where it is not JSON, which rowLeaf refuses. */
function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

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

/**
 * The rows of a block of whole lines (line-reader.ts), as the verifier command reads them: each read from its
 * bytes (row-bytes.ts) where it can be, else as JSON.parse and rowLeaf read it.
 */
export function hashBlock(block: Uint8Array): HashedBlock {
  const ids: string[] = [];
  const idEnds: number[] = [];
  const times: number[] = [];
  const refusedAt: number[] = [];
  const refusedProblem: number[] = [];
  const problems = new Map<string, number>();
  let hashes = new Uint8Array(32 * 1024);
  let end = 0;
  const add = (leaf: RowLeaf | string) => {
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
  };
  const bytes = asBuffer(block);
  // Bytes that are not UTF-8 are not a string's: the command refuses them, and they are read as text here.
  const fromBytes = typeof buffer.isUtf8 === 'function' && buffer.isUtf8(bytes);
  eachLineFeed(bytes, (start, stop) => {
    const leaf = fromBytes ? rowLeafOfBytes(bytes, start, stop) : undefined;
    if (leaf) add(leaf);
    else eachLineOf(bytes.toString('utf8', start, stop), (line) => add(rowLeaf(parsed(line))));
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
// The block's memory goes back with its answer, for the reader to read another block into (fileBlocks).
if (workerData === 'row-hasher')
  parentPort!.on('message', (block: Uint8Array) => {
    const hashed = hashBlock(block);
    parentPort!.postMessage({ hashed, memory: block.buffer }, [
      block.buffer as ArrayBuffer,
      hashed.idEnds.buffer as ArrayBuffer,
      hashed.times.buffer as ArrayBuffer,
      hashed.refusedAt.buffer as ArrayBuffer,
      hashed.refusedProblem.buffer as ArrayBuffer,
      hashed.hashes.buffer as ArrayBuffer,
    ]);
  });
