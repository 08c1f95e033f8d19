import kafkajs, { type Admin } from 'kafkajs';
import { topicGeneration, type TopicState } from './generations.js';

// A topic whose max.message.bytes is 0 refuses every write, whatever the producer's acks: the seal is the
// broker's, so no producer that missed the switch can append behind it.
const SIZE_LIMIT = 'max.message.bytes';
// Not named exports Node can see in kafkajs' CommonJS module.
const { ConfigResourceTypes, ConfigSource } = kafkajs;
const SEALED = '0';

type ConfigAdmin = Pick<Admin, 'listTopics' | 'describeConfigs' | 'alterConfigs'>;

/** Every generation of the base topic the broker has, oldest first, and whether each takes writes. */
export async function generationTopicStates(
  admin: Pick<Admin, 'listTopics' | 'describeConfigs'>,
  base: string,
): Promise<TopicState[]> {
  const topics = (await admin.listTopics())
    .map((topic) => ({ topic, generation: topicGeneration(base, topic) }))
    .filter((t): t is { topic: string; generation: number } => t.generation !== null)
    .sort((a, b) => a.generation - b.generation);
  if (topics.length === 0) return [];
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: topics.map((t) => ({
      type: ConfigResourceTypes.TOPIC,
      name: t.topic,
      configNames: [SIZE_LIMIT],
    })),
  });
  const limits = new Map(
    resources.map((r) => [
      r.resourceName,
      r.configEntries.find((e) => e.configName === SIZE_LIMIT)?.configValue,
    ]),
  );
  return topics.map((t) => ({ ...t, open: limits.get(t.topic) !== SEALED }));
}

/** The entries set on the topic itself (not the broker's defaults), by name. */
export async function ownTopicConfig(
  admin: Pick<Admin, 'describeConfigs'>,
  topic: string,
): Promise<Record<string, string>> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
  });
  return Object.fromEntries(
    (resources[0]?.configEntries ?? [])
      .filter((e) => e.configSource === ConfigSource.TOPIC_CONFIG)
      .map((e) => [e.configName, e.configValue]),
  );
}

/**
 * Sets entries of a topic's configuration (null: back to the broker's default). AlterConfigs replaces the topic's
 * whole configuration, so every other entry set on the topic (its retention, its seal, an operator's change) is
 * written back.
 */
export async function setTopicConfig(
  admin: ConfigAdmin,
  topic: string,
  changes: Readonly<Record<string, string | null>>,
) {
  const merged: Record<string, string | null> = { ...(await ownTopicConfig(admin, topic)), ...changes };
  await admin.alterConfigs({
    validateOnly: false,
    resources: [
      {
        type: ConfigResourceTypes.TOPIC,
        name: topic,
        configEntries: Object.entries(merged)
          .filter((e): e is [string, string] => e[1] !== null)
          .map(([name, value]) => ({ name, value })),
      },
    ],
  });
}

/** A topic's retention in milliseconds, its own or the broker's default; null: for ever. */
export async function topicRetentionMs(admin: Pick<Admin, 'describeConfigs'>, topic: string) {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms'] }],
  });
  const ms = Number(
    resources[0]?.configEntries.find((e) => e.configName === 'retention.ms')?.configValue ?? -1,
  );
  return ms < 0 ? null : ms;
}

/** Seals a topic (`maxMessageBytes` null) or opens it with that limit. */
export const setTopicLimit = (admin: ConfigAdmin, topic: string, maxMessageBytes: string | null) =>
  setTopicConfig(admin, topic, { [SIZE_LIMIT]: maxMessageBytes ?? SEALED });

/** The config a generation is created with: the base topic's, sealed until the switch opens it. */
export const sealedConfig = (config: Record<string, string>) => ({ ...config, [SIZE_LIMIT]: SEALED });

/** Whether a failed send was refused by a sealed topic (or any other size refusal: the caller asks the broker). */
export function refusedBySize(err: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [err];
  while (pending.length > 0) {
    const e = pending.pop();
    if (!(e instanceof Error) || seen.has(e)) continue;
    seen.add(e);
    if ((e as { type?: unknown }).type === 'MESSAGE_TOO_LARGE') return true;
    pending.push(e.cause, ...((e as { errors?: unknown[] }).errors ?? []));
  }
  return false;
}
