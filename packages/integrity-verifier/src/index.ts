// The tamper evidence of an Audit Trail Service tenant's trail, for verifiers (docs/integrity.md): the leaf
// encoding of events, RFC 9162 Merkle proofs, and checkpoints signed as C2SP signed notes.
export { EMPTY_ROOT, hashChildren, hashLeaf, rootOf, verifyConsistency, verifyInclusion } from './merkle.js';
export {
  apiMillis,
  COMMITTED_FIELDS,
  encodeLeaf,
  LEAF_ENCODING_VERSION,
  LEAF_ENCODING_VERSION_2,
  LEAF_ENCODING_VERSION_3,
  LEAF_FIELDS,
  LEAF_V2_FIELDS,
  leafEventOf,
  leafHashOf,
  type CommittedField,
  type LeafCommitments,
  type LeafEvent,
} from './leaf.js';
export {
  checkpointText,
  keyHashOf,
  parseCheckpoint,
  parseSignedNote,
  parseVerifierKey,
  signedNoteText,
  verifierKeyText,
  verifyCheckpoint,
  verifyNoteSignature,
  type Checkpoint,
  type CheckpointCheck,
  type NoteSignature,
  type VerifierKey,
} from './checkpoint.js';
export { verifierKeysOfText } from './input-shapes.js';
export { rootOfLeaves, type ProvenLeaf } from './multiproof.js';
export { hashBlock, type HashedBlock } from './row-hasher.js';
export {
  trailCheck,
  type Finding,
  type ListedCheckpoint,
  type TrailCheck,
  type TrailCheckInput,
  type TrailChecker,
  type WindowProof,
} from './trail-check.js';
export { printable, verifyCommand, type CommandIo } from './verify-command.js';
