import { integrityEnv, integritySettings } from '@audit/shared/integrity';
import { positiveInt, serviceConfig } from '@audit/shared/platform';

/** The environment variables the notary reads, each described for docs/configuration.md. */
export const { envSchema, loadConfig } = serviceConfig(
  'notary',
  ['postgres'],
  {
    ...integrityEnv,
    INTEGRITY_CHECKPOINT_INTERVAL_MS: positiveInt(60_000).meta({
      description:
        "a tenant's new leaves wait at most this long for a checkpoint (or until `INTEGRITY_CHECKPOINT_EVERY` of " +
        'them wait; docs/integrity.md "Checkpoints")',
    }),
    INTEGRITY_CHECKPOINT_EVERY: positiveInt(10_000).meta({
      description:
        "a tenant's new leaves wait for a checkpoint until this many wait (or `INTEGRITY_CHECKPOINT_INTERVAL_MS` at " +
        'most)',
    }),
  },
  (e) => ({
    integrity: integritySettings(e),
    checkpoints: { intervalMs: e.INTEGRITY_CHECKPOINT_INTERVAL_MS, every: e.INTEGRITY_CHECKPOINT_EVERY },
  }),
);

export type NotaryConfig = ReturnType<typeof loadConfig>;
