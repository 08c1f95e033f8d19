import { LRUCache } from 'lru-cache';
import {
  BUCKET_MS,
  sqlIdentifier,
  sqlValue,
  type ClickHouseClient,
  type LiveGeneration,
} from '@audit/shared';
import type { IndexSlice } from '../domain/event-filters.js';
import { readPlan } from '../domain/read-plan.js';
import { windowStart, type BucketCount } from '../domain/window-plan.js';
import { pageQuery, rows } from './page-query.js';

const WINDOW_GROWTH = 4;
// The pages of one paging (or an export's chunks) reuse the summary this long. A count that has grown since
// only makes a window larger than it needed to be; it never hides an event.
const SUMMARY_TTL_MS = 2000;
const SUMMARIES_KEPT = 256;

type SummaryCounts = BucketCount[][];

/** The summaries read last, by generation, tenant and filters; concurrent reads of one share one query. */
export function summaryCache() {
  return new LRUCache<string, SummaryCounts, () => Promise<SummaryCounts>>({
    max: SUMMARIES_KEPT,
    ttl: SUMMARY_TTL_MS,
    fetchMethod: (_key, _stale, { context }) => context(),
  });
}
export type Summaries = ReturnType<typeof summaryCache>;

export const sliceCondition = (s: IndexSlice) =>
  'value' in s
    ? `dim = ${sqlValue(s.dim)} AND value = ${sqlValue(s.value)}`
    : `dim = ${sqlValue(s.dim)} AND value >= ${sqlValue(s.from)} AND value < ${sqlValue(s.to)}`;

/** The summary's counts per hour in [lo, hi) of every event (first) and of each slice, in one round trip. */
async function readSummary(
  client: ClickHouseClient,
  t: LiveGeneration,
  tenantId: string,
  slices: readonly IndexSlice[],
  lo: number,
  hi: number,
): Promise<BucketCount[][]> {
  const conditions = ['dim = 0', ...slices.map(sliceCondition)];
  const found = await rows<{ slice: number; bucket: string; n: string }>(
    client,
    conditions
      .map(
        (condition, i) => `SELECT toUInt8(${i}) AS slice, bucket, sum(n) AS n FROM ${sqlIdentifier(t.buckets)}
        WHERE tenant_id = ${sqlValue(tenantId)} AND ${condition}
          AND bucket >= ${sqlValue(Math.floor(lo / BUCKET_MS))}
          AND bucket <= ${sqlValue(Math.floor((Math.min(hi, Number.MAX_SAFE_INTEGER) - 1) / BUCKET_MS))}
        GROUP BY bucket`,
      )
      .join(' UNION ALL '),
  );
  const counts = conditions.map((): BucketCount[] => []);
  for (const r of found)
    counts[Number(r.slice)]!.push({ start: Number(r.bucket) * BUCKET_MS, count: Number(r.n) });
  return counts;
}

/**
 * The newest `want` events in [lo, top) through the filter index (docs/architecture.md, "Read path"): the
 * summary says which slice of it holds the fewest of the filters' events and where they lie, and each window is
 * sized from its counts to hold what the page still lacks, so a page reads about what it returns, at any depth
 * and over any gap. The counts only size windows: a window always reaches down from where the previous one
 * ended, so a count that is off costs a query or rows more, never an event.
 */
export async function indexedPage<T>(
  client: ClickHouseClient,
  t: LiveGeneration,
  read: {
    tenantId: string;
    slices: readonly IndexSlice[];
    conditions: readonly string[];
    /** The tenant and filters (filterKey), whose whole range [lo, until) the summary is read for. */
    key: string;
    until: number;
  },
  summaries: Summaries,
  columns: string,
  want: number,
  lo: number,
  top: number,
): Promise<T[]> {
  if (top <= lo) return [];
  const counts = await summaries.fetch(`${t.generation}:${read.key}`, {
    context: () => readSummary(client, t, read.tenantId, read.slices, lo, read.until),
  });
  const [all, ...bySlice] = counts!;
  const plan = readPlan(
    { slice: null, buckets: all! },
    read.slices.map((slice, i) => ({ slice, buckets: bySlice[i]! })),
  );
  const select = plan.slice
    ? pageQuery(client, t.index, [sliceCondition(plan.slice), ...read.conditions])
    : pageQuery(client, t.events, read.conditions);
  const found: T[] = [];
  // Events bunched inside an hour can leave a window short of its estimate: each further window aims at four
  // times what is still missing, so a page takes a few queries at most, never one per empty slice of an hour.
  for (let hi = top, aim = 1; found.length < want && hi > lo; aim *= WINDOW_GROWTH) {
    const missing = want - found.length;
    const from = windowStart(plan.buckets, hi, lo, missing * aim, plan.share);
    found.push(...(await select<T>(columns, from, hi, missing)));
    hi = from;
  }
  return found;
}
