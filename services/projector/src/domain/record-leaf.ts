import { leafSaltBytes, type AuditEventRecord } from '@audit/shared/contract';
import { leafHashOf, type LeafEvent } from '@audit/shared/integrity';

const NOTHING_ERASED = new Map<never, never>();

/**
 * The event a record's leaf commits to: of version 3 when the record has salts (docs/integrity.md "Version 3"),
 * else the record itself, whose fields are the leaf's. The record schema has checked the salts' stored text.
 */
export function leafEventOfRecord(e: AuditEventRecord): LeafEvent {
  if (e.leaf_salts === '') return e;
  return { ...e, commitments: { salts: leafSaltBytes(e.leaf_salts), erased: NOTHING_ERASED } };
}

/** The leaf hash of a record as the projector appends it to its tenant's tree. */
export const recordLeafHash = (e: AuditEventRecord): Uint8Array => leafHashOf(leafEventOfRecord(e));
