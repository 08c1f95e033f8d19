import type { Producer } from 'kafkajs';
import { exportJobCodec, type ExportJobRequest } from '@audit/shared/export-jobs';
import { CoalescingSender } from '@audit/shared/platform';

/** Publishes accepted jobs' request records (schemas/export-job) for the exporter. */
export interface ExportJobRequests {
  /** Resolves once Kafka acknowledged the record. */
  publish(job: ExportJobRequest): Promise<void>;
}

/**
 * Keyed by tenant, as the topic is. A record still queued after `maxWaitMs` is dropped unsent: its request has
 * already been answered 503 and its job rolled back.
 */
export function exportJobRequests(
  producer: Pick<Producer, 'send'>,
  topic: string,
  maxWaitMs: number,
): ExportJobRequests {
  const codec = exportJobCodec();
  const sender = new CoalescingSender(producer, topic, { maxQueuedBytes: 4 * 1024 * 1024, maxWaitMs });
  return { publish: (job) => sender.send([{ key: job.tenantId, value: codec.encode(job) }]) };
}
