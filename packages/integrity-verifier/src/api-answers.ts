// The shapes of the API's answers, checked before use so that something else is refused as unusable input rather
// than failing a check half-way: pure, for the verifier command's files (input-shapes.ts) and the web entry.

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const isSize = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
export const isTexts = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** The verifier keys of GET /audit/integrity/keys's answer, or null for anything else. */
export function verifierKeysOf(v: unknown): string[] | null {
  if (!isObject(v) || !Array.isArray(v.keys)) return null;
  const keys = v.keys.map((k) => (isObject(k) && typeof k.verifier_key === 'string' ? k.verifier_key : null));
  return keys.every((k) => k !== null) ? (keys as string[]) : null;
}

/** GET /audit/integrity/proofs/inclusion's answer: an event's leaf, its RFC 9162 PATH and the checkpoint. */
export interface InclusionProof {
  event_id: string;
  leaf_index: number;
  /** The leaf hash as the tree holds it, base64. */
  leaf_hash: string;
  tree_size: number;
  /** The PATH, leaf to root, each hash base64. */
  hashes: string[];
  /** The checkpoint the proof is in, of which only its signed note counts. */
  checkpoint: { note: string };
}

/** An answer of GET /audit/integrity/proofs/inclusion; its hashes' base64 is checked where they are read. */
export function isInclusionProof(v: unknown): v is InclusionProof {
  return (
    isObject(v) &&
    typeof v.event_id === 'string' &&
    isSize(v.leaf_index) &&
    typeof v.leaf_hash === 'string' &&
    isSize(v.tree_size) &&
    isTexts(v.hashes) &&
    isObject(v.checkpoint) &&
    typeof v.checkpoint.note === 'string'
  );
}
