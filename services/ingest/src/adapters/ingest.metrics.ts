import { Counter, type Registry } from '@audit/shared/platform';
import type { IngestMeter, IngestOutcome } from '../routes/events.route.js';

const OUTCOMES: readonly IngestOutcome[] = ['accepted', 'rejected', 'unavailable'];

export function ingestMetrics(registry: Registry): IngestMeter {
  const events = new Counter({
    name: 'ingest_events_total',
    help: 'Events of well-formed batches: accepted (Kafka acknowledged), rejected (422), unavailable (503)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // Every series exists from the start: a rate over a series that appears with its first increment misses it.
  for (const outcome of OUTCOMES) events.inc({ outcome }, 0);
  return { events: (outcome, count) => events.inc({ outcome }, count) };
}
