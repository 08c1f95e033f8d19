import { Buffer } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { parseArgs } from 'node:util';
import { parseVerifierKey, type VerifierKey } from './checkpoint.js';
import { isCheckpointPage, isWindowProof, verifierKeysOf } from './input-shapes.js';
import { trailCheck, type Finding } from './trail-check.js';

export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const USAGE = `usage: audit-trail-integrity --keys FILE --checkpoints FILE... [--proof FILE... --export FILE]
                             [--partial] [--truncated] [--origin ORIGIN] [--json]

  --keys         GET /audit/integrity/keys's answer, or verifier keys one per line
  --checkpoints  pages of GET /audit/integrity/checkpoints (each checked, and each link between them)
  --proof        pages of GET /audit/integrity/proofs/window for the export's window
  --export       the export: POST /audit/export's JSON or NDJSON, or an export job's NDJSON file (gzip)
  --partial      the export was filtered: its rows are checked, but leaves without a row are not missing
  --truncated    an NDJSON export was truncated (a JSON export says so itself)
  --origin       the checkpoints' origin, <log name>/tenants/<tenant>
Exit status: 0 everything verified, 1 something did not (each finding is printed), 2 unusable input.`;

class InputError extends Error {}

async function json(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new InputError(`${path}: ${(err as Error).message}`);
  }
}

async function keysOf(path: string): Promise<VerifierKey[]> {
  const text = await readFile(path, 'utf8').catch((err: Error) => {
    throw new InputError(`${path}: ${err.message}`);
  });
  const lines = text.trimStart().startsWith('{')
    ? verifierKeysOf(await json(path))
    : text.split('\n').filter((l) => l.trim() !== '');
  if (!lines) throw new InputError(`${path}: not an answer of GET /audit/integrity/keys`);
  return lines.map((line) => {
    const key = parseVerifierKey(line.trim());
    if (!key) throw new InputError(`${path}: not a verifier key: ${line}`);
    return key;
  });
}

async function pages<T>(paths: string[], is: (v: unknown) => v is T, what: string): Promise<T[]> {
  return (await Promise.all(paths.map(json))).map((page, i) => {
    if (!is(page)) throw new InputError(`${paths[i]}: not a page of ${what}`);
    return page;
  });
}

/**
 * The rows of a JSON export (its envelope) or an NDJSON one (an export job's file is gzipped), streamed, and
 * whether the export says it was cut.
 */
async function readExport(path: string, row: (value: unknown, n: number) => void): Promise<boolean> {
  const file = await open(path).catch((err: Error) => {
    throw new InputError(`${path}: ${err.message}`);
  });
  const { buffer, bytesRead } = await file.read(Buffer.alloc(64), 0, 64, 0).finally(() => file.close());
  // A JSON export is one document (the API writes it on one line; a pretty-printed copy has `{` alone on its
  // first); NDJSON has an event per line. The first line tells them apart.
  const gzip = buffer[0] === 0x1f && buffer[1] === 0x8b;
  const head = buffer.subarray(0, bytesRead).toString('utf8').trimStart();
  if (!gzip && head.startsWith('{') && (await isJsonDocument(path))) {
    const body = (await json(path)) as { events?: unknown[]; truncated?: boolean };
    if (!Array.isArray(body?.events)) throw new InputError(`${path}: no events array`);
    body.events.forEach((e, i) => row(e, i + 1));
    return body.truncated === true;
  }
  const input = gzip ? createReadStream(path).pipe(createGunzip()) : createReadStream(path);
  let n = 0;
  const parsed = (line: string) => {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      return undefined;
    }
  };
  try {
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      if (line.trim() !== '') row(parsed(line), ++n);
    }
  } catch (err) {
    // The file itself could not be read to its end (a broken gzip stream): nothing about its rows is known.
    throw new InputError(`${path}: ${(err as Error).message}`);
  }
  return false;
}

/**
 * Whether the file is one JSON document rather than NDJSON: its first line is `{` alone (pretty-printed), or a
 * whole object with an `events` array (as the API writes it). Any other first line is an NDJSON row, even one
 * that does not parse (a finding of its own).
 */
async function isJsonDocument(path: string): Promise<boolean> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      if (line.trim() === '{') return true;
      try {
        return Array.isArray((JSON.parse(line) as { events?: unknown } | null)?.events);
      } catch {
        return false;
      }
    }
    return false;
  } finally {
    lines.close();
  }
}

const describe = (f: Finding): string =>
  f.kind === 'checkpoint' || f.kind === 'proof'
    ? `${f.kind} of ${f.tree_size} leaves: ${f.problem}`
    : f.kind === 'row'
      ? `row ${f.row}: ${f.problem}`
      : `${f.kind}: event ${f.event_id}${'leaf_index' in f ? ` (leaf ${f.leaf_index})` : ''}`;

/** The verifier command: what `audit-trail-integrity` runs. Returns its exit status. */
export async function verifyCommand(argv: string[], io: CommandIo): Promise<number> {
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        keys: { type: 'string' },
        checkpoints: { type: 'string', multiple: true },
        proof: { type: 'string', multiple: true },
        export: { type: 'string' },
        partial: { type: 'boolean', default: false },
        truncated: { type: 'boolean', default: false },
        origin: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    if (!values.keys || !values.checkpoints || Boolean(values.proof) !== Boolean(values.export))
      throw new InputError('--keys and --checkpoints are needed, and --proof goes with --export');
    const check = trailCheck({
      keys: await keysOf(values.keys),
      checkpoints: (
        await pages(values.checkpoints, isCheckpointPage, 'GET /audit/integrity/checkpoints')
      ).flatMap((p) => p.checkpoints),
      proofs: await pages(values.proof ?? [], isWindowProof, 'GET /audit/integrity/proofs/window'),
      complete: !values.partial,
      ...(values.origin ? { origin: values.origin } : {}),
    });
    const cut = values.export ? await readExport(values.export, check.row) : false;
    const result = check.finish(cut || values.truncated);
    if (values.json) io.out(`${JSON.stringify(result)}\n`);
    else {
      io.out(
        `${result.checkpoints} checkpoints verified, ${result.links} links between them consistent; ` +
          `${result.rows} rows against ${result.leaves} leaves\n`,
      );
      for (const f of result.findings) io.out(`${describe(f)}\n`);
      io.out(result.ok ? 'verified\n' : `NOT VERIFIED: ${result.findings.length} findings\n`);
    }
    return result.ok ? 0 : 1;
  } catch (err) {
    const usage =
      err instanceof InputError || String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
    if (!usage) throw err;
    io.err(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
}
