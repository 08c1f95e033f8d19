import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  signCheckpoint,
  verifierKeyOf,
  type CheckpointKey,
} from '../../../services/shared/src/integrity/checkpoint-signer.js';
import * as node from './index.js';
import { keyHashOf, parseSignedNote, parseVerifierKey, verifyCheckpoint, type Checkpoint } from './web.js';

const newKey = (name: string): CheckpointKey => ({
  name,
  privateKey: generateKeyPairSync('ed25519').privateKey,
});
const verifier = (key: CheckpointKey) => node.parseVerifierKey(verifierKeyOf(key))!;

// checkpoint-signer.unit.test.ts's checkpoint, and its cases, each given to both entries.
const CHECKPOINT: Checkpoint = {
  origin: 'audit.example.com/tenants/acme',
  size: 1234,
  root: new Uint8Array(32).fill(7),
  time: Date.parse('2026-11-26T17:00:00.000Z'),
};

async function bothVerdicts(note: string, keys: node.VerifierKey[]) {
  const web = await verifyCheckpoint(note, keys);
  expect(web).toEqual(node.verifyCheckpoint(note, keys));
  return web;
}

describe("the web entry's checkpoints", () => {
  const key = newKey('audit.example.com-2026-11');
  const other = newKey('other');

  it("verify as the Node entry's do, and fail with its reasons", async () => {
    const note = signCheckpoint(CHECKPOINT, key);
    expect(await bothVerdicts(note, [verifier(key)])).toEqual({
      ok: true,
      checkpoint: CHECKPOINT,
      keyName: key.name,
    });
    const forged = note.replace('\n1234\n', '\n1235\n');
    expect(await bothVerdicts(forged, [verifier(key)])).toEqual({ ok: false, reason: 'bad signature' });
    expect(await bothVerdicts(note, [verifier(other)])).toEqual({
      ok: false,
      reason: 'signed by no known key',
    });
    // A key of the same name but another public key is another key.
    expect((await bothVerdicts(signCheckpoint(CHECKPOINT, newKey(key.name)), [verifier(key)])).ok).toBe(
      false,
    );
    expect(await bothVerdicts('no note', [verifier(key)])).toEqual({
      ok: false,
      reason: 'not a signed note',
    });
    const unsigned = note.replace('\n1234\n', '\n01234\n');
    expect(await bothVerdicts(unsigned, [verifier(key)])).toEqual({ ok: false, reason: 'not a checkpoint' });
    const tab = signCheckpoint({ ...CHECKPOINT, origin: 'ac\tme' }, key);
    expect(await bothVerdicts(tab, [verifier(key)])).toEqual({ ok: false, reason: 'not a signed note' });
  });

  it("ignore signatures by keys not given, and fail on a given key's that does not verify", async () => {
    const parsed = parseSignedNote(signCheckpoint(CHECKPOINT, key))!;
    const good = parseSignedNote(signCheckpoint(CHECKPOINT, other))!.signatures[0]!;
    const witness = { keyName: 'witness', keyHash: Uint8Array.of(1, 2, 3, 4), signature: new Uint8Array(72) };
    const cosigned = node.signedNoteText(parsed.body, [good, ...parsed.signatures, witness]);
    expect((await bothVerdicts(cosigned, [verifier(key)])).ok).toBe(true);
    const bad = { ...parsed.signatures[0]!, signature: new Uint8Array(64) };
    const mixed = node.signedNoteText(parsed.body, [good, bad]);
    expect(await bothVerdicts(mixed, [verifier(key), verifier(other)])).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    expect((await bothVerdicts(mixed, [verifier(other)])).ok).toBe(true);
  });

  it('read verifier keys as the Node entry does, their hash checked against their name and key', async () => {
    const texts = Array.from({ length: 20 }, (_, i) => verifierKeyOf(newKey(`k${i}`)));
    // A key whose base64 holds a '+', as many do.
    const text = texts.find((k) => k.split('+').length > 3)!;
    for (const t of [
      ...texts,
      text.replace(/^[^+]+/, 'renamed'),
      `${text}x`,
      text.replace(/\+[0-9a-f]{8}\+/, '+00000000+'),
      text.replace(/\+([0-9a-f]{8})\+/, (_, h: string) => `+${h.toUpperCase()}+`),
      '',
    ])
      expect(await parseVerifierKey(t)).toEqual(node.parseVerifierKey(t));
    const { name, publicKey } = node.parseVerifierKey(text)!;
    expect(await keyHashOf(name, publicKey)).toEqual(node.keyHashOf(name, publicKey));
  });

  it("give the Node entry's verdict on random checkpoints, whole or with a character changed", async () => {
    const keys = [verifier(key), verifier(other)];
    const checkpoint = fc.record({
      origin: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
      size: fc.maxSafeInteger().map(Math.abs),
      root: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      time: fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) }),
    });
    // Where to change the note, and to what: none, a character of its own, or any.
    const edit = fc.option(
      fc.tuple(
        fc.nat(),
        fc.oneof(
          fc.constantFrom('0', '=', '+', '\n', ' ', 'A'),
          fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
        ),
      ),
    );
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        checkpoint,
        fc.constantFrom(key, other, newKey('unknown')),
        edit,
        async (c, by, change) => {
          let note = signCheckpoint(c, by);
          if (change) {
            const at = change[0] % note.length;
            note = note.slice(0, at) + change[1] + note.slice(at + 1);
          }
          const verdict = await bothVerdicts(note, keys);
          seen.add(verdict.ok ? 'ok' : verdict.reason);
        },
      ),
      { numRuns: 300 },
    );
    expect([...seen].sort()).toEqual(
      ['bad signature', 'not a checkpoint', 'not a signed note', 'ok', 'signed by no known key'].sort(),
    );
  });
});
