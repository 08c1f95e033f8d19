import { EVENT_COLUMNS, type EventRow } from '@audit/shared/contract';
import { type ExportJobRequest } from '@audit/shared/export-jobs';
import { sqlIdentifier, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import { filterConditions, type LiveGeneration } from '@audit/shared/projection';
import type { BucketCount, Chunk, CountRows } from '../domain/chunk-plan.js';
import type { Release } from '../domain/read-turns.js';

/** A chunk's read, started: what it yields in list order (parsed rows or RowBinary bytes), or closed unread. */
export interface ChunkRead<T> {
  items(): AsyncIterable<T>;
  close(): void;
}

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

  const rowsQuery = (from: number, to: number) =>
    `SELECT ${EVENT_COLUMNS} FROM ${events} WHERE ${where(from, to)} ORDER BY ts DESC, event_id DESC`;

  /**
   * The reads of the rows in [from, to), in list order: each sends its query and resolves once ClickHouse has
   * sorted them and the first bytes arrive. Rows not taken wait on the connection, which holds the server back.
   * `rows` parses them (for the text files); `rowBinary` passes ClickHouse's RowBinary on as it comes, for the
   * Parquet file, which takes the values' bytes as they are and never needs them as JavaScript values.
   */
  async function rows(from: number, to: number): Promise<ChunkRead<EventRow[]>> {
    const result = await client.query({ query: rowsQuery(from, to), format: 'JSONEachRow' });
    return {
      async *items() {
        for await (const rows of result.stream<EventRow>()) yield rows.map((row) => row.json());
      },
      close: () => result.close(),
    };
  }

  async function rowBinary(from: number, to: number): Promise<ChunkRead<Uint8Array>> {
    const { stream } = await client.exec({ query: `${rowsQuery(from, to)} FORMAT RowBinary` });
    return {
      items: () => stream as AsyncIterable<Buffer>,
      close: () => stream.destroy(),
    };
  }

  return { count, rows, rowBinary };
}

export type WindowReader = ReturnType<typeof windowReader>;

/**
 * The window's reads in list order: its chunks newest first, each read in list order, each opened in a turn
 * `take` gives (docs/exports.md "Fair share") and given back once read or closed. The next chunk's query is sent
 * as soon as the current one's rows flow, so ClickHouse sorts it while they are written instead of the writer
 * waiting for each sort in turn; at most two reads are open at once.
 */
export async function* windowReads<T>(
  open: (from: number, to: number) => Promise<ChunkRead<T>>,
  chunks: readonly Chunk[],
  take: () => Promise<Release>,
): AsyncGenerator<T> {
  let next: Promise<ChunkRead<T>> | undefined;
  const start = (i: number) => {
    const chunk = chunks[i];
    next = chunk && inTurn(take, () => open(chunk.from, chunk.to));
    // Its failure surfaces when it is awaited; until then it must not count as unhandled.
    next?.catch(() => undefined);
  };
  start(0);
  try {
    for (let i = 0; next; i++) {
      const current = await next;
      start(i + 1);
      try {
        yield* current.items();
      } finally {
        current.close();
      }
    }
  } finally {
    // A write given up (a failure, a lost job) leaves no query running for nothing.
    void next?.then(
      (read) => read.close(),
      () => undefined,
    );
  }
}

/** A read opened in a turn of its own, which its close gives back (as does a failure to open it). */
async function inTurn<T>(
  take: () => Promise<Release>,
  open: () => Promise<ChunkRead<T>>,
): Promise<ChunkRead<T>> {
  const release = await take();
  try {
    const read = await open();
    return {
      items: () => read.items(),
      close: () => {
        read.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
