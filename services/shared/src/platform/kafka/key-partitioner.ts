import { Partitioners, type ICustomPartitioner } from 'kafkajs';
import { CappedMap } from '../capped-map.js';

// Enough for every tenant a producer sees at once; past it the tenants seen longest ago are forgotten.
const MAX_KEYS = 10_000;

/**
 * kafkajs's default partitioner (murmur2 on the key, as Java clients do: one tenant maps to the same partition from
 * any producer), remembering each string key's partition per topic. A batch carries one tenant's key on every
 * record, and hashing it afresh for each cost ingest about 8 % of its CPU (docs/benchmarks/journal.md,
 * bench:ingest).
 * A keyed record's partition depends only on its key and the topic's partition count, so a changed count starts
 * the topic's memory over.
 */
export const keyPartitioner: ICustomPartitioner = () => {
  const partition = Partitioners.DefaultPartitioner();
  const topics = new Map<string, { count: number; byKey: CappedMap<string, number> }>();
  return (args) => {
    const { topic, partitionMetadata, message } = args;
    if (typeof message.key !== 'string' || (message.partition !== undefined && message.partition !== null)) {
      return partition(args);
    }
    let known = topics.get(topic);
    if (!known || known.count !== partitionMetadata.length) {
      known = { count: partitionMetadata.length, byKey: new CappedMap(MAX_KEYS) };
      topics.set(topic, known);
    }
    let p = known.byKey.get(message.key);
    if (p === undefined) {
      p = partition(args);
      known.byKey.set(message.key, p);
    }
    return p;
  };
};
