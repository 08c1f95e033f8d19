import { isObject, isSize, isTexts, verifierKeysOf } from './api-answers.js';
import { parseVerifierKey, type VerifierKey } from './checkpoint.js';
import type { ListedCheckpoint, WindowProof } from './trail-check.js';

// The shapes of the API's answers the verifier command reads from files: checked before use, so that a file of
// something else is refused as unusable input rather than failing the check half-way.
const isTimeOrNull = (v: unknown) => v === null || typeof v === 'string';

const isLink = (v: unknown) => v == null || (isObject(v) && isSize(v.tree_size) && isTexts(v.hashes));

/** A page of GET /audit/integrity/checkpoints. */
export function isCheckpointPage(v: unknown): v is { checkpoints: ListedCheckpoint[] } {
  return (
    isObject(v) &&
    Array.isArray(v.checkpoints) &&
    v.checkpoints.every(
      (c) => isObject(c) && isSize(c.tree_size) && typeof c.note === 'string' && isLink(c.previous),
    )
  );
}

/** A page of GET /audit/integrity/proofs/window. */
export function isWindowProof(v: unknown): v is WindowProof {
  return (
    isObject(v) &&
    isSize(v.tree_size) &&
    isTimeOrNull(v.since) &&
    isTimeOrNull(v.until) &&
    isTexts(v.hashes) &&
    isTexts(v.later) &&
    (v.purged_before === undefined || isTimeOrNull(v.purged_before)) &&
    Array.isArray(v.leaves) &&
    v.leaves.every(
      (l) =>
        isObject(l) &&
        typeof l.event_id === 'string' &&
        isSize(l.leaf_index) &&
        typeof l.timestamp === 'string' &&
        typeof l.leaf_hash === 'string' &&
        (l.purged === undefined || typeof l.purged === 'boolean'),
    )
  );
}

/**
 * The verifier keys a keys file holds: GET /audit/integrity/keys's answer, or verifier keys one per line. What is
 * wrong with it otherwise: not JSON, not that answer, or a line that is no verifier key.
 */
export function verifierKeysOfText(text: string): { keys: VerifierKey[] } | { problem: string } {
  let lines: string[] | null;
  if (text.trimStart().startsWith('{')) {
    try {
      lines = verifierKeysOf(JSON.parse(text));
    } catch (err) {
      return { problem: (err as Error).message };
    }
    if (!lines) return { problem: 'not an answer of GET /audit/integrity/keys' };
  } else lines = text.split('\n').filter((l) => l.trim() !== '');
  const keys: VerifierKey[] = [];
  for (const line of lines) {
    const key = parseVerifierKey(line.trim());
    if (!key) return { problem: `not a verifier key: ${line}` };
    keys.push(key);
  }
  return { keys };
}
