import { type AuditEventRecord } from '@audit/shared/contract';
import { sqlList, sqlValue } from '@audit/shared/platform';

/** Lets a query name every event and bucket of a batch (ClickHouse's default allows 256 KiB). */
export const BATCH_QUERY_SETTINGS = { max_query_size: String(64 * 1024 * 1024) };

/** A list of texts as one literal split server-side: cheap to parse at any size (none may hold a comma). */
export const textSet = (values: readonly string[]) =>
  `(SELECT arrayJoin(splitByChar(',', ${sqlValue(values.join(','))})))`;

/**
 * The rows of exactly these events in a table keyed by tenant and holding `ts` and `event_id`: the timestamps
 * narrow the read to the granules that can hold them.
 */
export function batchCondition(
  events: readonly Pick<AuditEventRecord, 'tenant_id' | 'timestamp' | 'event_id'>[],
) {
  return `tenant_id IN ${sqlList([...new Set(events.map((e) => e.tenant_id))])}
    AND ts IN ${sqlList([...new Set(events.map((e) => e.timestamp))])}
    AND event_id IN ${textSet(events.map((e) => e.event_id))}`;
}
