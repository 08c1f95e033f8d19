import { Counter, Histogram, type Registry } from '@audit/shared';
import type { AppendOutcome } from './trees.repository.js';

export interface TreeMeter {
  appended(outcome: AppendOutcome & { records: number; seconds: number }): void;
}

export function notaryMetrics(registry: Registry): TreeMeter {
  const records = new Counter({
    name: 'notary_records_total',
    help: 'Audit topic records handled: appended (a new leaf), known (a leaf already), skipped (not an event the projector stores)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'notary_append_duration_seconds',
    help: "Duration of one batch's append to its tenants' trees (one Postgres transaction)",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  for (const outcome of ['appended', 'known', 'skipped']) records.inc({ outcome }, 0);
  return {
    appended(o) {
      records.inc({ outcome: 'appended' }, o.appended);
      records.inc({ outcome: 'known' }, o.known);
      records.inc({ outcome: 'skipped' }, o.records - o.appended - o.known);
      duration.observe(o.seconds);
    },
  };
}
