import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { verifierKeyOf } from '../../../services/shared/src/integrity/checkpoint-signer.js';
import { key, ORIGIN, trailScenarios } from '../../../test/support/trail-fixture.js';
import { leafEventOf, leafHashOf } from './leaf.js';
import { hashBlock } from './row-hasher.js';
import { rowLeaf } from './row-leaf.js';
import { verifyCommand } from './verify-command.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'row-threads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const COMMAND = fileURLToPath(new URL('./verify-command.ts', import.meta.url));
const ROW_THREADS = fileURLToPath(new URL('./row-threads.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

let files = 0;
const file = (content: string | Uint8Array, ext = '') => {
  const path = join(dir, `f${files++}${ext}`);
  writeFileSync(path, content);
  return path;
};

// Lines an export may hold besides events: each a row finding, or nothing, read alike on every thread.
const ODD_LINES = ['', '   ', '[1]', 'null', '{"event_id":', '{"a":1}\r{"b":2}', '"text"', '{}'];

/** Each shared scenario as the command's files, its rows as NDJSON and gzipped NDJSON. */
function commandArgs(): { name: string; ndjson: string[]; gzip: string[] }[] {
  const keys = file(JSON.stringify({ keys: [{ verifier_key: verifierKeyOf(key) }] }));
  return trailScenarios().map((s, n) => {
    // Every other scenario with CRLF and odd lines.
    const odd = n % 2 === 1;
    const lines = s.rows.map(
      (r, i) => `${JSON.stringify(r)}${odd && i % 7 === 3 ? `\n${ODD_LINES[i % 8]}` : ''}`,
    );
    const text = odd ? `${lines.join('\r\n')}\r\n${ODD_LINES.join('\n')}` : lines.join('\n');
    const base = ['--keys', keys, '--checkpoints', file(JSON.stringify({ checkpoints: s.checkpoints }))];
    base.push(...s.proofs.flatMap((p) => ['--proof', file(JSON.stringify(p))]), '--origin', ORIGIN, '--json');
    if (!s.complete) base.push('--partial');
    if (s.truncated) base.push('--truncated');
    return {
      name: s.name,
      ndjson: [...base, '--export', file(text)],
      gzip: [...base, '--export', file(gzipSync(text))],
    };
  });
}

/** The command on each argv with `--threads`, in a process of its own: worker threads load its TypeScript. */
async function onThreads(argvs: string[][], threads: number) {
  const script = file(
    `import { verifyCommand } from ${JSON.stringify(COMMAND)};
const out = [];
for (const argv of JSON.parse(process.argv[2])) {
  let text = '';
  const code = await verifyCommand([...argv, '--threads', '${threads}'], { out: (t) => (text += t), err: (t) => (text += t) });
  out.push({ code, text });
}
console.log(JSON.stringify(out));`,
    '.mjs',
  );
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script, JSON.stringify(argvs)], {
    cwd: ROOT,
    maxBuffer: 64 << 20,
  });
  return JSON.parse(stdout) as { code: number; text: string }[];
}

async function onThisThread(argvs: string[][]) {
  const out = [];
  for (const argv of argvs) {
    let text = '';
    const code = await verifyCommand([...argv, '--threads', '0'], {
      out: (t) => (text += t),
      err: (t) => (text += t),
    });
    out.push({ code, text });
  }
  return out;
}

describe('the row threads', () => {
  it('give the findings of every scenario, in the same order, as reading the rows on one thread', async () => {
    const scenarios = commandArgs();
    // Starting a thread that loads TypeScript takes a while: the gzip files and three threads on a few only.
    const few = scenarios.filter((s) => ['tampered rows', 'honest cut'].includes(s.name));
    const argvs = [...scenarios.map((s) => s.ndjson), ...few.map((s) => s.gzip)];
    const expected = await onThisThread(argvs);
    expect(expected.some((r) => r.code === 1) && expected.some((r) => r.code === 0)).toBe(true);
    expect(await onThreads(argvs, 2)).toEqual(expected);
    expect(await onThreads([few[0]!.ndjson], 3)).toEqual(await onThisThread([few[0]!.ndjson]));
  }, 60_000);

  it('stop, and the command refuses the input, when the file cannot be read to its end', async () => {
    const argv = commandArgs()[0]!.ndjson;
    const whole = gzipSync(Array.from({ length: 5000 }, (_, i) => `{"n":${i * 7919}}`).join('\n'));
    const broken = file(whole.subarray(0, whole.length / 2));
    const withBroken = [...argv.slice(0, argv.indexOf('--export')), '--export', broken];
    const [result] = await onThreads([withBroken], 2);
    expect(result!.code).toBe(2);
    expect(result!.text).toMatch(/unexpected end of file/);
  }, 60_000);

  it('read a block of lines as the trail check reads each row', () => {
    // Thousands of refused rows before an event: their places in the block's hashes come first.
    const row = trailScenarios()[0]!.rows[0]!;
    const many = hashBlock(Buffer.from(`${'{}\n'.repeat(5000)}${JSON.stringify(row)}\n`));
    expect([...many.refusedAt]).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    // One problem, named once for all 5,000.
    expect(many.problems).toEqual([rowLeaf({})]);
    expect(new Set(many.refusedProblem)).toEqual(new Set([0]));
    expect(many.ids).toBe((row as { event_id: string }).event_id);
    expect(many.idEnds[4999]).toBe(0);
    expect(many.idEnds[5000]).toBe(many.ids.length);
    expect(many.hashes.subarray(32 * 5000, 32 * 5001)).toEqual(
      new Uint8Array(leafHashOf(leafEventOf(row as Record<string, unknown>))),
    );

    // The scenario's last row is not an object.
    const rows = trailScenarios()[1]!.rows as { event_id?: string }[];
    const hashed = hashBlock(Buffer.from(`${rows.map((r) => JSON.stringify(r)).join('\n')}\nnot json`));
    expect(hashed.times).toHaveLength(rows.length + 1);
    expect(hashed.ids).toBe(rows.map((r) => r.event_id ?? '').join(''));
    expect([...hashed.refusedAt]).toEqual([rows.length - 1, rows.length]);
    expect([...hashed.refusedProblem].map((p) => hashed.problems[p])).toEqual([
      'not a JSON object',
      'not a JSON object',
    ]);
  });

  it('read no further ahead than they are taken, keep the blocks in order, give their memory back, and stop reading when stopped', async () => {
    // 600 small blocks, every third with a refused row after its event; then a source without end, never taken.
    const row = JSON.stringify(trailScenarios()[0]!.rows[0]);
    const script = file(
      `import { rowThreads } from ${JSON.stringify(ROW_THREADS)};
// Each block with an ArrayBuffer of its own, as lineBlocks gives them: Node's pooled ones cannot be moved.
const own = (text) => {
  const block = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  block.write(text);
  return block;
};
let yielded = 0;
async function* blocks() {
  for (let i = 0; i < 600; i++) {
    yielded += 1;
    yield own(${JSON.stringify(`${row}\n`)} + (i % 3 === 0 ? '{}\\n' : ''));
  }
}
// The memory of each block answered comes back, whole, to be read into again.
const spare = [];
const rows = rowThreads(blocks(), 2, spare);
let taken = 0, most = 0, events = 0, refused = 0;
await rows.take({
  block(b) {
    taken += 1;
    most = Math.max(most, yielded - taken);
    events += b.times.length - b.refusedAt.length;
    refused += b.refusedAt.length;
    if (b.refusedAt.length !== (taken % 3 === 1 ? 1 : 0)) throw new Error('block ' + taken + ' out of order');
  },
});
await rows.stop();
let read = 0, ended = false;
async function* endless() {
  try {
    for (;;) { read += 1; yield own('{}\\n'); }
  } finally { ended = true; }
}
const idle = rowThreads(endless(), 2);
await new Promise((r) => setTimeout(r, 3000));
const readBeforeStop = read;
await idle.stop();
await new Promise((r) => setTimeout(r, 200));
const back = spare.filter((m) => m instanceof ArrayBuffer && m.byteLength >= ${row.length + 1}).length;
console.log(JSON.stringify({ taken, most, events, refused, readBeforeStop, read, ended, back }));`,
      '.mjs',
    );
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script], { cwd: ROOT });
    const seen = JSON.parse(stdout) as Record<string, number | boolean>;
    expect(seen).toMatchObject({ taken: 600, events: 600, refused: 200, ended: true, back: 600 });
    // At most 256 blocks read and not taken (AHEAD in row-threads.ts), and nothing read once stopped.
    expect(seen.most).toBeLessThanOrEqual(256);
    expect(seen.readBeforeStop).toBeLessThanOrEqual(257);
    expect(seen.read).toBe(seen.readBeforeStop);
  }, 60_000);
});
