import pg from 'pg';
import {
  AuditGenerations,
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
  retryWithBackoff,
  systemClock,
  registerStartupGate,
  watchGrowth,
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
import { positionsOf, treePositions } from './adapters/tree-positions.repository.js';
import { treeAppender } from './adapters/tree.appender.js';
import { loadConfig } from './config.js';

// How often the projection's state is read when idle, and how long after a replay's missed deadline projectors
// go back to the live generation alone (ops replay projection): long enough for clocks of different hosts to
// disagree, since the command stops trying 5 s before the deadline by its own clock.
const STATE_POLL_MS = 250;
const REPLAY_GRACE_MS = 60_000;
// How often the audit topic's generations are read for a growth (docs/topic-growth.md "Consumers").
const GROWTH_POLL_MS = 5000;

const config = loadConfig(process.env);
const logger = createLogger('projector', config.logLevel);
const startup = new Startup(logger);
const { kafka, topics: topicSet, ensureTopics } = kafkaDeployment(config.kafka, logger, '-projector');
const clickhouse = createClickHouse(config.clickhouse);
const producer = new DurableProducer(kafka);
const admin = kafka.admin();
// The trees, and the audit topic's generations.
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10, connectionTimeoutMillis: 5000 });
pool.on('error', (err) => logger.warn({ err: loggableError(err) }, 'idle Postgres connection failed'));

const metrics = createMetrics('projector');
let stopping = false;
const app = createHttpServer(logger);
registerHttpMetrics(app, metrics);
registerErrorHandling(app);
registerStartupGate(app, startup);
registerHealth(app, {
  clickhouse: () => clickhouseReady(clickhouse),
  kafka: () => admin.describeCluster(),
  postgres: () => pool.query('SELECT 1'),
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
  await pool.end();
});

await startup.step('kafka', ensureTopics);
await startup.step('clickhouse', () => migrateClickHouse(config.clickhouse));
await startup.step('kafka', () => producer.connect());
await startup.step('kafka', () => admin.connect());
await startup.step('postgres', () => migratePostgres(config.databaseUrl));
const generations = await startup.step('postgres', () =>
  AuditGenerations.load({ db: pool, admin, base: topicSet.auditEvents }),
);
const trees = config.trees ? await treeAppenderOf(config.trees.notaryGroupId) : undefined;

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
  settings: config,
  codec,
  sink,
  oneWriteAtATime: cluster !== undefined,
};
// Every generation of the audit topic, in the pipeline a group reads them with (docs/topic-growth.md). The live
// projection's trees must have a generation to its end as well before the next is read: they may stand behind the
// group's commits (turned on again, positions moved back), and are then read again from their positions.
const generationsOf = (groupId: string, withTrees = false) => ({
  groupId,
  topics: generations.topics(),
  partitions: generations.partitions(),
  gate: generations.gate(groupId, undefined, withTrees ? (topics) => positionsOf(pool, topics) : undefined),
});
let member: string | null = null;
const deadLetters = deadLetterPublisher(producer, topicSet.projectorDeadLetter.name, systemClock);
const meter = projectorMetrics(metrics);
// The generations the live pipeline reads: a growth starts it again with the new one.
let liveTopics: readonly string[] = [];
const startLive = () => {
  const read = generationsOf(config.groupId, trees !== undefined);
  liveTopics = read.topics;
  return startPipeline({
    ...common,
    ...read,
    deadLetters,
    meter,
    target: (write, lost) => gate.write(write, lost),
    trees,
    onJoin: (id) => (member = id),
    onGivenUp: (err) => {
      logger.error({ err: loggableError(err) }, 'the live consumer was stopped for good; starting it again');
      void restartLive(() => false);
    },
    logger,
  });
};
/** Stops the live pipeline and starts it again (a growth, a consumer kafkajs gave up on); `stopped` ends it. */
async function restartLive(stopped: () => boolean) {
  try {
    await (await live).stop();
    if (stopped()) return;
    live = retryWithBackoff(startLive, {
      firstDelayMs: 500,
      maxDelayMs: 5000,
      stopping: () => stopping || stopped(),
    });
    await live;
  } catch (err) {
    if (stopping || stopped()) return;
    // Left without a live pipeline in a state nothing here can tell: a new process starts clean.
    logger.fatal({ err: loggableError(err) }, 'the live pipeline did not start again; stopping');
    process.exit(1);
  }
}
// Stopped once started, also when a signal comes while its consumer joins (its group would wait otherwise).
let live = startLive();
// One a growth stopped stops again at once; one that did not start again has nothing to stop.
stops.push(() =>
  live.then(
    (pipeline) => pipeline.stop(),
    () => undefined,
  ),
);
await live;
// A replay writes the generation it builds; what it cannot decode was dead-lettered when first read.
const replay = replayRunner(
  (target) =>
    startPipeline({
      ...common,
      ...generationsOf(replayGroupId(config.groupId, target)),
      sink: replaySink,
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

// A growth of the audit topic: the live pipeline is started again with its new generation.
const growth = watchGrowth(generations, {
  pollMs: GROWTH_POLL_MS,
  logger,
  subscribed: () => liveTopics,
  onGrown: restartLive,
});
stops.push(() => growth.stop());

registerConsumerLag(
  metrics,
  consumerLagSource(admin, () => [{ groupId: config.groupId, topics: generations.topics() }], logger),
);
startup.finish();
logger.info({ topics: generations.topics() }, 'projector running');

/**
 * The trees' appender. Each generation of the audit topic is begun at start, and one grown later when its first
 * batch comes: its partition count recorded, or checked against the one recorded, and its partitions given their
 * first positions.
 * A count that is not the recorded one, or a topic whose records a tree still needs are gone, stops the process,
 * since no retry makes it right and an operator must (docs/operations.md "Integrity").
 */
async function treeAppenderOf(notaryGroupId: string) {
  const giveUp = (err: Error): never => {
    logger.fatal({ err: loggableError(err) }, 'the trees cannot go on; stopping');
    process.exit(1);
  };
  const begin = async (topic: string) => {
    if (generations.generationOf(topic) === null) return undefined;
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    const partitions = await guardPartitionCount(pool, topic, metadata.topics[0]!.partitions.length).catch(
      (err: unknown) => {
        // Another count is for an operator; anything else (Postgres not answering) is retried.
        throw err instanceof PartitionCountChangedError ? giveUp(err) : err;
      },
    );
    await beginTreePositions(admin, treePositions(pool, topic), topic, partitions, notaryGroupId);
    return partitions;
  };
  // The generations known at start are begun before anything is read: a changed count stops the process now.
  for (const topic of generations.topics()) await startup.step('postgres', () => begin(topic));
  return treeAppender({
    pool,
    admin,
    begin,
    groupId: config.groupId,
    meter: treeMetrics(metrics),
    fatal: giveUp,
    stopping: () => stopping,
    logger,
  });
}
