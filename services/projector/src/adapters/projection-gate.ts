import {
  effectiveState,
  projectionTables,
  sleep,
  type Clock,
  type ProjectionState,
  type ProjectionStateStore,
  type ProjectionTables,
} from '@audit/shared';

export interface ProjectionGateOptions {
  store: Pick<ProjectionStateStore, 'read'>;
  clock: Clock;
  /** How long after a missed deadline a held write goes back to the live generation. */
  graceMs: number;
  pollMs: number;
  shouldStop: () => boolean;
}

/**
 * Live writes go through here: each reads the projection's state first and writes to the live generation, or,
 * while a replay's pause or drain is on, waits. A write counts as in flight from before it reads the state, so
 * "nothing in flight" (what a pause acknowledgement says) also rules out a write about to start on an older state.
 */
export class ProjectionGate {
  private inFlight = 0;

  constructor(private readonly options: ProjectionGateOptions) {}

  get idle(): boolean {
    return this.inFlight === 0;
  }

  /** The state as a projector acts on it now. */
  async state(): Promise<ProjectionState> {
    return effectiveState(await this.options.store.read(), this.options.clock(), this.options.graceMs);
  }

  /**
   * `lost` says the caller may no longer write (its consumer left the group: the records' new owner writes
   * them), checked while held: a write released late must not race the new owner's.
   */
  async write<T>(
    fn: (tables: ProjectionTables) => Promise<T>,
    lost: () => boolean = () => false,
  ): Promise<T> {
    for (;;) {
      this.inFlight += 1;
      try {
        const state = await this.state();
        if (state.phase !== 'pause' && state.phase !== 'drain') return await fn(projectionTables(state.live));
      } finally {
        this.inFlight -= 1;
      }
      if (this.options.shouldStop() || lost()) throw new Error('write held for a replay given up');
      await sleep(this.options.pollMs);
    }
  }
}
