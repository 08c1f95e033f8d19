/** What a replay would start from in one partition of a generation of the audit topic. */
export interface PartitionReach {
  topic: string;
  partition: number;
  /** The first offset the topic still holds: above 0 once its retention deleted records. */
  low: bigint;
  /** The end offset. */
  high: bigint;
  /** The first offset whose record is at `since` or later, the end when none is (asked only with a `since`). */
  atSince: bigint | null;
  /** The topic's retention in milliseconds; null while it keeps records for ever. */
  retentionMs: number | null;
}

/**
 * Why a replay of the projection from these partitions would miss records the topic no longer holds, one reason
 * per partition (docs/operations.md "Topic retention"); none when it would not.
 *
 * A replay reads from each partition's first record, or with `since` from the first record at `since` or later,
 * and copies what was ingested before `since` from the live projection. Kafka deletes a partition's records
 * oldest first, so its reach is whole when nothing was deleted (`low` 0), or when a record it still holds is
 * older than `since` (the first record at `since` or later is not its first). A partition whose every record was
 * deleted holds none to tell: its records were past the retention when deleted, so `since` is safe if within it.
 */
export function replayShortfalls(
  partitions: readonly PartitionReach[],
  since: number | undefined,
  now: number,
) {
  const reasons: string[] = [];
  for (const p of partitions) {
    if (p.low === 0n) continue;
    const where = `${p.topic} partition ${p.partition}`;
    if (since === undefined) {
      reasons.push(`${where} no longer holds its records before offset ${p.low}`);
    } else if (p.low < p.high) {
      if (p.atSince === null || p.atSince <= p.low)
        reasons.push(
          `${where} no longer holds its records before offset ${p.low}, which may be at --since or later`,
        );
    } else if (p.retentionMs === null || since < now - p.retentionMs) {
      reasons.push(`${where} no longer holds any record, and --since is not within its retention`);
    }
  }
  return reasons;
}
