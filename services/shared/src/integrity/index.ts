// The tenants' trees, checkpoints and signing keys (docs/integrity.md).
export * from './checkpoint-signer.js';
export * from './integrity-env.js';
export * from './integrity-keys.repository.js';
export * from './integrity.store.js';
export * from './leaf-tiles.repository.js';
export * from './leaf-tiles.js';
export * from './proof-ranges.js';
export * from './signing-key.files.js';
export * from './tree-frontier.js';
export * from './window-leaves.js';
// The verifier's own functions: the service builds trees and checkpoints with the code receivers check them with.
export {
  EMPTY_ROOT,
  leafEventOf,
  leafHashOf,
  parseVerifierKey,
  printable,
  rootOf,
  verifierKeysOfText,
  verifyCheckpoint,
  type Checkpoint,
  type LeafEvent,
  type VerifierKey,
} from '@audit-trail/integrity-verifier';
