import { AuditGenerations } from '@audit/shared/audit-topic';
import { systemClock } from '@audit/shared/contract';
import { exportFiles, exportJobsRepository } from '@audit/shared/export-jobs';
import { type ServiceHost } from '@audit/shared/host';
import { checkPostgresSchema } from '@audit/shared/migrations';
import { clickhouseReady, loggableError, RestartableConsumer } from '@audit/shared/platform';
import { liveTables, projectionStateStore } from '@audit/shared/projection';
import { expireDue } from './adapters/expiry.sweeper.js';
import { startJobConsumer, type JobConsumer } from './adapters/job.consumer.js';
import { runClaimed } from './adapters/job.runner.js';
import { jobScheduler } from './adapters/job.scheduler.js';
import { readTurns } from './domain/read-turns.js';
import type { ExporterConfig } from './config.js';

/** The exporter: it runs export jobs (docs/exports.md "Jobs"). */
export async function exporterService(host: ServiceHost, config: ExporterConfig): Promise<void> {
  const { logger } = host;
  const { kafka, topics, admin, connect, auditLog } = host.kafka(config.kafka);
  const pool = host.postgres({ connectionString: config.databaseUrl, max: 10 });
  // Reads of whole chunks take longer than a page's: a chunk's sort is bounded, its transfer is not.
  const clickhouse = host.clickhouse(config.clickhouse, 300_000);
  const files = exportFiles(config.storage);
  let sweeping: Promise<unknown> = Promise.resolve();
  host.onStop(() => sweeping);
  await host.serveInternal(config, {
    postgres: () => pool.query('SELECT 1'),
    clickhouse: () => clickhouseReady(clickhouse),
    kafka: () => admin.describeCluster(),
    // The directory or bucket, made when missing (as `ops migrate` does): a job never starts into a store it cannot
    // use.
    export_files: () => files.prepare(),
    // Asked once the start-up has finished (registerStartupGate), when the job consumer exists.
    consumers: async () => {
      if (!jobs.get()?.joined()) throw new Error('consumer group not joined yet');
    },
  });

  await host.step('postgres', () => checkPostgresSchema(pool));
  await connect();
  const generations = await host.step('postgres', () =>
    AuditGenerations.load({ db: pool, admin, base: topics.auditEvents }),
  );
  const runner = {
    pool,
    clickhouse,
    // The exporter reads the events table only, never the filter index: a chunk reads a time range whole.
    tables: liveTables(projectionStateStore(clickhouse), { ready: async () => false }),
    files,
    admin,
    auditTopics: async () => (await generations.reload()).map((g) => g.topic),
    projectorGroup: config.projectorGroupId,
    audit: auditLog({ maxQueuedBytes: 4 * 1024 * 1024, maxWaitMs: 5000 }),
    turns: readTurns(config.reads),
    clock: systemClock,
    settings: config.jobs,
    logger,
  };
  const scheduler = jobScheduler({
    slots: config.concurrency,
    pollMs: config.pollMs,
    claim: () =>
      exportJobsRepository.claim(pool, {
        now: systemClock(),
        leaseMs: config.jobs.leaseMs,
        maxAttempts: config.jobs.maxAttempts,
        perTenant: config.runningPerTenant,
      }),
    run: (claim, signal) => runClaimed(runner, claim, signal),
    logger,
  });
  // The attempts under way let go of their jobs: the next exporter takes them up at once.
  host.onStop(() => scheduler.stop());
  const jobs: RestartableConsumer<JobConsumer> = new RestartableConsumer(
    () =>
      startJobConsumer({
        kafka,
        consumer: {
          groupId: config.groupId,
          sessionTimeout: config.sessionTimeoutMs,
          heartbeatInterval: 3000,
        },
        topic: topics.exportJobs.name,
        wake: scheduler.wake,
        onGivenUp: (err) => {
          logger.error(
            { err: loggableError(err) },
            'the job consumer was stopped for good; starting it again',
          );
          void jobs.restart();
        },
        stopping: host.stopping,
      }),
    { what: 'the job consumer', logger, stopping: host.stopping, fatal: host.fatal },
  );
  host.onStop(() => jobs.stop());
  await jobs.begin((start) => host.step('kafka', start));
  scheduler.wake();
  // One pass at a time: a pass still running when the next is due is not joined by another.
  const sweeper = setInterval(() => {
    sweeping = sweeping.then(() =>
      expireDue({ pool, files, clock: systemClock, logger }).catch((err: unknown) =>
        logger.warn({ err: loggableError(err) }, 'export expiry pass failed'),
      ),
    );
  }, config.expirySweepMs);
  host.onStop(() => clearInterval(sweeper));
  host.finish({ topic: topics.exportJobs.name, export_files: files.describe() });
}
