import { type AuditEventRecord } from '@audit/shared/contract';
import { EVENTS_PARTITION_MS, MAX_PARTITIONS_PER_INSERT } from '@audit/shared/projection';

const partitionOf = (e: AuditEventRecord) => Math.floor(e.timestamp / EVENTS_PARTITION_MS);

/** The events in chunks that each span at most MAX_PARTITIONS_PER_INSERT partitions; usually one chunk, as given. */
export function partitionChunks(events: readonly AuditEventRecord[]): (readonly AuditEventRecord[])[] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const e of events) {
    const p = partitionOf(e);
    if (p < lo) lo = p;
    if (p > hi) hi = p;
  }
  if (hi - lo < MAX_PARTITIONS_PER_INSERT) return events.length > 0 ? [events] : [];
  const byPartition = new Map<number, AuditEventRecord[]>();
  for (const e of events) {
    const p = partitionOf(e);
    const list = byPartition.get(p);
    if (list) list.push(e);
    else byPartition.set(p, [e]);
  }
  const partitions = [...byPartition.keys()].sort((a, b) => a - b);
  const chunks: AuditEventRecord[][] = [];
  for (let i = 0; i < partitions.length; i += MAX_PARTITIONS_PER_INSERT) {
    chunks.push(partitions.slice(i, i + MAX_PARTITIONS_PER_INSERT).flatMap((p) => byPartition.get(p)!));
  }
  return chunks;
}
