import { Counter, Gauge, type Registry } from '@audit/shared/platform';

export const CHECK_OUTCOMES = ['purged', 'nothing', 'busy', 'failed'] as const;
export type CheckOutcome = (typeof CHECK_OUTCOMES)[number];

export interface PurgeMeter {
  checked(outcome: CheckOutcome): void;
  /** A pass over the tenants ended at `at` (epoch ms), every due tenant checked. */
  passed(at: number): void;
}

/** The custodian's own metrics (docs/retention.md "The schedule"); the runs' figures are the gateway's. */
export function purgeMetrics(registry: Registry): PurgeMeter {
  const checks = new Counter({
    name: 'custodian_purge_checks_total',
    help: "Tenants' due purges checked, by outcome: purged, nothing to remove, busy (another purge), failed",
    labelNames: ['outcome'],
    registers: [registry],
  });
  const pass = new Gauge({
    name: 'custodian_purge_pass_timestamp_seconds',
    help: 'When the last pass over the tenants due for a purge ended (0 before the first)',
    registers: [registry],
  });
  for (const outcome of CHECK_OUTCOMES) checks.inc({ outcome }, 0);
  pass.set(0);
  return {
    checked: (outcome) => checks.inc({ outcome }),
    passed: (at) => pass.set(at / 1000),
  };
}
