import type { FilterIndexState } from './filter-index.state.js';
import { projectionTables, type ProjectionTables } from './projection-tables.js';
import type { ProjectionStateStore } from './projection-state.store.js';

/** The live generation's tables, and whether its filter index is complete (else reads do without it). */
export type LiveGeneration = ProjectionTables & { indexed: boolean };

/**
 * The live generation's tables for readers, asked of ClickHouse at most once per `ttlMs` (a read then follows a
 * switch within that long; the old generation stays readable longer than that). Concurrent callers share one
 * question; a failed question is asked again by the next caller.
 */
export function liveTables(
  store: Pick<ProjectionStateStore, 'read'>,
  index: Pick<FilterIndexState, 'ready'>,
  ttlMs = 1000,
  now: () => number = Date.now,
): () => Promise<LiveGeneration> {
  let cached: { tables: LiveGeneration; at: number } | null = null;
  let pending: Promise<LiveGeneration> | null = null;
  return () => {
    if (cached && now() - cached.at < ttlMs) return Promise.resolve(cached.tables);
    pending ??= store
      .read()
      .then(async (state) => {
        const indexed = await index.ready(state.live);
        cached = { tables: { ...projectionTables(state.live), indexed }, at: now() };
        return cached.tables;
      })
      .finally(() => {
        pending = null;
      });
    return pending;
  };
}
