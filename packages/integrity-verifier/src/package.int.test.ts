import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCheckpoint, verifierKeyOf } from '../../../services/shared/src/integrity/checkpoint-signer.js';
import { inclusionRanges, proofOf } from '../../../services/shared/src/integrity/proof-ranges.js';
import { installPackage, packVerifier, typecheckConsumer } from '../../../test/support/verifier-package.js';
import {
  b64,
  hashes as trailHashes,
  key as trailKey,
  listed,
  note as trailNote,
  rows,
  windowProof,
} from '../../../test/support/trail-fixture.js';
import { hashLeaf, rootOf } from './index.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'integrity-verifier-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// An auditor's TypeScript, with no Node types: the package's declarations must stand on their own.
const CONSUMER = `import { parseVerifierKey, verifyCheckpoint, verifyInclusion, type CheckpointCheck } from '@audit-trail/integrity-verifier';

const check: CheckpointCheck = verifyCheckpoint('', []);
export const ok: boolean = check.ok && verifyInclusion(new Uint8Array(32), 0, 1, [], check.checkpoint.root);
export const key = parseVerifierKey('');
// @ts-expect-error a size is a number
verifyInclusion(new Uint8Array(32), 0, '1', [], new Uint8Array(32));
`;

// What an auditor runs: a checkpoint and an inclusion proof, checked with the installed package.
const CHECK = `import { readFileSync } from 'node:fs';
import { parseVerifierKey, verifyCheckpoint, verifyInclusion } from '@audit-trail/integrity-verifier';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const checked = verifyCheckpoint(input.note, [parseVerifierKey(input.key)]);
const bytes = (hex) => Uint8Array.from(Buffer.from(hex, 'hex'));
const included = checked.ok && verifyInclusion(bytes(input.leaf), input.index, checked.checkpoint.size,
  input.proof.map(bytes), checked.checkpoint.root);
console.log(JSON.stringify({ checkpoint: checked.ok, included }));
`;

// A web page's TypeScript, with neither Node's types nor the DOM's: the web entry's declarations stand alone too.
const WEB_CONSUMER = `import { verifyEvent, type EventCheck } from '@audit-trail/integrity-verifier/web';

export const check: Promise<EventCheck> = verifyEvent({ event: {}, proof: JSON.parse('{}'), keys: [] });
// @ts-expect-error the keys are the API's answer or verifier key texts
verifyEvent({ event: {}, proof: JSON.parse('{}'), keys: 'k' });
`;

// What a web page runs, here in Node: one event checked with the API's answers.
const WEB_CHECK = `import { readFileSync } from 'node:fs';
import { verifyEvent } from '@audit-trail/integrity-verifier/web';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const check = await verifyEvent(input);
console.log(JSON.stringify(check.ok ? { ok: true } : { ok: false, reason: check.reason }));
`;

describe('the published integrity verifier package', () => {
  let packed: Awaited<ReturnType<typeof packVerifier>>;
  beforeAll(async () => {
    packed = await packVerifier(dir, 'integrity-verifier');
  });

  it('holds the built modules, their types, the README, the license and package.json, nothing else', () => {
    const modules = [
      'api-answers',
      'bytes',
      'checkpoint',
      'cli',
      'csv-rows',
      'id-index',
      'index',
      'input-shapes',
      'leaf',
      'leaf-event',
      'line-reader',
      'merkle',
      'multiproof',
      'row-bytes',
      'row-hasher',
      'row-leaf',
      'row-threads',
      'signed-note',
      'trail-check',
      'verify-command',
      'web',
      'web-checkpoint',
      'web-crypto',
      'web-event',
      'web-leaf',
      'web-merkle',
    ].flatMap((m) => [`dist/${m}.d.ts`, `dist/${m}.js`]);
    expect(packed.files).toEqual(['LICENSE', 'README.md', ...modules, 'package.json'].sort());
  });

  it('installs from its tarball into an empty project, where its types resolve and it verifies', async () => {
    const project = await installPackage(dir, packed.tarball);
    await typecheckConsumer(project, CONSUMER);

    const leaves = Array.from({ length: 11 }, (_, i) => hashLeaf(Uint8Array.of(i)));
    const subtree = (s: { level: number; index: number }) =>
      rootOf(leaves.slice(s.index * 2 ** s.level, (s.index + 1) * 2 ** s.level));
    const key = { name: 'audit.example.com-1', privateKey: generateKeyPairSync('ed25519').privateKey };
    const note = signCheckpoint({ origin: 'o/tenants/t', size: 11, root: rootOf(leaves), time: 0 }, key);
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    const check = async (input: object) => {
      writeFileSync(join(project, 'input.json'), JSON.stringify(input));
      writeFileSync(join(project, 'check.mjs'), CHECK);
      const { stdout } = await run(process.execPath, [
        join(project, 'check.mjs'),
        join(project, 'input.json'),
      ]);
      return JSON.parse(stdout) as { checkpoint: boolean; included: boolean };
    };
    const input = {
      note,
      key: verifierKeyOf(key),
      leaf: hex(leaves[6]!),
      index: 6,
      proof: proofOf(inclusionRanges(6, 11), subtree).map(hex),
    };
    expect(await check(input)).toEqual({ checkpoint: true, included: true });
    expect(await check({ ...input, index: 5 })).toEqual({ checkpoint: true, included: false });
    expect(await check({ ...input, note: note.replace('\n11\n', '\n12\n') })).toEqual({
      checkpoint: false,
      included: false,
    });

    // The command the package installs: 0 when the checkpoints verify, 1 naming what does not, 2 for bad input.
    const bin = join(project, 'node_modules/.bin/audit-trail-integrity');
    const command = async (checkpointNote: string, ...extra: string[]) => {
      writeFileSync(join(project, 'keys.txt'), `${verifierKeyOf(key)}\n`);
      const page = { checkpoints: [{ tree_size: 11, note: checkpointNote, previous: null }] };
      writeFileSync(join(project, 'checkpoints.json'), JSON.stringify(page));
      const args = ['--keys', join(project, 'keys.txt'), '--checkpoints', join(project, 'checkpoints.json')];
      return run(bin, [...args, ...extra]).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
      );
    };
    expect(await command(note)).toMatchObject({ code: 0, stdout: expect.stringContaining('verified') });
    expect(await command(note.replace('time 1970', 'time 1971'))).toMatchObject({
      code: 1,
      stdout: expect.stringContaining('checkpoint of 11 leaves: bad signature'),
    });
    expect((await command(note, '--export', 'x.json')).code).toBe(2);

    // An export's rows read on the built package's worker threads, one changed row among them named.
    const file = (name: string, body: string) => (
      writeFileSync(join(project, name), body),
      join(project, name)
    );
    const exportArgs = (lines: object[]) => [
      ...['--keys', file('trail-keys.txt', `${verifierKeyOf(trailKey)}\n`)],
      ...['--checkpoints', file('trail-checkpoints.json', JSON.stringify({ checkpoints: listed([20]) }))],
      ...['--proof', file('proof.json', JSON.stringify(windowProof(0, 20, 20)))],
      ...['--export', file('export.ndjson', lines.map((l) => JSON.stringify(l)).join('\n'))],
      ...['--threads', '2', '--json'],
    ];
    const threaded = (lines: object[]) =>
      run(bin, exportArgs(lines)).then(
        ({ stdout }) => ({ code: 0, report: JSON.parse(stdout) as object }),
        (err: { code: number; stdout: string }) => ({
          code: err.code,
          report: JSON.parse(err.stdout) as object,
        }),
      );
    expect(await threaded(rows)).toMatchObject({ code: 0, report: { ok: true, rows: 20, leaves: 20 } });
    const changed = rows.map((r, i) => (i === 7 ? { ...r, user_id: 'someone-else' } : r));
    expect(await threaded(changed)).toMatchObject({
      code: 1,
      report: { findings: [{ kind: 'altered', event_id: rows[7]!.event_id, leaf_index: 7 }] },
    });
  });

  it('installs with its web entry, whose types resolve and which verifies an event', async () => {
    mkdirSync(join(dir, 'web'));
    const project = await installPackage(join(dir, 'web'), packed.tarball);
    await typecheckConsumer(project, WEB_CONSUMER);
    const subtree = (s: { level: number; index: number }) =>
      rootOf(trailHashes.slice(s.index * 2 ** s.level, (s.index + 1) * 2 ** s.level));
    const proof = {
      event_id: rows[6]!.event_id,
      leaf_index: 6,
      leaf_hash: b64(trailHashes[6]!),
      tree_size: 12,
      hashes: proofOf(inclusionRanges(6, 12), subtree).map(b64),
      checkpoint: { tree_size: 12, note: trailNote(12) },
    };
    const check = async (input: object) => {
      writeFileSync(join(project, 'event.json'), JSON.stringify(input));
      writeFileSync(join(project, 'web-check.mjs'), WEB_CHECK);
      const { stdout } = await run(process.execPath, [
        join(project, 'web-check.mjs'),
        join(project, 'event.json'),
      ]);
      return JSON.parse(stdout) as { ok: boolean; reason?: string };
    };
    const keys = { keys: [{ verifier_key: verifierKeyOf(trailKey) }] };
    expect(await check({ event: rows[6], proof, keys })).toEqual({ ok: true });
    expect(await check({ event: { ...rows[6], user_id: 'someone-else' }, proof, keys })).toEqual({
      ok: false,
      reason: 'event_altered',
    });
  });
});
