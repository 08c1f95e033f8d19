// The browser entry (`@audit-trail/integrity-verifier/web`): one event's tamper evidence checked with Web platform
// APIs only (WebCrypto's SHA-256 and Ed25519, TextEncoder, atob and btoa), asynchronous where WebCrypto is. Nothing
// here may import node: modules, Buffer, or a module that does (web-imports.unit.test.ts holds it to that).
export { verifyEvent, type EventCheck, type EventEvidence, type EventFailure } from './web-event.js';
export { encodeLeaf, leafHashOf } from './web-leaf.js';
export { hashChildren, hashLeaf } from './web-crypto.js';
export { rootOfInclusionProof, verifyInclusion } from './web-merkle.js';
export { keyHashOf, parseVerifierKey, verifyCheckpoint, verifyNoteSignature } from './web-checkpoint.js';
export {
  apiMillis,
  COMMITTED_FIELDS,
  LEAF_ENCODING_VERSION,
  LEAF_ENCODING_VERSION_2,
  LEAF_ENCODING_VERSION_3,
  LEAF_FIELDS,
  LEAF_V2_FIELDS,
  leafEventOf,
  type CommittedField,
  type LeafCommitments,
  type LeafEvent,
} from './leaf-event.js';
export {
  checkpointText,
  parseCheckpoint,
  parseSignedNote,
  type Checkpoint,
  type CheckpointCheck,
  type NoteSignature,
  type VerifierKey,
} from './signed-note.js';
export type { InclusionProof } from './api-answers.js';
