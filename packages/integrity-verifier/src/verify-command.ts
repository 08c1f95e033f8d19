import * as buffer from 'node:buffer';
import { Buffer } from 'node:buffer';
import { createReadStream, readFileSync, type ReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import * as os from 'node:os';
import { createGunzip, type Gunzip } from 'node:zlib';
import { parseArgs } from 'node:util';
import { type VerifierKey } from './checkpoint.js';
import { csvHeaderProblem, csvRecords, isCsvHeader, leafColumnsOf, rowOfCsv } from './csv-rows.js';
import { isCheckpointPage, isWindowProof, verifierKeysOfText } from './input-shapes.js';
import { eachLine, fileBlocks, lineBlocks } from './line-reader.js';
import { hashBlock } from './row-hasher.js';
import { rowThreads } from './row-threads.js';
import {
  trailCheckInTurns,
  type Finding,
  type TrailCheck,
  type TrailChecker,
  type WindowProof,
} from './trail-check.js';

export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const USAGE = `usage: audit-trail-integrity --keys FILE --checkpoints FILE... [--proof FILE... --export FILE]
                             [--partial] [--truncated] [--origin ORIGIN] [--threads N] [--json]

  --keys         GET /audit/integrity/keys's answer, or verifier keys one per line
  --checkpoints  pages of GET /audit/integrity/checkpoints (each checked, and each link between them)
  --proof        pages of GET /audit/integrity/proofs/window for the export's window
  --export       the export: POST /audit/export's JSON or NDJSON, or an export job's NDJSON or CSV file
                 (gzip or not)
  --partial      the export was filtered: its rows are checked, but leaves without a row are not missing
  --truncated    an NDJSON export was truncated (a JSON export says so itself)
  --origin       the checkpoints' origin, <log name>/tenants/<tenant>
  --threads      worker threads that read an NDJSON export's rows, 0 for none (by default one per core for an
                 export of 64 MiB or more; a CSV file is read on one thread)
Exit status: 0 everything verified, 1 something did not (each finding is printed), 2 unusable input.`;

class InputError extends Error {}

// buffer.isUtf8 is Node 18.14's; the package runs from 18.3 (package.json "engines").
function isUtf8(bytes: Buffer): boolean {
  if (typeof buffer.isUtf8 === 'function') return buffer.isUtf8(bytes);
  try {
    utf8(bytes);
    return true;
  } catch {
    return false;
  }
}

async function bytesOf(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new InputError(`${path}: ${(err as Error).message}`);
  }
}

/**
 * The text of bytes that must be UTF-8, or a TypeError: bytes changed into something that is not UTF-8 must not
 * read as U+FFFD, the replacement character, which an event's text may hold itself.
 */
const utf8 = (bytes: Uint8Array): string => new TextDecoder('utf-8', { fatal: true }).decode(bytes);

/** Blocks of whole lines (lineBlocks) that are UTF-8, as they come; unusable input at the first that is not. */
async function* utf8Blocks(path: string, blocks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const block of blocks) {
    if (!isUtf8(block)) throw new InputError(`${path}: not UTF-8 text`);
    yield block;
  }
}

/** A file's text (utf8), or unusable input. */
function textOf(path: string, bytes: Buffer): string {
  try {
    return utf8(bytes);
  } catch (err) {
    throw new InputError(`${path}: ${(err as Error).message}`);
  }
}

/** The JSON value of a file's text (textOf), or unusable input. */
function parsedText(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`${path}: ${(err as Error).message}`);
  }
}

/** The JSON value of a file's bytes, decoded whole: readFile's decoding as it reads costs more than JSON.parse. */
const parsedFile = (path: string, bytes: Buffer): unknown => parsedText(path, textOf(path, bytes));

const json = async (path: string): Promise<unknown> => parsedFile(path, await bytesOf(path));

async function keysOf(path: string): Promise<VerifierKey[]> {
  const read = verifierKeysOfText(textOf(path, await bytesOf(path)));
  if ('problem' in read) throw new InputError(`${path}: ${read.problem}`);
  return read.keys;
}

/** A page of `what`, or unusable input. */
function pageOf<T>(path: string, page: unknown, is: (v: unknown) => v is T, what: string): T {
  if (!is(page)) throw new InputError(`${path}: not a page of ${what}`);
  return page;
}

async function pages<T>(paths: string[], is: (v: unknown) => v is T, what: string): Promise<T[]> {
  return (await Promise.all(paths.map(json))).map((page, i) => pageOf(paths[i]!, page, is, what));
}

/**
 * The window proof's pages, each read and parsed only as the trail check takes it: a page is garbage once its
 * leaves are kept, where all of them read (and parsed) at once would fill the heap, new memory for the collector
 * to go over again and again.
 */
function* windowProofs(paths: string[]): Iterable<WindowProof> {
  for (const path of paths) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (err) {
      throw new InputError(`${path}: ${(err as Error).message}`);
    }
    yield pageOf(path, parsedFile(path, bytes), isWindowProof, 'GET /audit/integrity/proofs/window');
  }
}

// The export is read in blocks of this many bytes of whole lines: a worker thread's task, of about 8,000 rows. A
// block is one read of the file, and while the window proof is checked this thread reads about one block between
// two steps of that check: blocks of 1 MiB left the threads waiting for work (docs/benchmarks/journal.md).
const BLOCK = 4 << 20;
// The size of an NDJSON export (or its gzip file) from which its rows are read on worker threads, one per core,
// by default: below it starting them costs more than they save (docs/benchmarks/journal.md
// "bench:integrity").
const THREADS_FROM = 64 << 20;

// os.availableParallelism is Node 18.14's; the package runs from 18.3 (package.json "engines").
const cores = () =>
  typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;

/** The blocks, with a failure to read them (a broken gzip stream) as unusable input. */
async function* readable(path: string, blocks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* blocks;
  } catch (err) {
    // The file itself could not be read to its end: nothing about its rows is known.
    throw new InputError(`${path}: ${(err as Error).message}`);
  }
}

/** The rows of an export, given to the trail check: `read` gives them, and says whether the export says it was cut. */
interface ExportRows {
  read(check: TrailChecker): Promise<boolean>;
  /** Ends what reading them started (the worker threads), whether they were read or not. */
  close(): Promise<void>;
}

/**
 * The rows of a JSON export (its envelope) or an NDJSON one (an export job's file is gzipped), streamed. Worker
 * threads, if any, start on the rows at once: they work while this thread reads the window proof.
 */
async function exportRows(path: string, threads: number | undefined): Promise<ExportRows> {
  const unusable = (err: Error) => {
    throw new InputError(`${path}: ${err.message}`);
  };
  const file = await open(path).catch(unusable);
  // A directory opens, and fails to be read.
  const { buffer, bytesRead } = await file
    .read(Buffer.alloc(64), 0, 64, 0)
    .catch(unusable)
    .finally(() => file.close());
  // A JSON export is one document (the API writes it on one line; a pretty-printed copy has `{` alone on its
  // first); NDJSON has an event per line. The first line tells them apart.
  const gzip = buffer[0] === 0x1f && buffer[1] === 0x8b;
  const head = buffer.subarray(0, bytesRead).toString('utf8').trimStart();
  if (!gzip && head.startsWith('{') && (await isJsonDocument(path))) {
    const body = (await json(path)) as { events?: unknown[]; truncated?: boolean };
    if (!Array.isArray(body?.events)) throw new InputError(`${path}: no events array`);
    const events = body.events;
    return {
      read: async (check) => {
        events.forEach((e, i) => check.row(e, i + 1));
        return body.truncated === true;
      },
      close: async () => undefined,
    };
  }
  if (isCsvHeader(await firstLineOf(path, gzip))) return csvRows(path, gzip);
  const content = contentOf(path, gzip);
  // A file is read into the memory of blocks already read (fileBlocks); a gzip stream's are its own.
  const spare: ArrayBuffer[] | undefined = gzip ? undefined : [];
  const blocks = () =>
    utf8Blocks(
      path,
      spare ? readable(path, fileBlocks(path, BLOCK, spare)) : lineBlocks(content.chunks(), BLOCK),
    );
  const stop = content.stop;
  const count = threads ?? ((await stat(path)).size >= THREADS_FROM ? cores() : 0);
  if (count > 0) {
    const rows = rowThreads(blocks(), count, spare);
    return {
      read: async (check) => {
        await rows.take(check);
        return false;
      },
      close: async () => {
        stop();
        await rows.stop();
      },
    };
  }
  return {
    read: async (check) => {
      // Read as a row thread reads them (row-hasher.ts), on this thread.
      for await (const block of blocks()) {
        check.block(hashBlock(block));
        spare?.push(block.buffer as ArrayBuffer);
      }
      return false;
    },
    close: async () => stop(),
  };
}

/**
 * The file's bytes (gunzipped), streamed by `chunks`, with a failure to read them as unusable input. The file is
 * opened and piped only once read: a gzip stream's error must find its reader listening.
 */
function contentOf(path: string, gzip: boolean) {
  let opened: { input: ReadStream; gunzip: Gunzip | null } | undefined;
  return {
    async *chunks(): AsyncGenerator<Buffer> {
      const input = createReadStream(path, { highWaterMark: BLOCK });
      const gunzip = gzip ? createGunzip({ chunkSize: BLOCK }) : null;
      opened = { input, gunzip };
      // pipe passes on the file's bytes, not its failure: the gzip reader must fail with it.
      input.on('error', (err) => gunzip?.destroy(err));
      yield* readable(path, (gunzip ? input.pipe(gunzip) : input) as AsyncIterable<Buffer>);
    },
    stop: () => {
      opened?.input.destroy();
      opened?.gunzip?.destroy();
    },
  };
}

/** The file's first line (of its content, gunzipped), without its line end: what tells a CSV file apart. */
async function firstLineOf(path: string, gzip: boolean): Promise<string> {
  const content = contentOf(path, gzip);
  let head = '';
  try {
    for await (const chunk of content.chunks()) {
      head += chunk.toString('latin1');
      if (/[^\r\n\xef\xbb\xbf][\r\n]/.test(head) || head.length > 4096) break;
    }
  } catch {
    // What cannot be read is refused by the reader of its kind.
  } finally {
    content.stop();
  }
  // A byte-order mark (a file saved again by a spreadsheet) is no part of the line, TextDecoder drops it too; blank
  // lines before the header are no record.
  return head
    .replace(/^\xef\xbb\xbf/, '')
    .replace(/^[\r\n]+/, '')
    .split(/[\r\n]/)[0]!;
}

/**
 * The rows of an export job's CSV file (gzipped, or not), read on this thread: its header (csvHeaderProblem), then
 * each record as the event the API gives (rowOfCsv), numbered from 1 after the header. Text that is not UTF-8, a
 * header that is not the export's and a record too long for any event are unusable input.
 */
function csvRows(path: string, gzip: boolean): ExportRows {
  const content = contentOf(path, gzip);
  // Fatal, as utf8 is.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  async function* text() {
    for await (const chunk of content.chunks()) yield decoder.decode(chunk, { stream: true });
    yield decoder.decode();
  }
  async function* records() {
    try {
      yield* csvRecords(text());
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError(`${path}: ${(err as Error).message}`);
    }
  }
  return {
    read: async (check) => {
      let header: readonly string[] | undefined;
      let columns: readonly string[] = [];
      let n = 0;
      for await (const record of records()) {
        if (header === undefined) {
          const problem = csvHeaderProblem(record);
          if (problem) throw new InputError(`${path}: ${problem}`);
          header = record;
          columns = leafColumnsOf(header);
          continue;
        }
        n += 1;
        if (record.length !== header.length)
          check.unreadable(n, `a record of ${record.length} fields under a header of ${header.length}`);
        else check.row(rowOfCsv(record, columns), n);
      }
      return false;
    },
    close: async () => content.stop(),
  };
}

/**
 * Whether the file is one JSON document rather than NDJSON: its first line is `{` alone (pretty-printed), or a
 * whole object with an `events` array (as the API writes it). Any other first line is an NDJSON row, even one
 * that does not parse (a finding of its own).
 */
async function isJsonDocument(path: string): Promise<boolean> {
  const input = createReadStream(path);
  try {
    for await (const block of lineBlocks(input, 1)) {
      let first: string | undefined;
      eachLine(block, (line) => (first ??= line));
      if (first === undefined) continue;
      if (first.trim() === '{') return true;
      try {
        return Array.isArray((JSON.parse(first) as { events?: unknown } | null)?.events);
      } catch {
        return false;
      }
    }
    return false;
  } finally {
    input.destroy();
  }
}

const describe = (f: Finding): string =>
  f.kind === 'checkpoint' || f.kind === 'proof'
    ? `${f.kind} of ${f.tree_size} leaves: ${f.problem}`
    : f.kind === 'row'
      ? `row ${f.row}: ${f.problem}`
      : `${f.kind}: event ${f.event_id}${'leaf_index' in f ? ` (leaf ${f.leaf_index})` : ''}`;

const OPTIONS = {
  keys: { type: 'string' },
  checkpoints: { type: 'string', multiple: true },
  proof: { type: 'string', multiple: true },
  export: { type: 'string' },
  partial: { type: 'boolean', default: false },
  truncated: { type: 'boolean', default: false },
  origin: { type: 'string' },
  threads: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/**
 * The command's arguments. A flag that takes several files takes every argument after it up to the next flag, as
 * a shell's glob gives them (`--proof window-*.json`); any other argument without its flag is refused.
 */
function argsOf(argv: string[]) {
  const { values, tokens } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
    tokens: true,
  });
  // Rebuilt in the order given: pages are checked in turn.
  const files = { checkpoints: [] as string[], proof: [] as string[] };
  let last: string | undefined;
  for (const token of tokens) {
    if (token.kind === 'option') last = token.name;
    if (token.kind === 'option-terminator') last = undefined;
    if (last !== 'checkpoints' && last !== 'proof') {
      if (token.kind === 'positional')
        throw new InputError(`unexpected argument ${printable(token.value)}: each file follows its flag`);
      continue;
    }
    const file =
      token.kind === 'positional' ? token.value : token.kind === 'option' ? token.value : undefined;
    if (file !== undefined) files[last].push(file);
  }
  return {
    ...values,
    checkpoints: values.checkpoints && files.checkpoints,
    proof: values.proof && files.proof,
  };
}

// Control characters (escape sequences among them), line and paragraph separators and bidirectional overrides:
// text read from a file reaches the terminal only with these escaped, so that a hostile file cannot rewrite what
// the reader sees.
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * The text with every character that could move the cursor or reorder what a terminal shows escaped; JSON text
 * stays JSON that means the same (JSON.stringify leaves C1 controls, separators and overrides as they are).
 */
export const printable = (text: string): string =>
  text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The verifier command: what `audit-trail-integrity` runs. Returns its exit status. */
export async function verifyCommand(argv: string[], io: CommandIo): Promise<number> {
  try {
    const values = argsOf(argv);
    if (!values.keys || !values.checkpoints || Boolean(values.proof) !== Boolean(values.export))
      throw new InputError('--keys and --checkpoints are needed, and --proof goes with --export');
    const threads = values.threads === undefined ? undefined : Number(values.threads);
    if (threads !== undefined && !(/^\d+$/.test(values.threads!) && Number.isSafeInteger(threads)))
      throw new InputError(`--threads: not a number of threads: ${values.threads}`);
    // The export is opened first, so that its worker threads start while the window proof is read and checked;
    // an unusable export is still reported after any other unusable file.
    const opening = values.export ? exportRows(values.export, threads) : Promise.resolve(null);
    opening.catch(() => undefined);
    let result: TrailCheck;
    try {
      const check = await trailCheckInTurns({
        keys: await keysOf(values.keys),
        checkpoints: (
          await pages(values.checkpoints, isCheckpointPage, 'GET /audit/integrity/checkpoints')
        ).flatMap((p) => p.checkpoints),
        proofs: windowProofs(values.proof ?? []),
        complete: !values.partial,
        ...(values.origin ? { origin: values.origin } : {}),
      });
      const rows = await opening;
      const cut = rows ? await rows.read(check) : false;
      result = check.finish(cut || values.truncated);
    } finally {
      await (await opening.catch(() => null))?.close();
    }
    if (values.json) io.out(`${printable(JSON.stringify(result))}\n`);
    else {
      io.out(
        `${result.checkpoints} checkpoints verified, ${result.links} links between them consistent; ` +
          `${result.rows} rows against ${result.leaves} leaves` +
          (result.purged > 0
            ? `, ${result.purged} of them purged by the tenant's retention (horizon ${result.purged_before})\n`
            : '\n'),
      );
      for (const f of result.findings) io.out(`${printable(describe(f))}\n`);
      io.out(result.ok ? 'verified\n' : `NOT VERIFIED: ${result.findings.length} findings\n`);
    }
    return result.ok ? 0 : 1;
  } catch (err) {
    const usage =
      err instanceof InputError || String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
    if (!usage) throw err;
    io.err(`${printable((err as Error).message)}\n${USAGE}\n`);
    return 2;
  }
}
