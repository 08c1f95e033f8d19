import { Counter, Gauge, Histogram, type Registry } from '@audit/shared';
import type { AppendOutcome } from './trees.repository.js';

export interface TreeMeter {
  appended(outcome: AppendOutcome & { records: number; seconds: number }): void;
}

export interface CheckpointMeter {
  signed(count: number): void;
  /** Whether this notary can sign: a key is active and its private half is here. */
  keyReady(ready: boolean): void;
  lag(lag: { unsignedLeaves: number; lagSeconds: number }): void;
}

export function checkpointMetrics(registry: Registry): CheckpointMeter {
  const checkpoints = new Counter({
    name: 'notary_checkpoints_total',
    help: 'Checkpoints signed',
    registers: [registry],
  });
  const ready = new Gauge({
    name: 'notary_signing_key_ready',
    help: "1 when a signing key is active and its private half is in this notary's key directory, else 0",
    registers: [registry],
  });
  const unsigned = new Gauge({
    name: 'notary_unsigned_leaves',
    help: 'Leaves of all trees that no checkpoint covers yet',
    registers: [registry],
  });
  const lag = new Gauge({
    name: 'notary_checkpoint_lag_seconds',
    help: 'How long the oldest leaf no checkpoint covers has waited for one (0 when none waits)',
    registers: [registry],
  });
  checkpoints.inc(0);
  return {
    signed: (count) => checkpoints.inc(count),
    keyReady: (isReady) => ready.set(isReady ? 1 : 0),
    lag(l) {
      unsigned.set(l.unsignedLeaves);
      lag.set(l.lagSeconds);
    },
  };
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
