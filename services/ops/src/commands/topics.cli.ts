import { generationsRepository, generationTopicStates } from '@audit/shared/audit-topic';
import { createClickHouse, inTransaction, kafkaSettled, lockTable } from '@audit/shared/platform';
import { projectionStateStore } from '@audit/shared/projection';
import { onlyOptions, type CliContext, type CliValues } from '../cli-values.js';
import type pg from 'pg';
import { KAFKA_READ_DEADLINE_MS, withKafka, withPool, type KafkaContext } from '../contexts.js';
import { parseTopicRetention } from '../domain/topic-retention-request.js';
import { HELP } from '../help.js';
import { formatTable } from '../output.js';
import { CliError } from './cli-error.js';
import { growAuditTopic } from './topics-grow.command.js';
import { topicRetention } from './topics-retention.command.js';

const OPTIONS_OF = { list: [], grow: ['partitions'], retention: ['days', 'forever'] } as const;

/**
 * Runs a change of the audit topic's configuration under the one lock `topics grow` and `topics retention` take:
 * each writes every setting of a topic back, and would undo the other's.
 */
function underTopicLock<T>(
  { config, logger }: Pick<CliContext, 'config' | 'logger'>,
  change: (pool: pg.Pool, kafka: KafkaContext) => Promise<T>,
): Promise<T> {
  return withPool(config, logger, (pool) =>
    withKafka(config, logger, (kafka) =>
      inTransaction(pool, async (db) => {
        await lockTable(db, 'auditTopicConfig');
        return change(pool, kafka);
      }),
    ),
  );
}

export async function topicsCli(
  sub: string | undefined,
  values: CliValues,
  { config, logger, print, note }: CliContext,
) {
  if (sub !== 'list' && sub !== 'grow' && sub !== 'retention')
    throw new CliError(`unknown topics command: ${sub ?? '(none)'}\n\n${HELP.topics}`, 2);
  const stray = onlyOptions(values, `topics ${sub}`, OPTIONS_OF[sub]);
  if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
  if (sub === 'retention') {
    const parsed = parseTopicRetention(values);
    if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
    const r = await underTopicLock({ config, logger }, (_pool, { kafka, admin, topics }) =>
      topicRetention(
        { kafka, admin, topics, now: Date.now, readDeadlineMs: KAFKA_READ_DEADLINE_MS },
        parsed.request.days,
      ),
    );
    print(
      r,
      formatTable(
        ['topic', 'retention', 'set by'],
        r.topics.map((t) => [
          t.topic,
          t.retention_days === null ? 'for ever' : `${t.retention_days} days`,
          t.set_here ? 'ops topics retention' : 'the service',
        ]),
      ),
    );
    return;
  }
  if (sub === 'grow') {
    const partitions = Number(values.partitions);
    if (values.partitions === undefined || !/^[0-9]+$/.test(values.partitions))
      throw new CliError('topics grow takes --partitions N, a whole number', 2);
    // A replay reads the generations it found at its start: none may be added under it.
    const clickhouse = createClickHouse(config.clickhouse);
    const state = await projectionStateStore(clickhouse)
      .read()
      .finally(() => clickhouse.close());
    if (state.phase !== 'live')
      throw new CliError(
        `a replay of the projection into generation ${state.target} is in progress (${state.phase}): grow the ` +
          'topic once it has ended',
      );
    const r = await underTopicLock({ config, logger }, (pool, { kafka, admin, topics }) =>
      growAuditTopic(
        { kafka, admin, pool, topics, replicationFactor: config.kafka.replicationFactor, note },
        partitions,
      ),
    );
    print(
      r,
      `${r.resumed ? 'finished' : 'grew'} the audit topic: generation ${r.generation} is ${r.topic} with ${r.partitions} partitions; ` +
        `${r.previous.topic} (${r.previous.partitions} partitions) sealed at ${r.previous.ends.join(',')} (${r.duration_ms} ms)`,
    );
    return;
  }
  const rows = await withPool(config, logger, (pool) =>
    withKafka(config, logger, async ({ admin, topics }) => {
      const base = topics.auditEvents;
      const [generations, states] = await Promise.all([
        generationsRepository.list(pool, base.name, base.partitions),
        kafkaSettled(() => generationTopicStates(admin, base.name)),
      ]);
      const metadata = await kafkaSettled(() =>
        admin.fetchTopicMetadata({ topics: generations.map((g) => g.topic) }),
      );
      return generations.map((g, i) => ({
        generation: g.generation,
        topic: g.topic,
        partitions: metadata.topics.find((t) => t.name === g.topic)?.partitions.length ?? g.partitions,
        writes: states.find((s) => s.topic === g.topic)?.open ? 'open' : 'sealed',
        // The seal of this generation is recorded with the next one.
        ends: generations[i + 1]?.previousEnds?.map(String) ?? null,
      }));
    }),
  );
  print(
    { generations: rows },
    formatTable(
      ['generation', 'topic', 'partitions', 'writes', 'sealed at'],
      rows.map((r) => [r.generation, r.topic, r.partitions, r.writes, r.ends?.join(',') ?? null]),
    ),
  );
}
