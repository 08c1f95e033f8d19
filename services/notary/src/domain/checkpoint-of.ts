import { frontierRoot, signCheckpoint, type CheckpointKey, type Frontier } from '@audit/shared/integrity';

export interface MadeCheckpoint {
  tenant_id: string;
  size: number;
  root: Uint8Array;
  time: number;
  /** The signed note, as served. */
  note: string;
}

/** The origin line of a tenant's checkpoints (docs/integrity.md "Checkpoints"). */
export const originOf = (logName: string, tenantId: string) => `${logName}/tenants/${tenantId}`;

/** A tenant's tree, as it is now, signed. */
export function checkpointOf(
  tenantId: string,
  tree: Frontier,
  logName: string,
  time: number,
  key: CheckpointKey,
): MadeCheckpoint {
  const root = frontierRoot(tree);
  const note = signCheckpoint({ origin: originOf(logName, tenantId), size: tree.size, root, time }, key);
  return { tenant_id: tenantId, size: tree.size, root, time, note };
}
