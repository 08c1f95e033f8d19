import { Counter, Gauge, type Registry } from '@audit/shared/platform';

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
