import type { DeliveryJob } from '@audit/shared';
import type { KeyedLanes } from '../domain/keyed-lanes.js';
import type { Deliver } from './deliverer.js';

// A lane none of whose requests ended for this long has an endpoint that does not answer (or barely).
const STALLED_MS = 1000;

export interface StartDeliveryDeps {
  lanes: KeyedLanes;
  deliver: Deliver;
  defer: (job: DeliveryJob) => Promise<unknown>;
  /** Jobs that may wait in a stuck endpoint's lane; beyond, they wait in Kafka. */
  maxWaitingPerEndpoint: number;
}

/** Runs the job in its endpoint's lane, or defers it when that lane is stuck; `finish` once its effects are stored. */
export function startDelivery(deps: StartDeliveryDeps, job: DeliveryJob, finish: () => void): void {
  if (deps.lanes.stuck(job.endpointId, deps.maxWaitingPerEndpoint, STALLED_MS)) {
    // Not finished when the hand-off gives up (the process is stopping): the record is then read again.
    void deps.defer(job).then(finish, () => undefined);
    return;
  }
  void deps.lanes.run(job.endpointId, async (release) => {
    await deps.deliver(job, release);
    finish();
  });
}
