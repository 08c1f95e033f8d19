import pg from 'pg';
import {
  auditEventCodec,
  createHttpServer,
  clickhouseReady,
  consumerLagSource,
  clusterGuard,
  createClickHouse,
  createMetrics,
  DurableProducer,
  kafkaDeployment,
  createLogger,
  loggableError,
  migrateClickHouse,
  migratePostgres,
  onShutdown,
  projectionStateStore,
  projectionTables,
  registerConsumerLag,
  registerErrorHandling,
  registerHealth,
  registerHttpMetrics,
  registerMetricsRoute,
  replayGroupId,
  sleep,
  systemClock,
  registerStartupGate,
  Startup,
} from '@audit/shared';
import { clickhouseSink } from './adapters/clickhouse.sink.js';
import { deadLetterPublisher } from './adapters/dead-letter.publisher.js';
import { ProjectionGate } from './adapters/projection-gate.js';
import { projectionWatcher } from './adapters/projection-watcher.js';
import { startPipeline } from './adapters/projection.pipeline.js';
import { guardPartitionCount, PartitionCountChangedError } from './adapters/partition-guard.js';
import { projectorMetrics, treeMetrics } from './adapters/projector.metrics.js';
import { replayRunner } from './adapters/replay-runner.js';
import { beginTreePositions } from './adapters/tree-positions.begin.js';
import { treePositions } from './adapters/tree-positions.repository.js';
import { treeAppender } from './adapters/tree.appender.js';
import { loadConfig } from './config.js';

// How often the projection's state is read when idle, and how long after a replay's missed deadline projectors
// go back to the live generation alone (ops replay projection): long enough for clocks of different hosts to
// disagree, since the command stops trying 5 s before the deadline by its own clock.
const STATE_POLL_MS = 250;
const REPLAY_GRACE_MS = 60_000;

const config = loadConfig(process.env);
const logger = createLogger('projector', config.logLevel);
const startup = new Startup(logger);
const { kafka, topics: topicSet, ensureTopics } = kafkaDeployment(config.kafka, logger, '-projector');
const clickhouse = createClickHouse(config.clickhouse);
const producer = new DurableProducer(kafka);
const admin = kafka.admin();
const pool = config.trees
  ? new pg.Pool({ connectionString: config.trees.databaseUrl, max: 10, connectionTimeoutMillis: 5000 })
  : null;
pool?.on('error', (err) => logger.warn({ err: loggableError(err) }, 'idle Postgres connection failed'));

const metrics = createMetrics('projector');
let stopping = false;
const app = createHttpServer(logger);
registerHttpMetrics(app, metrics);
registerErrorHandling(app);
registerStartupGate(app, startup);
registerHealth(app, {
  clickhouse: () => clickhouseReady(clickhouse),
  kafka: () => admin.describeCluster(),
  ...(pool && { postgres: () => pool.query('SELECT 1') }),
});
// The internal health listener: unauthenticated like the health endpoints.
registerMetricsRoute(app, metrics);
// Listening before Kafka and ClickHouse answer: /healthz says alive, /readyz what it waits for.
await app.listen({ host: config.host, port: config.port });
logger.info({ host: config.host, port: config.port }, 'projector listening');

// What has started by the time a signal comes, stopped in reverse: installed before anything waits, so a signal
// during the start-up also stops the process cleanly.
const stops: (() => Promise<unknown>)[] = [];
onShutdown(logger, async () => {
  stopping = true;
  startup.stop();
  for (const stop of stops.reverse()) await stop();
  await app.close();
  await producer.disconnect();
  await admin.disconnect();
  await clickhouse.close();
  await pool?.end();
});

await startup.step('kafka', ensureTopics);
await startup.step('clickhouse', () => migrateClickHouse(config.clickhouse));
await startup.step('kafka', () => producer.connect());
await startup.step('kafka', () => admin.connect());
const trees = pool && (await startTrees(pool));

const { database, cluster } = config.clickhouse;
const guard = await startup.step('clickhouse', () => clusterGuard(clickhouse, cluster));
const sink = clickhouseSink(clickhouse, database, 'live', guard);
const replaySink = clickhouseSink(clickhouse, database, 'replay', guard);
const store = projectionStateStore(clickhouse);
const gate = new ProjectionGate({
  store,
  clock: systemClock,
  graceMs: REPLAY_GRACE_MS,
  pollMs: STATE_POLL_MS,
  shouldStop: () => stopping,
});
const codec = auditEventCodec(config.schemasDir);
const common = {
  kafka,
  topic: topicSet.auditEvents.name,
  partitions: topicSet.auditEvents.partitions,
  settings: config,
  codec,
  sink,
  oneWriteAtATime: cluster !== undefined,
};
let member: string | null = null;
// Stopped once started, also when a signal comes while its consumer joins (its group would wait otherwise).
const live = startPipeline({
  ...common,
  groupId: config.groupId,
  deadLetters: deadLetterPublisher(producer, topicSet.projectorDeadLetter.name, systemClock),
  meter: projectorMetrics(metrics),
  target: (write, lost) => gate.write(write, lost),
  trees: trees ?? undefined,
  onJoin: (id) => (member = id),
  logger,
});
stops.push(() => live.then((pipeline) => pipeline.stop()));
await live;
// A replay writes the generation it builds; what it cannot decode was dead-lettered when first read.
const replay = replayRunner(
  (target) =>
    startPipeline({
      ...common,
      sink: replaySink,
      groupId: replayGroupId(config.groupId, target),
      deadLetters: { publish: async () => undefined },
      meter: { flushed: () => undefined },
      target: (write) => write(projectionTables(target)),
      logger: logger.child({ replay_target: target }),
    }),
  replaySink,
  logger,
);
stops.push(() => replay.stop());
const watch = projectionWatcher({
  store,
  gate,
  runner: replay,
  member: () => member,
  clock: systemClock,
  graceMs: REPLAY_GRACE_MS,
  logger,
});
const watching = (async () => {
  while (!stopping) {
    await watch();
    await sleep(STATE_POLL_MS);
  }
})();
stops.push(() => watching);

registerConsumerLag(
  metrics,
  consumerLagSource(admin, [{ groupId: config.groupId, topics: [topicSet.auditEvents.name] }], logger),
);
startup.finish();
logger.info({ topic: topicSet.auditEvents.name }, 'projector running');

/**
 * The trees' appender, once Postgres is migrated and the topic checked: a topic whose partition count is not the
 * one its trees were begun over, or whose records a tree still needs are gone, stops the process, since no retry
 * makes it right and an operator must (docs/operations.md "Integrity").
 */
async function startTrees(db: pg.Pool) {
  const topic = topicSet.auditEvents.name;
  const giveUp = (err: Error): never => {
    logger.fatal({ err: loggableError(err) }, 'the trees cannot go on; stopping');
    process.exit(1);
  };
  await startup.step('postgres', () => migratePostgres(config.trees!.databaseUrl));
  const metadata = await startup.step('kafka', () => admin.fetchTopicMetadata({ topics: [topic] }));
  const partitions = await startup.step('postgres', () =>
    guardPartitionCount(db, topic, metadata.topics[0]!.partitions.length).catch((err: unknown) => {
      // Another count is for an operator; anything else (Postgres not answering yet) is retried by the step.
      throw err instanceof PartitionCountChangedError ? giveUp(err) : err;
    }),
  );
  await startup.step('postgres', () =>
    beginTreePositions(admin, treePositions(db, topic), topic, partitions, config.trees!.notaryGroupId),
  );
  return treeAppender({
    pool: db,
    admin,
    topic,
    groupId: config.groupId,
    partitions,
    meter: treeMetrics(metrics),
    fatal: giveUp,
    stopping: () => stopping,
    logger,
  });
}
