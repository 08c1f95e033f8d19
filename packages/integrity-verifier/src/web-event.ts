// One event checked in a web page with the API's answers about it: the event is its tenant's leaf, the leaf is in
// a checkpoint, and the checkpoint is signed by a published key. Each failure has a code for programs and a
// sentence for the person reading the page, who may know nothing of Merkle trees.
import { isInclusionProof, isObject, verifierKeysOf, type InclusionProof } from './api-answers.js';
import { equalBytes, fromBase64 } from './bytes.js';
import { leafEventOf, type LeafEvent } from './leaf-event.js';
import type { Checkpoint, VerifierKey } from './signed-note.js';
import { parseVerifierKey, verifyCheckpoint } from './web-checkpoint.js';
import { hashLeaf } from './web-crypto.js';
import { encodeLeaf } from './web-leaf.js';
import { rootOfInclusionProof } from './web-merkle.js';

/** What the API returns about an event, as parsed JSON: `verifyEvent` checks each is what it stands for. */
export interface EventEvidence {
  /** The event as GET /audit/events (one of its `events`) or GET /audit/events/{id} returns it. */
  event: Record<string, unknown>;
  /** GET /audit/integrity/proofs/inclusion's answer for the event. */
  proof: InclusionProof;
  /**
   * The checkpoint to check the proof against, as the API returns checkpoints, or its note alone (one kept from
   * before): only the signed note counts. The proof's own checkpoint when not given.
   */
  checkpoint?: { note: string } | string;
  /** GET /audit/integrity/keys's answer, or verifier keys pinned beforehand, one per string. */
  keys: { keys: { verifier_key: string }[] } | readonly string[];
}

/** Why an event did not verify. */
export type EventFailure =
  /** Something given is not what the API returns: no verdict on the event. */
  | 'malformed_input'
  /** The proof is of another event, or of another checkpoint, than the ones given. */
  | 'mismatched_input'
  /** The checkpoint is signed by none of the keys given. */
  | 'unknown_key'
  /** A key given signed the checkpoint, but not as it reads now. */
  | 'bad_signature'
  /** The signed tree holds, at the event's place, a leaf that is not this event. */
  | 'event_altered'
  /** The proof does not lead from the event's leaf to the checkpoint's root. */
  | 'root_mismatch';

export type EventCheck =
  | {
      ok: true;
      eventId: string;
      /** The event's place in its tenant's tree, from 0. */
      leafIndex: number;
      checkpoint: Checkpoint;
      /** The key that signed the checkpoint. */
      keyName: string;
      message: string;
    }
  | { ok: false; reason: EventFailure; message: string };

const fail = (reason: EventFailure, message: string): EventCheck => ({ ok: false, reason, message });
const unusable = (message: string) => fail('malformed_input', `The event could not be checked: ${message}`);

/** SHA-256s as the API writes them, 43 characters of base64 and one `=`; null if any is not. */
function hashesOf(texts: readonly string[]): Uint8Array[] | null {
  const hashes = texts.map((t) => (t.length === 44 && t.endsWith('=') ? fromBase64(t) : null));
  return hashes.every((h) => h !== null) ? hashes : null;
}

async function keysOf(given: unknown): Promise<VerifierKey[] | null> {
  const texts: unknown[] | null = Array.isArray(given) ? given : verifierKeysOf(given);
  if (!texts?.every((t) => typeof t === 'string')) return null;
  const keys = await Promise.all(texts.map(parseVerifierKey));
  return keys.every((k) => k !== null) ? keys : null;
}

function noteOf(given: unknown): string | null {
  if (typeof given === 'string') return given;
  return isObject(given) && typeof given.note === 'string' ? given.note : null;
}

/**
 * The event and its leaf's bytes; what is wrong with the event otherwise (a TypeError). A version 3 event's
 * commitments are hashed here, by a SHA-256 that rejects with another kind of error without WebCrypto, so that such
 * a platform is not taken for an event that is not one.
 */
async function leafOf(row: unknown): Promise<{ event: LeafEvent; bytes: Uint8Array } | string> {
  if (!isObject(row)) return 'not an object';
  try {
    const event = leafEventOf(row);
    return { event, bytes: await encodeLeaf(event) };
  } catch (err) {
    if (err instanceof TypeError) return err.message;
    throw err;
  }
}

/**
 * Whether the event is, unchanged, in its tenant's tamper-evident log: its leaf hash (docs/integrity.md "Leaves"),
 * the inclusion proof from it to the root of the checkpoint (RFC 9162), and the checkpoint's Ed25519 signature by
 * one of the keys. Resolves to the verdict, a failure with its reason; rejects only when the platform lacks
 * WebCrypto's SHA-256 or Ed25519.
 */
export async function verifyEvent(evidence: EventEvidence): Promise<EventCheck> {
  if (!isObject(evidence)) return unusable('nothing was given to check.');
  const keys = await keysOf(evidence.keys);
  if (!keys) return unusable('the signing keys are not the published keys or verifier keys.');
  const { proof } = evidence;
  if (!isInclusionProof(proof)) return unusable('the proof is not an inclusion proof as the API returns it.');
  const [proofLeaf] = hashesOf([proof.leaf_hash]) ?? [];
  const path = hashesOf(proof.hashes);
  if (!proofLeaf || !path)
    return unusable('the proof holds a hash that is not a SHA-256 as the API writes it.');
  const note = noteOf(evidence.checkpoint ?? proof.checkpoint);
  if (note === null) return unusable('the checkpoint is not a checkpoint as the API returns it.');
  const given = await leafOf(evidence.event);
  if (typeof given === 'string')
    return unusable(`the event is not an event as the API returns it (${given}).`);
  const { event } = given;
  if (event.event_id !== proof.event_id)
    return fail(
      'mismatched_input',
      "The proof given is of another event than this one (or this event's id was changed): fetch this event's proof.",
    );

  const signed = await verifyCheckpoint(note, keys);
  if (!signed.ok) {
    if (signed.reason === 'bad signature')
      return fail(
        'bad_signature',
        'The checkpoint does not match its signature: it was changed after it was signed, so it proves nothing.',
      );
    if (signed.reason === 'signed by no known key')
      return fail(
        'unknown_key',
        'The checkpoint is not signed by any of the signing keys given, so it proves nothing: check that the keys are the ones the service publishes.',
      );
    return unusable('the checkpoint is not a signed checkpoint.');
  }
  const { checkpoint, keyName } = signed;
  const leaf = await hashLeaf(given.bytes);
  if (proof.tree_size !== checkpoint.size)
    return fail(
      'mismatched_input',
      `The proof given is for the checkpoint of ${proof.tree_size} events, not for this one of ${checkpoint.size}: fetch the proof for this checkpoint.`,
    );

  const inTree = async (hash: Uint8Array) => {
    const root = await rootOfInclusionProof(hash, proof.leaf_index, checkpoint.size, path);
    return root !== null && equalBytes(root, checkpoint.root);
  };
  if (!(await inTree(leaf))) {
    // The proof may still show the leaf the log holds: then that leaf, signed for, is not this event.
    if (!equalBytes(leaf, proofLeaf) && (await inTree(proofLeaf)))
      return fail(
        'event_altered',
        'This event is not the one the log recorded: at least one of its fields was changed after it was written.',
      );
    return fail(
      'root_mismatch',
      'The proof does not lead from this event to the signed checkpoint: the proof was changed, or the log was rewritten.',
    );
  }
  return {
    ok: true,
    eventId: event.event_id,
    leafIndex: proof.leaf_index,
    checkpoint,
    keyName,
    message: `This event is recorded, unchanged, as event ${proof.leaf_index + 1} of the ${checkpoint.size} in the log ${checkpoint.origin}, whose checkpoint of ${new Date(checkpoint.time).toISOString()} is signed by the key ${keyName}.`,
  };
}
