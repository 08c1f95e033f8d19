import { type AuditEventRecord } from '@audit/shared/contract';
import {
  appendLeaves,
  STORED_LEVEL_STEP,
  type CompletedSubtree,
  type Frontier,
} from '@audit/shared/integrity';
import { idKey } from './project-batch.js';
import { recordLeafHash } from './record-leaf.js';

export interface NewLeaf {
  tenant_id: string;
  leaf_index: number;
  event_id: string;
  leaf_hash: Uint8Array;
  /** The event's time, epoch ms: what window proofs select leaves by. */
  ts: number;
}

export interface StoredSubtree extends CompletedSubtree {
  tenant_id: string;
}

export interface AppendPlan {
  leaves: NewLeaf[];
  subtrees: StoredSubtree[];
  /** The trees that grew, as they are after the append. */
  trees: Map<string, Frontier>;
}

/** The levels of subtrees a tree's store keeps (docs/integrity.md "The tree store"). */
const storedLevel = (level: number) => level > 0 && level % STORED_LEVEL_STEP === 0;

/**
 * What appending a batch of events (in the audit topic's order) adds to their tenants' trees: each event not
 * already a leaf (`known`, by idKey) and not seen earlier in the batch becomes its tenant's next leaf
 * (docs/integrity.md "Leaf order"). `trees` holds the current frontier of every tenant in the batch.
 */
export function planAppend(
  events: readonly AuditEventRecord[],
  trees: ReadonlyMap<string, Frontier>,
  known: ReadonlySet<string>,
): AppendPlan {
  // Each tenant's events and their ids: a set of ids per tenant, where one of keys would join every event's two ids.
  const byTenant = new Map<string, { ids: Set<string>; list: AuditEventRecord[] }>();
  for (const event of events) {
    if (known.size > 0 && known.has(idKey(event))) continue;
    let tenant = byTenant.get(event.tenant_id);
    if (!tenant) byTenant.set(event.tenant_id, (tenant = { ids: new Set(), list: [] }));
    if (tenant.ids.has(event.event_id)) continue;
    tenant.ids.add(event.event_id);
    tenant.list.push(event);
  }
  const plan: AppendPlan = { leaves: [], subtrees: [], trees: new Map() };
  for (const [tenantId, { list }] of byTenant) {
    const before = trees.get(tenantId);
    if (!before) throw new RangeError(`no tree given for tenant ${tenantId}`);
    const hashes = list.map(recordLeafHash);
    const { frontier, completed } = appendLeaves(before, hashes, storedLevel);
    list.forEach((e, i) =>
      plan.leaves.push({
        tenant_id: tenantId,
        leaf_index: before.size + i,
        event_id: e.event_id,
        leaf_hash: hashes[i]!,
        ts: e.timestamp,
      }),
    );
    for (const s of completed) plan.subtrees.push({ tenant_id: tenantId, ...s });
    plan.trees.set(tenantId, frontier);
  }
  return plan;
}
