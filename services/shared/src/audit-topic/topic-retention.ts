const DAY_MS = 86_400_000;
const RETENTION = 'retention.ms';
const SEGMENT = 'segment.ms';

/**
 * The shortest retention an operator may set on the audit topic and the dead-letter topics, in days: a consumer
 * stopped longer than the retention never reads what was deleted meanwhile (docs/operations.md "Topic retention").
 */
export const MIN_TOPIC_RETENTION_DAYS = 7;
export const MAX_TOPIC_RETENTION_DAYS = 36_500;

/**
 * The topic configuration that keeps records `days` days, or for ever (null). Kafka deletes whole segments once
 * their newest record is past the retention, and a segment is rolled after `segment.ms` (a week by default): a day
 * keeps a record at most a day past its retention. For ever, the segment time goes back to the broker's default.
 */
export function retentionConfig(days: number | null): Record<string, string | null> {
  return days === null
    ? { [RETENTION]: '-1', [SEGMENT]: null }
    : { [RETENTION]: String(days * DAY_MS), [SEGMENT]: String(DAY_MS) };
}

/** The retention entries of a topic's own configuration, to give a topic made after it (a growth's generation). */
export function retentionEntriesOf(own: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(own).filter(([name]) => name === RETENTION || name === SEGMENT));
}
