import pg from 'pg';
import {
  createHttpServer,
  createLogger,
  createMetrics,
  loggableError,
  migratePostgres,
  onShutdown,
  registerErrorHandling,
  registerHealth,
  registerHttpMetrics,
  registerMetricsRoute,
  registerStartupGate,
  Startup,
  systemClock,
} from '@audit/shared';
import { runCheckpointLoop } from './adapters/checkpoint.loop.js';
import { checkpointMetrics } from './adapters/checkpoint.metrics.js';
import { signingKeyCache } from './adapters/signing-key.cache.js';
import { loadConfig } from './config.js';

const config = loadConfig(process.env);
const logger = createLogger('notary', config.logLevel);
const startup = new Startup(logger);
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 4, connectionTimeoutMillis: 5000 });
pool.on('error', (err) => logger.warn({ err: loggableError(err) }, 'idle Postgres connection failed'));

const metrics = createMetrics('notary');
let stopping = false;
let checkpointing: Promise<void> = Promise.resolve();
const app = createHttpServer(logger);
registerHttpMetrics(app, metrics);
registerErrorHandling(app);
registerStartupGate(app, startup);
registerHealth(app, { postgres: () => pool.query('SELECT 1') });
registerMetricsRoute(app, metrics);
await app.listen({ host: config.host, port: config.port });
logger.info({ host: config.host, port: config.port }, 'notary listening');

onShutdown(logger, async () => {
  stopping = true;
  startup.stop();
  await app.close();
  await checkpointing;
  await pool.end();
});

await startup.step('postgres', () => migratePostgres(config.databaseUrl));
// The trees are appended by the projector (docs/integrity.md "Who appends"); the notary signs them. The private
// half of the signing key is read here only (docs/integrity.md "Signing keys").
checkpointing = runCheckpointLoop({
  pool,
  signingKey: signingKeyCache(pool, config.integrity.keyDir),
  settings: { logName: config.integrity.logName, ...config.checkpoints },
  meter: checkpointMetrics(metrics),
  now: systemClock,
  stopping: () => stopping,
  logger,
});
startup.finish();
logger.info('notary running');
