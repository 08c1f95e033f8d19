import { sqlIdentifier, sqlValue, type ClickHouseClient, type SchemaWriter } from '@audit/shared/platform';
import {
  bucketRowsQuery,
  EVENTS_PARTITION_MS,
  createFilterIndex,
  dropOlderFilterIndexes,
  filterIndexState,
  indexRowsQuery,
  projectionStateStore,
  projectionTables,
} from '@audit/shared/projection';
import { CliError } from './cli-error.js';
import { partitions, VIEW_FRIENDLY_BLOCKS } from '../adapters/projection-tables.admin.js';

const SETTINGS = { max_execution_time: 0, ...VIEW_FRIENDLY_BLOCKS };

export interface BackfillContext {
  clickhouse: ClickHouseClient;
  schema: SchemaWriter;
  now: () => number;
  progress?: (done: number, total: number) => void;
}

export interface BackfillResult {
  generation: number;
  /** Partitions copied by this run (those an earlier run copied are skipped). */
  partitions: number;
  events: number;
  /** The index was complete already: nothing to do. */
  already_ready: boolean;
  duration_ms: number;
}

/**
 * Fills the live generation's filter index and summary from its events table, one partition at a time, and
 * marks the index complete (docs/operations.md, "Backfilling the filter index"). Re-runnable: a run resumes
 * with the partitions no earlier run finished. Live writes go on meanwhile through the views; an event the
 * views write while its partition is copied is copied once more, and the partition is then merged so that the
 * index holds it once (the summary, only a hint for sizing reads, may count it twice).
 */
export async function backfillFilterIndex(ctx: BackfillContext): Promise<BackfillResult> {
  // A backfill reads one node's parts (system.parts) and merges one node's partitions, which a cluster's shards
  // would not match: a cluster gets an index of a new shape by a replay into a new generation, made whole.
  if (ctx.schema.cluster) {
    throw new CliError(
      'a cluster is not backfilled: `ops replay projection` builds a generation whose filter index is complete',
      2,
    );
  }
  const started = ctx.now();
  const client = ctx.clickhouse;
  const { live } = await projectionStateStore(client).read();
  const t = projectionTables(live);
  const state = filterIndexState(client);
  await createFilterIndex(ctx.schema, t);
  const result = { generation: live, partitions: 0, events: 0, already_ready: false };
  if (await state.ready(live)) {
    await dropOlderFilterIndexes(client, ctx.schema, live);
    return { ...result, already_ready: true, duration_ms: ctx.now() - started };
  }

  const done = await state.backfilled(live);
  const todo = (await partitions(client, t.events)).filter((p) => !done.has(p.partition));
  const total = todo.reduce((sum, p) => sum + p.events, 0);
  for (const { partition, events } of todo) {
    const inPartition = `intDiv(ts, ${EVENTS_PARTITION_MS}) = ${sqlValue(partition)}`;
    // Events the views already indexed (every event has an action) are left out.
    const missing = `${inPartition} AND (tenant_id, event_id) NOT IN
      (SELECT tenant_id, event_id FROM ${sqlIdentifier(t.index)} WHERE dim = 1 AND ${inPartition})`;
    // The summary first: once the index holds the partition's events they no longer count as missing.
    await client.command({
      query: `INSERT INTO ${sqlIdentifier(t.buckets)} ${bucketRowsQuery(t.events, missing)}`,
      clickhouse_settings: SETTINGS,
    });
    await client.command({
      query: `INSERT INTO ${sqlIdentifier(t.index)} ${indexRowsQuery(t.events, missing)}`,
      clickhouse_settings: SETTINGS,
    });
    await state.markBackfilled(live, partition, events, ctx.now());
    result.partitions += 1;
    result.events += events;
    ctx.progress?.(result.events, total);
  }
  // A merge keeps each index row once where a live write and the copy both wrote it. The index's partitions span
  // many of the events table's, so each is merged once, at the end: again after a run that stopped, which is
  // only more work. They are asked of the table, which keeps the span it was created with.
  for (const { partition } of await partitions(client, t.index)) {
    await client.command({
      query: `OPTIMIZE TABLE ${sqlIdentifier(t.index)} PARTITION ${sqlValue(partition)} FINAL`,
      clickhouse_settings: SETTINGS,
    });
  }
  await state.markReady(live, ctx.now());
  await dropOlderFilterIndexes(client, ctx.schema, live);
  return { ...result, duration_ms: ctx.now() - started };
}
