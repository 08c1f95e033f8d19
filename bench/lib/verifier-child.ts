// One measure of bench:integrity's verifier part, run in a process of its own (verifier-throughput.ts): an
// auditor's verifier holds nothing but its own input, and a heap that held the others' would make its collections
// slower than they are. Prints {"seconds": …} for the timed work alone; what it needs first is made untimed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  encodeLeaf,
  hashLeaf,
  leafEventOf,
  leafHashOf,
  parseVerifierKey,
  trailCheck,
  type ListedCheckpoint,
  type TrailCheck,
  type VerifierKey,
  type WindowProof,
} from '@audit-trail/integrity-verifier';
// The verifier's inner steps, timed one by one, are not part of its published API: reached by path.
import { eachLineFeed, fileBlocks } from '../../packages/integrity-verifier/src/line-reader.js';
import { rowLeafOfBytes } from '../../packages/integrity-verifier/src/row-bytes.js';
import type { VerifierFiles } from './verifier-dataset.js';

export const MEASURES = [
  'readLines',
  'parse',
  'leafFromBytes',
  'sha256',
  'encodeAndSha256',
  'trailCheck',
  'command',
  'commandOneThread',
] as const;
export type Measure = (typeof MEASURES)[number];
type Verifier = typeof import('@audit-trail/integrity-verifier');

const json = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;
const lines = (files: VerifierFiles) => readFileSync(files.export, 'utf8').split('\n').filter(Boolean);

function verified(result: TrailCheck, rows: number) {
  if (!result.ok || result.rows !== rows || result.leaves !== rows)
    throw new Error(`not verified: ${JSON.stringify({ ...result, findings: result.findings.slice(0, 3) })}`);
}

/**
 * The timed work of each measure, after its untimed preparation. The floors do what the command does, each
 * alone: reading the lines as it reads them, the leaf of each row from its bytes as it reads them, the leaf hash of
 * encodings made beforehand, and the encoding and hash together; and JSON.parse, which it leaves only the rows it
 * is not sure of.
 */
const measures: Record<
  Measure,
  (files: VerifierFiles, origin: string, rows: number) => (() => unknown) | Promise<() => unknown>
> = {
  readLines: (files) => async () => {
    let n = 0;
    const spare: ArrayBuffer[] = [];
    for await (const block of fileBlocks(files.export, 4 << 20, spare)) {
      eachLineFeed(block, () => (n += 1));
      spare.push(block.buffer as ArrayBuffer);
    }
    return n;
  },
  parse: (files) => {
    const all = lines(files);
    return () => all.map((l) => JSON.parse(l) as unknown).length;
  },
  leafFromBytes: (files) => {
    const all = lines(files).map((l) => Buffer.from(l));
    return () => all.reduce((n, l) => n + rowLeafOfBytes(l, 0, l.length)!.hash[0]!, 0);
  },
  sha256: (files) => {
    const encodings = lines(files).map((l) =>
      encodeLeaf(leafEventOf(JSON.parse(l) as Record<string, unknown>)),
    );
    return () => encodings.reduce((n, e) => n + hashLeaf(e)[0]!, 0);
  },
  encodeAndSha256: (files) => {
    const events = lines(files).map((l) => leafEventOf(JSON.parse(l) as Record<string, unknown>));
    return () => events.reduce((n, e) => n + leafHashOf(e)[0]!, 0);
  },
  trailCheck: (files, origin, rows) => {
    const parsed = lines(files).map((l) => JSON.parse(l) as unknown);
    const keys = json<{ keys: { verifier_key: string }[] }>(files.keys).keys.map((k) =>
      parseVerifierKey(k.verifier_key),
    ) as VerifierKey[];
    const checkpoints = json<{ checkpoints: ListedCheckpoint[] }>(files.checkpoints).checkpoints;
    const proofs = files.proofs.map((f) => json<WindowProof>(f));
    return () => {
      const check = trailCheck({ keys, checkpoints, proofs, complete: true, origin });
      parsed.forEach((row, i) => check.row(row, i + 1));
      verified(check.finish(false), rows);
    };
  },
  command: (files, origin, rows) => command(files, origin, rows, []),
  commandOneThread: (files, origin, rows) => command(files, origin, rows, ['--threads', '0']),
};

/**
 * The verifier command over the files, as an auditor runs it (with `extra` options), checked to verify: the
 * package's compiled JavaScript, as npm gives it (its worker threads then load no TypeScript).
 */
async function command(files: VerifierFiles, origin: string, rows: number, extra: string[]) {
  const { verifyCommand } = (await import(
    pathToFileURL(join(files.compiled, 'verify-command.js')).href
  )) as Verifier;
  return () => run(verifyCommand, files, origin, rows, extra);
}

async function run(
  verifyCommand: Verifier['verifyCommand'],
  files: VerifierFiles,
  origin: string,
  rows: number,
  extra: string[],
) {
  let out = '';
  const argv = ['--keys', files.keys, '--checkpoints', files.checkpoints];
  argv.push(...files.proofs.flatMap((f) => ['--proof', f]), '--export', files.export);
  const code = await verifyCommand([...argv, '--origin', origin, '--json', ...extra], {
    out: (t) => (out += t),
    err: (t) => (out += t),
  });
  if (code !== 0) throw new Error(`exited with ${code}: ${out.slice(0, 500)}`);
  verified(JSON.parse(out) as TrailCheck, rows);
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const [measure, input] = process.argv.slice(2) as [Measure, string];
  const { files, origin, rows } = JSON.parse(input) as { files: VerifierFiles; origin: string; rows: number };
  const work = await measures[measure](files, origin, rows);
  const started = performance.now();
  await work();
  console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000 }));
}
