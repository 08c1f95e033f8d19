import {
  EVENT_COLUMNS,
  filterConditions,
  sqlIdentifier,
  sqlValue,
  type ClickHouseClient,
  type EventRow,
  type ExportJobRequest,
  type LiveGeneration,
} from '@audit/shared';
import type { BucketCount, CountRows } from '../domain/chunk-plan.js';

/**
 * The ClickHouse reads of one job's window (docs/exports.md "Window"): its filters, its time window, and only the
 * events ingested before the job was accepted. Every value is validated by the API and quoted by sqlValue.
 */
export function windowReader(client: ClickHouseClient, tables: LiveGeneration, job: ExportJobRequest) {
  const events = sqlIdentifier(tables.events);
  const where = (from: number, to: number) =>
    [
      `tenant_id = ${sqlValue(job.tenantId)}`,
      ...filterConditions(job.filters),
      `ts >= ${sqlValue(Math.max(from, job.since))}`,
      `ts < ${sqlValue(Math.min(to, job.until))}`,
      `ingested_at <= ${sqlValue(job.acceptedAt)}`,
    ].join(' AND ');

  const count: CountRows = async (from, to, width) => {
    const result = await client.query({
      query: `SELECT intDiv(ts, ${sqlValue(width)}) AS bucket, count() AS rows FROM ${events}
              WHERE ${where(from, to)} GROUP BY bucket`,
      format: 'JSONEachRow',
    });
    const rows = await result.json<{ bucket: string; rows: string }>();
    return rows.map((r): BucketCount => ({ bucket: Number(r.bucket), rows: Number(r.rows) }));
  };

  /** The rows in [from, to), in list order, as ClickHouse streams them. */
  async function* read(from: number, to: number): AsyncGenerator<EventRow> {
    const result = await client.query({
      query: `SELECT ${EVENT_COLUMNS} FROM ${events} WHERE ${where(from, to)} ORDER BY ts DESC, event_id DESC`,
      format: 'JSONEachRow',
    });
    for await (const rows of result.stream<EventRow>()) {
      for (const row of rows) yield row.json();
    }
  }

  return { count, read };
}

export type WindowReader = ReturnType<typeof windowReader>;
