import type { Producer } from 'kafkajs';
import { type AuditEventRecord, type Clock, type Codec } from '@audit/shared/contract';
import { sleep, type TopicRecord } from '@audit/shared/platform';
import type { RetentionFilter } from '@audit/shared/retention';
import {
  jobHeaders,
  replayJob,
  tenantEvent,
  type DeliveryJob,
  type ReplayProgress,
  type ReplayTarget,
} from '@audit/shared/webhooks';
import { paceWaitMs } from '../domain/replay-pace.js';

const SEND_CHUNK = 500;

/**
 * What a replay does with the records it reads (docs/webhooks.md "Replays"): each matching event its tenant's
 * retention purges did not remove (docs/retention.md "What a replay stores") becomes a replayed delivery, handed
 * on to the first retry tier in parts of about a tenth of a second's worth at the pace. `check` is asked before
 * each part (the lease); the progress moves only once a part is on Kafka, all of it at once, so that whatever
 * records it at any moment says exactly what was handed on.
 */
export function replayTaker(deps: {
  producer: Pick<Producer, 'send'>;
  codec: Codec<AuditEventRecord>;
  firstRetryTopic: string;
  perSecond: number;
  retained: RetentionFilter;
  target: ReplayTarget;
  progress: ReplayProgress;
  check: () => void;
  clock: Clock;
}) {
  const { progress } = deps;
  // The pace counts from the first record read, not from the read's setup (a consumer joining its group).
  let started: number | undefined;
  let sentSinceStart = 0;
  const step = Math.max(1, Math.min(SEND_CHUNK, Math.ceil(deps.perSecond / 10)));
  // The tenant's records read since the progress last moved: other tenants' records of the partition are read
  // too, and never counted (their volume is none of this tenant's business).
  let examined = 0;
  const handedOn = (upTo: TopicRecord, deliveries: number) => {
    progress.deliveriesQueued += deliveries;
    progress.recordsRead += examined;
    progress.nextOffset = BigInt(upTo.offset) + 1n;
    examined = 0;
  };
  const send = async (jobs: DeliveryJob[], upTo: TopicRecord, heartbeat: () => Promise<void>) => {
    // Paced: a replay of a busy month neither floods the retry tier nor the endpoint.
    const wait = paceWaitMs(sentSinceStart + jobs.length, deps.clock() - started!, deps.perSecond);
    if (wait > 0) await sleep(wait);
    deps.check();
    await deps.producer.send({
      topic: deps.firstRetryTopic,
      messages: jobs.map((job) => ({ key: job.endpointId, value: job.body, headers: jobHeaders(job) })),
    });
    sentSinceStart += jobs.length;
    handedOn(upTo, jobs.length);
    await heartbeat();
  };
  return async (records: TopicRecord[], heartbeat: () => Promise<void>): Promise<void> => {
    started ??= deps.clock();
    let jobs: DeliveryJob[] = [];
    for (const record of records) {
      deps.check();
      const event = tenantEvent(deps.codec, record, deps.target);
      if (event) examined += 1;
      const kept = event && (await deps.retained([event])).length > 0 ? event : null;
      const job = replayJob(kept, record, deps.target, deps.clock());
      if (job) jobs.push(job);
      if (jobs.length === step) {
        await send(jobs, record, heartbeat);
        jobs = [];
      }
    }
    if (jobs.length > 0) await send(jobs, records.at(-1)!, heartbeat);
    else if (records.length > 0) handedOn(records.at(-1)!, 0);
  };
}
