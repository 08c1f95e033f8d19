/**
 * One generation of the projection: the events, the by-id table, the filter index and its summary
 * (docs/architecture.md, "Read path"), and the views that fill the last three from the events table.
 */
export interface ProjectionTables {
  generation: number;
  events: string;
  ids: string;
  idsView: string;
  index: string;
  indexView: string;
  buckets: string;
  bucketsView: string;
}

/**
 * The filter index's shape: its dimensions and columns (filter-index.ts). A shape has tables of its own, so that a
 * new one is built beside the one the previous version reads (docs/operations.md, "Backfilling the filter index").
 * Shape 2 added the patient dimension and the event's version 2 columns; shape 3 the version 3 column, `leaf_salts`
 * (what is stored of the event's salts: their seed).
 */
export const FILTER_INDEX_SHAPE = 3;

export type FilterIndexTables = Pick<ProjectionTables, 'index' | 'indexView' | 'buckets' | 'bucketsView'>;

const generationSuffix = (generation: number) => {
  if (!Number.isInteger(generation) || generation < 1) throw new Error(`invalid generation ${generation}`);
  return generation === 1 ? '' : `_g${generation}`;
};

/** A generation's filter index and summary of one shape; shape 1 keeps the first names. */
export function filterIndexTables(generation: number, shape: number): FilterIndexTables {
  const suffix = `${shape === 1 ? '' : `_s${shape}`}${generationSuffix(generation)}`;
  return {
    index: `audit_events_by${suffix}`,
    indexView: `audit_events_by_mv${suffix}`,
    buckets: `audit_event_buckets${suffix}`,
    bucketsView: `audit_event_buckets_mv${suffix}`,
  };
}

/** Generation 1 keeps the first names (0001_audit_events); a rebuilt generation N has its own suffix. */
export function projectionTables(generation: number): ProjectionTables {
  const suffix = generationSuffix(generation);
  return {
    generation,
    events: `audit_events${suffix}`,
    ids: `audit_event_ids${suffix}`,
    idsView: `audit_event_ids_mv${suffix}`,
    ...filterIndexTables(generation, FILTER_INDEX_SHAPE),
  };
}

/** The generation an events table belongs to, or null for a table that is not one. */
export function generationOf(table: string): number | null {
  const m = /^audit_events(?:_g(\d+))?$/.exec(table);
  if (!m) return null;
  return m[1] === undefined ? 1 : Number(m[1]);
}

export const PROJECTION_PHASES = ['live', 'prepare', 'build', 'pause', 'drain'] as const;
export type ProjectionPhase = (typeof PROJECTION_PHASES)[number];

export type ProjectionState =
  | { phase: 'live'; live: number }
  /** A replay's tables are being made (and filled with what came before --since): one replay at a time. */
  | { phase: 'prepare'; live: number; target: number }
  /** Projectors also replay the audit topic into `target`, in a consumer group of its own. */
  | { phase: 'build'; live: number; target: number }
  /** As build, and writes to `live` are held (until `until`, epoch ms): the target catches up with them. */
  | { phase: 'pause'; live: number; target: number; until: number }
  /** As pause, and the replay consumers stop: the target is about to go live. */
  | { phase: 'drain'; live: number; target: number; until: number };

/**
 * The state a projector acts on at `now`. A pause or drain not finished by its deadline (the replay died) is
 * over: projectors go back to the live generation alone, a grace after the deadline, so that a replay switching
 * just before its deadline is never raced by a projector resuming the old generation.
 */
export function effectiveState(state: ProjectionState, now: number, graceMs: number): ProjectionState {
  if ((state.phase === 'pause' || state.phase === 'drain') && now > state.until + graceMs) {
    return { phase: 'live', live: state.live };
  }
  return state;
}

/**
 * The query id prefix of the projection's inserts: by database, and by who writes (the live path or a replay),
 * so that each waits only for its own inserts left running (and the operator can see that a replay's are over).
 */
export const insertQueryPrefix = (database: string, writer: 'live' | 'replay') =>
  `audit-insert-${database}-${writer}-`;

/** The name of the consumer group that replays the audit topic into `target`, derived from the projector's. */
export const replayGroupId = (projectorGroupId: string, target: number) =>
  `${projectorGroupId}.replay-g${target}`;
