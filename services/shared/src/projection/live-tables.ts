import { projectionTables, type ProjectionTables } from './projection-tables.js';
import type { ProjectionStateStore } from './projection-state.store.js';

/**
 * The live generation's tables for readers, asked of ClickHouse at most once per `ttlMs` (a read then follows a
 * switch within that long; the old generation stays readable longer than that). Concurrent callers share one
 * question; a failed question is asked again by the next caller.
 */
export function liveTables(
  store: Pick<ProjectionStateStore, 'read'>,
  ttlMs = 1000,
  now: () => number = Date.now,
): () => Promise<ProjectionTables> {
  let cached: { tables: ProjectionTables; at: number } | null = null;
  let pending: Promise<ProjectionTables> | null = null;
  return () => {
    if (cached && now() - cached.at < ttlMs) return Promise.resolve(cached.tables);
    pending ??= store
      .read()
      .then((state) => {
        cached = { tables: projectionTables(state.live), at: now() };
        return cached.tables;
      })
      .finally(() => {
        pending = null;
      });
    return pending;
  };
}
