import { EXPORT_CAP } from './export-plan.js';

export interface Streamed {
  timestamp: string;
}

export interface StreamOutcome {
  count: number;
  truncated: boolean;
}

/**
 * Passes events through (in list order) while holding back each millisecond's run until it is complete, so the
 * output never exceeds `cap` and never ends inside a millisecond, whatever arrives while the export runs. Only a
 * single millisecond holding more than `cap` events is cut inside: its first `cap` are passed.
 */
export async function* capByWholeMilliseconds<T extends Streamed>(
  events: AsyncIterable<T>,
  outcome: StreamOutcome,
  cap = EXPORT_CAP,
): AsyncGenerator<T> {
  let run: T[] = [];
  for await (const event of events) {
    if (run.length > 0 && event.timestamp !== run[0]!.timestamp) {
      if (outcome.count + run.length > cap) {
        outcome.truncated = true;
        return;
      }
      yield* run;
      outcome.count += run.length;
      run = [];
    }
    run.push(event);
    if (outcome.count === 0 && run.length === cap) {
      yield* run;
      outcome.count = cap;
      outcome.truncated = true;
      return;
    }
  }
  if (outcome.count + run.length > cap) {
    outcome.truncated = true;
    return;
  }
  yield* run;
  outcome.count += run.length;
}
