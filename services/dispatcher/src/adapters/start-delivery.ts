import type { DeliveryJob } from '@audit/shared/webhooks';
import type { KeyedLanes } from '../domain/keyed-lanes.js';
import type { Deliver, Outcome } from './deliverer.js';

// A lane none of whose requests ended for this long has an endpoint that does not answer (or barely).
const STALLED_MS = 1000;

/** How each job ended, for the metrics: `attempt` is the job's attempt number (1 for the first). */
export interface DeliveryOutcomeMeter {
  settled(outcome: Outcome | 'deferred', attempt: number): void;
}

export interface StartDeliveryDeps {
  lanes: KeyedLanes;
  deliver: Deliver;
  defer: (job: DeliveryJob) => Promise<unknown>;
  /** Jobs that may wait in a stuck endpoint's lane; beyond, they wait in Kafka. */
  maxWaitingPerEndpoint: number;
  meter: DeliveryOutcomeMeter;
}

/** Runs the job in its endpoint's lane, or defers it when that lane is stuck; `finish` once its effects are stored. */
export function startDelivery(deps: StartDeliveryDeps, job: DeliveryJob, finish: () => void): void {
  if (deps.lanes.stuck(job.endpointId, deps.maxWaitingPerEndpoint, STALLED_MS)) {
    // Not finished when the hand-off gives up (the process is stopping): the record is then read again.
    void deps.defer(job).then(
      () => {
        deps.meter.settled('deferred', job.attempt);
        finish();
      },
      () => undefined,
    );
    return;
  }
  void deps.lanes.run(job.endpointId, async (release) => {
    deps.meter.settled(await deps.deliver(job, release), job.attempt);
    finish();
  });
}
