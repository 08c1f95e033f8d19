import { AuditGenerations, watchGrowth } from '@audit/shared/audit-topic';
import { auditEventCodec, systemClock } from '@audit/shared/contract';
import { type ServiceHost } from '@audit/shared/host';
import { checkPostgresSchema, migrateClickHouse } from '@audit/shared/migrations';
import {
  clickhouseReady,
  clusterGuard,
  consumerLagSource,
  loggableError,
  registerConsumerLag,
  RestartableConsumer,
  sleep,
} from '@audit/shared/platform';
import { projectionStateStore, projectionTables, replayGroupId } from '@audit/shared/projection';
import { HORIZON_REFRESH_MS, purgeRepository, retentionFilter } from '@audit/shared/retention';
import { clickhouseSink } from './adapters/clickhouse.sink.js';
import { deadLetterPublisher } from './adapters/dead-letter.publisher.js';
import { ProjectionGate } from './adapters/projection-gate.js';
import { projectionWatcher } from './adapters/projection-watcher.js';
import { startPipeline, type Pipeline } from './adapters/projection.pipeline.js';
import { projectorMetrics } from './adapters/projector.metrics.js';
import { replayRunner } from './adapters/replay-runner.js';
import { positionsOf } from './adapters/tree-positions.repository.js';
import type { ProjectorConfig } from './config.js';
import { treeAppenderOf } from './adapters/tree-appender.begin.js';

// How often the projection's state is read when idle, and how long after a replay's missed deadline projectors
// go back to the live generation alone (ops replay projection): long enough for clocks of different hosts to
// disagree, since the command stops trying 5 s before the deadline by its own clock.
const STATE_POLL_MS = 250;
const REPLAY_GRACE_MS = 60_000;

/** The projector: it writes the audit topic into ClickHouse, and the tenants' trees into Postgres. */
export async function projectorService(host: ServiceHost, config: ProjectorConfig): Promise<void> {
  const { logger } = host;
  const { kafka, topics: topicSet, producer, admin, connect } = host.kafka(config.kafka);
  const clickhouse = host.clickhouse(config.clickhouse);
  // The trees, and the audit topic's generations.
  const pool = host.postgres({ connectionString: config.databaseUrl, max: 10 });
  await host.serveInternal(config, {
    clickhouse: () => clickhouseReady(clickhouse),
    kafka: () => admin.describeCluster(),
    postgres: () => pool.query('SELECT 1'),
  });

  await connect();
  await host.step('clickhouse', () => migrateClickHouse(config.clickhouse));
  await host.step('postgres', () => checkPostgresSchema(pool));
  const generations = await host.step('postgres', () =>
    AuditGenerations.load({ db: pool, admin, base: topicSet.auditEvents }),
  );
  const trees = config.trees
    ? await treeAppenderOf(host, { pool, admin, generations, groupId: config.groupId, ...config.trees })
    : undefined;

  const { database, cluster } = config.clickhouse;
  const guard = await host.step('clickhouse', () => clusterGuard(clickhouse, cluster));
  // The events table's inserts without keep-alive: an insert on a connection a stopping server still serves may
  // skip views and yet succeed (clickhouseSink).
  const inserts = host.clickhouse(config.clickhouse, undefined, { keepAlive: false });
  const sink = clickhouseSink(clickhouse, database, 'live', guard, inserts);
  const replaySink = clickhouseSink(clickhouse, database, 'replay', guard, inserts);
  const store = projectionStateStore(clickhouse);
  const gate = new ProjectionGate({
    store,
    clock: systemClock,
    graceMs: REPLAY_GRACE_MS,
    pollMs: STATE_POLL_MS,
    shouldStop: host.stopping,
  });
  const common = {
    kafka,
    settings: config,
    codec: auditEventCodec(config.schemasDir),
    retention: retentionFilter(purgeRepository(pool), HORIZON_REFRESH_MS, systemClock),
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
  const meter = projectorMetrics(host.metrics);
  // The generations the live pipeline reads: a growth starts it again with the new one.
  let liveTopics: readonly string[] = [];
  const live: RestartableConsumer<Pipeline> = new RestartableConsumer(
    () => {
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
          logger.error(
            { err: loggableError(err) },
            'the live consumer was stopped for good; starting it again',
          );
          void live.restart();
        },
        logger,
      });
    },
    { what: 'the live pipeline', logger, stopping: host.stopping, fatal: host.fatal },
  );
  // Stopped once started, also when a signal comes while its consumer joins (its group would wait otherwise).
  host.onStop(() => live.stop());
  await live.begin();
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
  host.onStop(() => replay.stop());
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
    while (!host.stopping()) {
      await watch();
      await sleep(STATE_POLL_MS);
    }
  })();
  host.onStop(() => watching);

  // A growth of the audit topic: the live pipeline is started again with its new generation.
  const growth = watchGrowth(generations, {
    logger,
    subscribed: () => liveTopics,
    onGrown: (stopped) => live.restart(stopped),
  });
  host.onStop(() => growth.stop());

  registerConsumerLag(
    host.metrics,
    consumerLagSource(admin, () => [{ groupId: config.groupId, topics: generations.topics() }], logger),
  );
  host.finish({ topics: generations.topics() });
}
