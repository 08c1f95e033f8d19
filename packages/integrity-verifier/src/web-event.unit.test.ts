import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { signCheckpoint, verifierKeyOf } from '../../../services/shared/src/integrity/checkpoint-signer.js';
import { inclusionRanges, proofOf } from '../../../services/shared/src/integrity/proof-ranges.js';
import { b64, hashes, key, keys, note, ORIGIN, rows, T0 } from '../../../test/support/trail-fixture.js';
import * as node from './index.js';
import { LEAF_FIELDS, LEAF_V2_FIELDS, verifyEvent, type EventCheck, type InclusionProof } from './web.js';

const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');
const subtree = (s: { level: number; index: number }) =>
  node.rootOf(hashes.slice(s.index * 2 ** s.level, (s.index + 1) * 2 ** s.level));

/** GET /audit/integrity/proofs/inclusion's answer for event `i` in the checkpoint of `size` (integrity.route.ts). */
const proofAnswer = (i: number, size = 12) => ({
  event_id: rows[i]!.event_id,
  leaf_index: i,
  leaf_hash: b64(hashes[i]!),
  tree_size: size,
  hashes: proofOf(inclusionRanges(i, size), subtree).map(b64),
  checkpoint: {
    tree_size: size,
    root_hash: b64(node.rootOf(hashes.slice(0, size))),
    created_at: iso(T0),
    key_name: key.name,
    note: note(size),
  },
});
/** GET /audit/integrity/keys's answer. */
const keysAnswer = (...texts: string[]) => ({
  keys: texts.map((verifier_key, i) => ({
    name: verifier_key.split('+')[0]!,
    verifier_key,
    status: i === texts.length - 1 ? 'active' : 'retired',
    created_at: iso(T0),
    retired_at: i === texts.length - 1 ? null : iso(T0),
  })),
});
const KEYS = keysAnswer(verifierKeyOf(key));
const stranger = { name: 'audit.example.test-2', privateKey: generateKeyPairSync('ed25519').privateKey };

/** The note with one bit of its (first) signature flipped. */
function flipSignatureBit(text: string, bit: number): string {
  const { body, signatures } = node.parseSignedNote(text)!;
  const signature = Uint8Array.from(signatures[0]!.signature);
  signature[bit >> 3]! ^= 1 << (bit & 7);
  return node.signedNoteText(body, [{ ...signatures[0]!, signature }, ...signatures.slice(1)]);
}

const reason = (check: EventCheck) => (check.ok ? 'ok' : check.reason);
// Every field of the leaf, version 2's included: a change of any one of them is caught.
const FIELDS = [...LEAF_FIELDS, ...LEAF_V2_FIELDS];

describe('verifyEvent', () => {
  it('verifies every event of a checkpoint with the answers of the API, and says so', async () => {
    for (let i = 0; i < 12; i++) {
      const check = await verifyEvent({ event: rows[i]!, proof: proofAnswer(i), keys: KEYS });
      expect(check).toMatchObject({ ok: true, eventId: rows[i]!.event_id, leafIndex: i, keyName: key.name });
      expect(check.ok && check.checkpoint).toEqual({
        origin: ORIGIN,
        size: 12,
        root: new Uint8Array(node.rootOf(hashes.slice(0, 12))),
        time: T0,
      });
    }
    const check = await verifyEvent({ event: rows[3]!, proof: proofAnswer(3, 20), keys: KEYS });
    expect(check.message).toBe(
      `This event is recorded, unchanged, as event 4 of the 20 in the log ${ORIGIN}, whose checkpoint of 2026-11-01T00:00:00.000Z is signed by the key ${key.name}.`,
    );
  });

  it('takes a checkpoint or its note given apart from the proof, and pinned verifier keys', async () => {
    const proof = proofAnswer(5);
    const listed = { ...proof.checkpoint, previous: null };
    const pinned = [verifierKeyOf(stranger), verifierKeyOf(key)];
    for (const checkpoint of [listed, proof.checkpoint.note])
      expect(await verifyEvent({ event: rows[5]!, proof, checkpoint, keys: pinned })).toMatchObject({
        ok: true,
      });
    // A retired key's checkpoint verifies as the active key's does.
    const rotated = keysAnswer(verifierKeyOf(key), verifierKeyOf(stranger));
    expect(await verifyEvent({ event: rows[5]!, proof, keys: rotated })).toMatchObject({ ok: true });
  });

  it('finds every field of the event changed, one of version 2 added, and its time moved', async () => {
    for (const { name, kind } of FIELDS) {
      if (name === 'event_id') continue;
      const value = (rows[6] as Record<string, unknown>)[name];
      const changed =
        kind === 'flag' ? !value : kind === 'millis' ? iso(T0 + 6 * 1000 + 1) : `${(value as string) ?? ''}x`;
      const check = await verifyEvent({
        event: { ...rows[6]!, [name]: changed },
        proof: proofAnswer(6),
        keys: KEYS,
      });
      expect(check, name).toMatchObject({ ok: false, reason: 'event_altered' });
    }
    const check = await verifyEvent({
      event: { ...rows[6]!, user_id: 'mallory' },
      proof: proofAnswer(6),
      keys: KEYS,
    });
    expect(check.message).toBe(
      'This event is not the one the log recorded: at least one of its fields was changed after it was written.',
    );
  });

  it('finds a proof changed in any hash, or pointing at another leaf', async () => {
    const proof = proofAnswer(9);
    for (let k = 0; k < proof.hashes.length; k++) {
      const hashesChanged = proof.hashes.with(
        k,
        b64(Uint8Array.from(Buffer.from(proof.hashes[k]!, 'base64'), (b, j) => (j === 0 ? b ^ 1 : b))),
      );
      const check = await verifyEvent({
        event: rows[9]!,
        proof: { ...proof, hashes: hashesChanged },
        keys: KEYS,
      });
      expect(check).toMatchObject({ ok: false, reason: 'root_mismatch' });
    }
    for (const changed of [
      { leaf_index: 8 },
      { hashes: proof.hashes.slice(1) },
      { hashes: [...proof.hashes, proof.leaf_hash] },
    ])
      expect(
        await verifyEvent({ event: rows[9]!, proof: { ...proof, ...changed }, keys: KEYS }),
      ).toMatchObject({
        ok: false,
        reason: 'root_mismatch',
      });
    // The proof's own leaf hash is only what the service says: the event's leaf is made from the event.
    const wrongLeaf = { ...proof, leaf_hash: b64(hashes[2]!) };
    expect(await verifyEvent({ event: rows[9]!, proof: wrongLeaf, keys: KEYS })).toMatchObject({ ok: true });
  });

  it('finds the checkpoint changed after signing, or signed by a key not given', async () => {
    const proof = proofAnswer(4);
    for (const bit of [0, 7, 100, 511]) {
      const checkpoint = flipSignatureBit(proof.checkpoint.note, bit);
      expect(await verifyEvent({ event: rows[4]!, proof, checkpoint, keys: KEYS })).toMatchObject({
        ok: false,
        reason: 'bad_signature',
      });
    }
    // Signed by a key of another id, or by one of the published key's name but another key.
    const notes = [stranger, { ...stranger, name: key.name }].map((by) =>
      signCheckpoint({ origin: ORIGIN, size: 12, root: node.rootOf(hashes.slice(0, 12)), time: T0 }, by),
    );
    for (const checkpoint of notes)
      expect(await verifyEvent({ event: rows[4]!, proof, checkpoint, keys: KEYS })).toMatchObject({
        ok: false,
        reason: 'unknown_key',
      });
    expect(await verifyEvent({ event: rows[4]!, proof, keys: [] })).toMatchObject({ reason: 'unknown_key' });
  });

  it('refuses input that is not what the API returns, and answers about another event or checkpoint', async () => {
    const proof = proofAnswer(4);
    const given = { event: rows[4]!, proof, keys: KEYS };
    const malformed: object[] = [
      { ...given, event: { ...rows[4]!, success: 'true' } },
      { ...given, event: { ...rows[4]!, timestamp: '2026-11-01T00:00:04Z' } },
      { ...given, event: { ...rows[4]!, details: '\uD800' } },
      { ...given, event: [rows[4]] },
      { ...given, proof: { ...proof, leaf_index: '4' } },
      { ...given, proof: { ...proof, hashes: [proof.hashes[0]!.slice(1)] } },
      { ...given, proof: { ...proof, leaf_hash: Buffer.from(hashes[4]!).toString('hex') } },
      { ...given, proof: { ...proof, checkpoint: {} } },
      { ...given, checkpoint: 'audit.example.test/tenants/acme\n12\n' },
      { ...given, keys: { keys: [{ verifier_key: 'not a key' }] } },
      { ...given, keys: [verifierKeyOf(key).replace(/\+[0-9a-f]{8}\+/, '+00000000+')] },
      { ...given, keys: {} },
      {},
    ];
    for (const input of malformed)
      expect(
        await verifyEvent(input as Parameters<typeof verifyEvent>[0]),
        JSON.stringify(input),
      ).toMatchObject({
        ok: false,
        reason: 'malformed_input',
        message: expect.stringMatching(/^The event could not be checked: /),
      });
    expect(await verifyEvent({ ...given, event: rows[5]! })).toMatchObject({ reason: 'mismatched_input' });
    expect(await verifyEvent({ ...given, checkpoint: note(20) })).toMatchObject({
      reason: 'mismatched_input',
    });
  });

  it('rejects, rather than give a verdict, where WebCrypto is missing (a page not served over https)', async () => {
    vi.stubGlobal('crypto', {});
    try {
      await expect(verifyEvent({ event: rows[4]!, proof: proofAnswer(4), keys: KEYS })).rejects.toThrow(
        /WebCrypto/,
      );
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("gives the Node entry's verdict on random events, proofs and checkpoints, whole or with one thing changed", async () => {
    const change = fc.oneof(
      fc.constant({ kind: 'none' as const }),
      fc.record({ kind: fc.constant('field' as const), field: fc.nat(FIELDS.length - 1) }),
      fc.record({ kind: fc.constant('hash' as const), at: fc.nat(), bit: fc.nat(255) }),
      fc.record({ kind: fc.constant('signature' as const), bit: fc.nat(511) }),
      fc.record({ kind: fc.constant('signer' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 20 }), fc.nat(), change, async (size, at, spoil) => {
        const i = at % size;
        const proof: InclusionProof = proofAnswer(i, size);
        let event: Record<string, unknown> = rows[i]!;
        if (spoil.kind === 'field') {
          const { name, kind } = FIELDS[spoil.field]!;
          event = {
            ...event,
            [name]: kind === 'flag' ? !event[name] : kind === 'millis' ? iso(T0 - 1) : 'x',
          };
        } else if (spoil.kind === 'hash' && proof.hashes.length > 0) {
          const k = spoil.at % proof.hashes.length;
          const bytes = Buffer.from(proof.hashes[k]!, 'base64');
          bytes[spoil.bit >> 3]! ^= 1 << (spoil.bit & 7);
          proof.hashes = proof.hashes.with(k, b64(bytes));
        } else if (spoil.kind === 'signature')
          proof.checkpoint.note = flipSignatureBit(proof.checkpoint.note, spoil.bit);
        else if (spoil.kind === 'signer')
          proof.checkpoint.note = signCheckpoint(
            node.parseCheckpoint(node.parseSignedNote(proof.checkpoint.note)!.body)!,
            stranger,
          );
        const web = await verifyEvent({ event, proof, keys: KEYS });

        // The Node entry's own verdict, from the same answers.
        const signed = node.verifyCheckpoint(proof.checkpoint.note, keys);
        const leaf = node.leafHashOf(node.leafEventOf(event));
        const path = proof.hashes.map((h) => Buffer.from(h, 'base64'));
        const included =
          signed.ok &&
          node.verifyInclusion(leaf, proof.leaf_index, proof.tree_size, path, signed.checkpoint.root);
        expect(web.ok).toBe(included);
        if (!signed.ok)
          expect(reason(web)).toBe(
            { 'bad signature': 'bad_signature', 'signed by no known key': 'unknown_key' }[signed.reason],
          );
        else if (spoil.kind === 'field')
          // The event's id names the event the proof must be of: changed, it names another.
          expect(reason(web)).toBe(spoil.field === 0 ? 'mismatched_input' : 'event_altered');
        else if (!included) expect(reason(web)).toBe('root_mismatch');
      }),
      { numRuns: 200 },
    );
  });
});
