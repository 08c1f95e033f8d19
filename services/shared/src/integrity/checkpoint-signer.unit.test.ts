import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  parseCheckpoint,
  parseSignedNote,
  parseVerifierKey,
  signedNoteText,
  verifyCheckpoint,
  type Checkpoint,
  type VerifierKey,
} from '@audit-trail/integrity-verifier';
import { signCheckpoint, verifierKeyOf, type CheckpointKey } from './checkpoint-signer.js';

const newKey = (name: string): CheckpointKey => ({
  name,
  privateKey: generateKeyPairSync('ed25519').privateKey,
});
const verifier = (key: CheckpointKey): VerifierKey => parseVerifierKey(verifierKeyOf(key))!;

const CHECKPOINT: Checkpoint = {
  origin: 'audit.example.com/tenants/acme',
  size: 1234,
  root: new Uint8Array(32).fill(7),
  time: Date.parse('2026-11-26T17:00:00.000Z'),
};

describe('signed checkpoints', () => {
  const key = newKey('audit.example.com-2026-11');

  it('are C2SP signed notes that verify with the public key, and read back as the checkpoint', () => {
    const note = signCheckpoint(CHECKPOINT, key);
    expect(note).toMatch(
      /^audit\.example\.com\/tenants\/acme\n1234\nBwcH[A-Za-z0-9+/=]+\ntime 2026-11-26T17:00:00\.000\+00:00\n\n\u2014 audit\.example\.com-2026-11 [A-Za-z0-9+/=]{92}\n$/,
    );
    expect(verifyCheckpoint(note, [verifier(key)])).toEqual({
      ok: true,
      checkpoint: CHECKPOINT,
      keyName: key.name,
    });
  });

  it('fail with their reason when changed, or signed by a key not given', () => {
    const note = signCheckpoint(CHECKPOINT, key);
    const forged = note.replace('\n1234\n', '\n1235\n');
    expect(verifyCheckpoint(forged, [verifier(key)])).toEqual({ ok: false, reason: 'bad signature' });
    const other = newKey('other');
    expect(verifyCheckpoint(note, [verifier(other)])).toEqual({
      ok: false,
      reason: 'signed by no known key',
    });
    // A key of the same name but another public key is another key.
    const impostor = newKey(key.name);
    expect(verifyCheckpoint(signCheckpoint(CHECKPOINT, impostor), [verifier(key)]).ok).toBe(false);
    expect(verifyCheckpoint('no note', [verifier(key)])).toEqual({ ok: false, reason: 'not a signed note' });
  });

  it('verify when any one of several signatures is by a key given', () => {
    const other = newKey('other');
    const a = parseSignedNote(signCheckpoint(CHECKPOINT, key))!;
    const b = parseSignedNote(signCheckpoint(CHECKPOINT, other))!;
    const both = signedNoteText(a.body, [...b.signatures, ...a.signatures]);
    expect(verifyCheckpoint(both, [verifier(key)]).ok).toBe(true);
  });

  it("ignore another algorithm's signature, and fail when a known key's signature does not verify", () => {
    const note = signCheckpoint(CHECKPOINT, key);
    const parsed = parseSignedNote(note)!;
    // A cosignature of another kind (a witness's: 8 bytes of time before its 64) by a key not given.
    const cosigned = signedNoteText(parsed.body, [
      ...parsed.signatures,
      { keyName: 'witness', keyHash: Uint8Array.of(1, 2, 3, 4), signature: new Uint8Array(72) },
    ]);
    expect(verifyCheckpoint(cosigned, [verifier(key)]).ok).toBe(true);
    const other = newKey('other');
    const good = parseSignedNote(signCheckpoint(CHECKPOINT, other))!.signatures[0]!;
    const bad = { ...parsed.signatures[0]!, signature: new Uint8Array(64) };
    const mixed = signedNoteText(parsed.body, [good, bad]);
    expect(verifyCheckpoint(mixed, [verifier(key), verifier(other)])).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    expect(verifyCheckpoint(mixed, [verifier(other)]).ok).toBe(true);
    // A control character, even signed, makes no note.
    const tab = signCheckpoint({ ...CHECKPOINT, origin: 'ac\tme' }, key);
    expect(verifyCheckpoint(tab, [verifier(key)])).toEqual({ ok: false, reason: 'not a signed note' });
  });

  it('read back only what they write', () => {
    const text = (lines: string[]) => `${lines.join('\n')}\n`;
    const root = Buffer.alloc(32, 7).toString('base64');
    const time = 'time 2026-11-26T17:00:00.000+00:00';
    expect(parseCheckpoint(text(['o', '12', root, time]))).not.toBeNull();
    expect(parseCheckpoint(text(['o', '012', root, time]))).toBeNull();
    expect(parseCheckpoint(text(['o', '12', root.slice(4), time]))).toBeNull();
    expect(parseCheckpoint(text(['o', '12', root, 'time 2026-11-26T17:00:00Z']))).toBeNull();
    expect(parseCheckpoint(text(['o', '12', root]))).toBeNull();
    expect(parseCheckpoint(text(['', '12', root, time]))).toBeNull();
    expect(parseCheckpoint(text([' o', '12', root, time]))).toBeNull();
    expect(parseCheckpoint(text(['o', '9007199254740992', root, time]))).toBeNull();
    expect(parseCheckpoint(text(['o', '12', root, 'time 2026-13-40T17:00:00.000+00:00']))).toBeNull();
  });

  it('have verifier keys whose hash must match their name and key', () => {
    // A key whose base64 holds a '+', as many do.
    const keys = Array.from({ length: 40 }, (_, i) => newKey(`k${i}`)).map(verifierKeyOf);
    const text = keys.find((k) => k.split('+').length > 3)!;
    expect(parseVerifierKey(text)).not.toBeNull();
    expect(parseVerifierKey(text.replace(/^[^+]+/, 'renamed'))).toBeNull();
    expect(parseVerifierKey(`${text}x`)).toBeNull();
    expect(parseVerifierKey(text.replace(/\+[0-9a-f]{8}\+/, '+00000000+'))).toBeNull();
  });
});
