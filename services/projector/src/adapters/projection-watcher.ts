import { type Clock } from '@audit/shared/contract';
import { loggableError, type Logger } from '@audit/shared/platform';
import { effectiveState, type ProjectionStateStore } from '@audit/shared/projection';
import type { ProjectionGate } from './projection-gate.js';

/** This process's replay consumer: at most one, for one target generation. */
export interface ReplayRunner {
  running(): number | null;
  start(target: number): Promise<void>;
  stop(): Promise<void>;
}

export interface WatcherDeps {
  store: Pick<ProjectionStateStore, 'read' | 'ack'>;
  gate: Pick<ProjectionGate, 'idle' | 'observe'>;
  runner: ReplayRunner;
  /** The live consumer's group member id, once it joined. */
  member: () => string | null;
  clock: Clock;
  graceMs: number;
  logger: Logger;
}

/**
 * Follows the projection's state: runs the replay consumer while a generation is built, stops it for the drain
 * (and once the state is live again, or the replay was given up), and confirms a pause (no live write in flight)
 * and a drain (replay consumer stopped) for `ops replay projection`, once per phase change.
 */
export function projectionWatcher(deps: WatcherDeps) {
  const confirmed = new Set<string>();

  async function confirm(target: number, phase: 'pause' | 'drain', changedAt: number, member: string) {
    const key = `${changedAt}:${phase}:${member}`;
    if (confirmed.has(key)) return;
    await deps.store.ack(target, phase, member, changedAt);
    confirmed.add(key);
    deps.logger.info({ target, phase }, 'replay phase confirmed');
  }

  return async function tick(): Promise<void> {
    try {
      const raw = await deps.store.read();
      // Before anything is confirmed: a write starting from here on acts on this state.
      deps.gate.observe(raw);
      const state = effectiveState(raw, deps.clock(), deps.graceMs);
      const replaying = state.phase === 'build' || state.phase === 'pause';
      const target = replaying ? state.target : null;
      const running = deps.runner.running();
      if (!replaying || (running !== null && running !== target)) {
        if (running !== null) await deps.runner.stop();
      }
      if ((state.phase === 'build' || state.phase === 'pause') && deps.runner.running() === null) {
        await deps.runner.start(state.target);
      }
      const member = deps.member();
      if (member === null || (state.phase !== 'pause' && state.phase !== 'drain')) return;
      if (deps.gate.idle) await confirm(state.target, 'pause', raw.changedAt, member);
      if (state.phase === 'drain' && deps.runner.running() === null) {
        await confirm(state.target, 'drain', raw.changedAt, member);
      }
    } catch (err) {
      deps.logger.warn({ err: loggableError(err) }, 'projection state check failed; retrying');
    }
  };
}
