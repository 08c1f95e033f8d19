import { userInfo } from 'node:os';
import type { Admin, Kafka } from 'kafkajs';
import pg from 'pg';
import { auditPublisher, AuditTopicRoute, type AuditPublisher } from '@audit/shared/audit-topic';
import { auditEventCodec, bootstrapKafka, systemClock, type Topics } from '@audit/shared/contract';
import { migratePostgres } from '@audit/shared/migrations';
import { DurableProducer, kafkaSettled, loggableError, type Logger } from '@audit/shared/platform';
import { CliError } from './commands/cli-error.js';
import type { DlqContext } from './commands/dlq.command.js';
import type { KeysContext } from './commands/keys.command.js';
import type { OpsConfig } from './config.js';

// Reading a topic or probing a group waits this long at most before the command fails.
export const KAFKA_READ_DEADLINE_MS = 60_000;

export const operatorOf = (config: OpsConfig) => config.operatorId ?? `operator:${userInfo().username}`;

export async function withPool<T>(config: OpsConfig, logger: Logger, run: (pool: pg.Pool) => Promise<T>) {
  await migratePostgres(config.databaseUrl);
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 2, connectionTimeoutMillis: 5000 });
  pool.on('error', (err) => logger.warn({ err: loggableError(err) }, 'idle Postgres connection failed'));
  try {
    return await run(pool);
  } finally {
    await pool.end();
  }
}

/** Kafka for a command: the client, the topic names, a producer, an admin, and the audit topic's writable generation. */
export interface KafkaContext {
  kafka: Kafka;
  topics: Topics;
  producer: DurableProducer;
  admin: Admin;
  auditTopic: AuditTopicRoute;
}

export async function withKafka<T>(
  config: OpsConfig,
  logger: Logger,
  run: (ctx: KafkaContext) => Promise<T>,
) {
  const { kafka, topics } = await bootstrapKafka(config.kafka, logger, '-ops');
  const producer = new DurableProducer(kafka);
  const admin = kafka.admin();
  try {
    await producer.connect();
    await admin.connect();
    const auditTopic = new AuditTopicRoute(admin, topics.auditEvents.name, { logger });
    await kafkaSettled(() => auditTopic.refresh());
    return await run({ kafka, topics, producer, admin, auditTopic });
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
}

/** Postgres, Kafka and the pepper: what a key change needs (and only a key change). */
/** Postgres and an audit publisher: what an operator's change that writes its audit event needs. */
export interface AuditedContext {
  pool: pg.Pool;
  publisher: Pick<AuditPublisher, 'publish'>;
  operator: { id: string };
}

export async function withAuditedContext<T>(
  config: OpsConfig,
  logger: Logger,
  run: (ctx: AuditedContext) => Promise<T>,
) {
  return withPool(config, logger, (pool) =>
    withKafka(config, logger, ({ producer, auditTopic }) => {
      const publisher = auditPublisher({
        producer,
        topic: auditTopic,
        codec: auditEventCodec(),
        clock: systemClock,
      });
      return run({ pool, publisher, operator: { id: operatorOf(config) } });
    }),
  );
}

export async function withKeysContext<T>(
  config: OpsConfig,
  logger: Logger,
  run: (ctx: KeysContext) => Promise<T>,
) {
  const pepper = config.apiKeyPepper;
  if (!pepper) {
    throw new CliError(
      'API_KEY_PEPPER is required for key changes (in a checkout, `npm start` creates one)',
      2,
    );
  }
  return withAuditedContext(config, logger, (ctx) => run({ ...ctx, pepper, env: config.apiKeyEnv }));
}

/** Postgres, Kafka (with a producer) and the codec: what the dead-letter and replay commands need. */
export async function withOperationsContext<T>(
  config: OpsConfig,
  logger: Logger,
  progress: DlqContext['progress'],
  run: (ctx: DlqContext) => Promise<T>,
) {
  return withPool(config, logger, (pool) =>
    withKafka(config, logger, ({ kafka, topics, producer, auditTopic }) =>
      run({
        kafka,
        topics,
        auditTopic,
        pool,
        producer,
        codec: auditEventCodec(config.schemasDir),
        operator: operatorOf(config),
        now: systemClock,
        deadlineMs: KAFKA_READ_DEADLINE_MS,
        progress,
      }),
    ),
  );
}
