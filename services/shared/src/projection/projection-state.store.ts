import type { ClickHouseClient } from '@clickhouse/client';
import { sqlValue } from '../platform/clickhouse/sql-quote.js';
import { generationOf, PROJECTION_PHASES, type ProjectionState } from './projection-tables.js';

interface StateRow {
  changed_at: string;
  phase: string;
  live: number;
  target: number;
  until: string;
}

const rows = async <T>(client: ClickHouseClient, query: string) =>
  (await client.query({ query, format: 'JSONEachRow' })).json<T>();

function stateOf(row: StateRow | undefined): ProjectionState {
  if (!row) return { phase: 'live', live: 1 };
  const phase = PROJECTION_PHASES.find((p) => p === row.phase);
  const live = Number(row.live);
  const target = Number(row.target);
  if (phase === 'build' || phase === 'prepare') return { phase, live, target };
  if (phase === 'pause' || phase === 'drain') return { phase, live, target, until: Number(row.until) };
  return { phase: 'live', live };
}

/** The projection's state and the projectors' acknowledgements, in ClickHouse (0002_projection_state). */
export function projectionStateStore(client: ClickHouseClient) {
  return {
    async read(): Promise<ProjectionState & { changedAt: number }> {
      const [row] = await rows<StateRow>(
        client,
        'SELECT changed_at, phase, live, target, until FROM projection_state ORDER BY changed_at DESC LIMIT 1',
      );
      return { ...stateOf(row), changedAt: Number(row?.changed_at ?? 0) };
    },

    /** Records a new state; answers its change time (strictly after the previous one's). */
    async write(state: ProjectionState, by: string, now: number): Promise<number> {
      const { changedAt } = await this.read();
      const at = Math.max(now, changedAt + 1);
      await client.insert({
        table: 'projection_state',
        format: 'JSONEachRow',
        values: [
          {
            changed_at: at,
            phase: state.phase,
            live: state.live,
            target: 'target' in state ? state.target : 0,
            until: 'until' in state ? state.until : 0,
            changed_by: by,
          },
        ],
      });
      return at;
    },

    /**
     * A member confirms the state that changed at `changedAt` (the state's own time, not the member's clock:
     * clocks of different hosts are never compared).
     */
    async ack(target: number, phase: 'pause' | 'drain', member: string, changedAt: number): Promise<void> {
      await client.insert({
        table: 'projection_acks',
        format: 'JSONEachRow',
        values: [{ at: changedAt, target, phase, member }],
      });
    },

    /** Members that confirmed `phase` of the move to `target`, for the state that changed at `changedAt`. */
    async acked(target: number, phase: 'pause' | 'drain', changedAt: number): Promise<Set<string>> {
      const found = await rows<{ member: string }>(
        client,
        `SELECT DISTINCT member FROM projection_acks
         WHERE target = ${sqlValue(target)} AND phase = ${sqlValue(phase)} AND at = ${sqlValue(changedAt)}`,
      );
      return new Set(found.map((r) => r.member));
    },
  };
}

export type ProjectionStateStore = ReturnType<typeof projectionStateStore>;

/** Generations whose events table exists in the database. */
export async function existingGenerations(client: ClickHouseClient, database: string): Promise<number[]> {
  const result = await client.query({
    query: `SELECT name FROM system.tables WHERE database = ${sqlValue(database)}`,
    format: 'JSONEachRow',
  });
  return (await result.json<{ name: string }>())
    .map((r) => generationOf(r.name))
    .filter((g): g is number => g !== null)
    .sort((a, b) => a - b);
}
