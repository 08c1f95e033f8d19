import { systemClock } from '@audit/shared/contract';
import { type ServiceHost } from '@audit/shared/host';
import { checkPostgresSchema } from '@audit/shared/migrations';
import { runCheckpointLoop } from './adapters/checkpoint.loop.js';
import { checkpointMetrics } from './adapters/checkpoint.metrics.js';
import { signingKeyCache } from './adapters/signing-key.cache.js';
import type { NotaryConfig } from './config.js';

/** The notary: it signs the trees the projector appends (docs/integrity.md "Who appends"). */
export async function notaryService(host: ServiceHost, config: NotaryConfig): Promise<void> {
  const pool = host.postgres({ connectionString: config.databaseUrl, max: 4 });
  await host.serveInternal(config, { postgres: () => pool.query('SELECT 1') });
  await host.step('postgres', () => checkPostgresSchema(pool));
  // The private half of the signing key is read here only (docs/integrity.md "Signing keys").
  const checkpointing = runCheckpointLoop({
    pool,
    signingKey: signingKeyCache(pool, config.integrity.keyDir),
    settings: { logName: config.integrity.logName, ...config.checkpoints },
    meter: checkpointMetrics(host.metrics),
    now: systemClock,
    stopping: host.stopping,
    logger: host.logger,
  });
  host.onStop(() => checkpointing);
  host.finish();
}
