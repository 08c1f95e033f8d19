import { type Clock } from '@audit/shared/contract';
import { sleep } from '@audit/shared/platform';
import {
  effectiveState,
  projectionTables,
  type ProjectionState,
  type ProjectionStateStore,
  type ProjectionTables,
} from '@audit/shared/projection';

export interface ProjectionGateOptions {
  store: Pick<ProjectionStateStore, 'read'>;
  clock: Clock;
  /** How long after a missed deadline a held write goes back to the live generation. */
  graceMs: number;
  pollMs: number;
  shouldStop: () => boolean;
}

/**
 * Live writes go through here: each writes to the live generation, or, while a replay's pause or drain is on,
 * waits. The state is the one the watcher last read (`observe`), so a write costs no query; a held write reads
 * it afresh while it waits. A write counts as in flight from before it looks at the state, and the watcher
 * observes a new state before it checks for writes in flight, so "nothing in flight" (what a pause
 * acknowledgement says) also rules out a write about to start on an older state.
 */
export class ProjectionGate {
  private inFlight = 0;
  private known: ProjectionState | null = null;

  constructor(private readonly options: ProjectionGateOptions) {}

  get idle(): boolean {
    return this.inFlight === 0;
  }

  /** The state as last read from the store. */
  observe(state: ProjectionState): void {
    this.known = state;
  }

  /**
   * `lost` says the caller may no longer write (its consumer left the group: the records' new owner writes
   * them), checked while held: a write released late must not race the new owner's.
   */
  async write<T>(
    fn: (tables: ProjectionTables) => Promise<T>,
    lost: () => boolean = () => false,
  ): Promise<T> {
    for (let fresh = this.known === null; ; fresh = true) {
      this.inFlight += 1;
      try {
        if (fresh) this.known = await this.options.store.read();
        const state = effectiveState(this.known!, this.options.clock(), this.options.graceMs);
        if (state.phase !== 'pause' && state.phase !== 'drain') return await fn(projectionTables(state.live));
      } finally {
        this.inFlight -= 1;
      }
      if (this.options.shouldStop() || lost()) throw new Error('write held for a replay given up');
      await sleep(this.options.pollMs);
    }
  }
}
