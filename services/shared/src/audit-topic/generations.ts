/**
 * The audit topic's generations (docs/topic-growth.md): the topic is grown by a new topic with more partitions,
 * written once the one before is sealed and read by each consumer group only once the group has read the one
 * before up to its seal. Generation 1 is the topic as first created; generation n > 1 is `<base>.g<n>`.
 */
export interface Generation {
  generation: number;
  topic: string;
  partitions: number;
  /**
   * The end offset of each partition of the generation before, recorded when it was sealed: nothing can be
   * written there any more. Null while the switch is under way, and for generation 1.
   */
  previousEnds: readonly bigint[] | null;
}

export function generationTopic(base: string, generation: number): string {
  if (!Number.isInteger(generation) || generation < 1) throw new RangeError(`no generation ${generation}`);
  return generation === 1 ? base : `${base}.g${generation}`;
}

/** The generation a topic name is of, or null when it is not one of the base topic's. */
export function topicGeneration(base: string, topic: string): number | null {
  if (topic === base) return 1;
  if (!topic.startsWith(`${base}.g`)) return null;
  const rest = topic.slice(base.length + 2);
  return /^[1-9][0-9]*$/.test(rest) && Number(rest) > 1 ? Number(rest) : null;
}

/** A generation's topic as the broker has it: open unless sealed, or not yet opened. */
export interface TopicState {
  topic: string;
  generation: number;
  open: boolean;
}

/**
 * Where a producer writes: the oldest open generation. While a switch closes the old one before it opens the new
 * one, none is open: the newest, which opens next. Ordered by the seal, every record of a tenant acknowledged in
 * one generation lies before any written to the next.
 */
export function writableTopic(states: readonly TopicState[]): string {
  const byAge = [...states].sort((a, b) => a.generation - b.generation);
  const open = byAge.find((s) => s.open);
  const chosen = open ?? byAge.at(-1);
  if (!chosen) throw new Error('the audit topic has no generation');
  return chosen.topic;
}

/** A consumer group's committed offsets: topic → partition → next offset to read (absent: none committed). */
export type CommittedOffsets = ReadonlyMap<string, ReadonlyMap<number, bigint>>;

/**
 * The newest generation a consumer group may read: generation 1 always; generation n once generation n - 1 was
 * sealed and the group committed every one of its partitions up to the seal. Every partition of the older
 * generation, not only those whose tenants the partition of the newer one takes: the rule stays one line, and
 * the wait is the switch's alone.
 */
export function readableThrough(generations: readonly Generation[], committed: CommittedOffsets): number {
  const sorted = [...generations].sort((a, b) => a.generation - b.generation);
  let readable = 1;
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]!;
    const { previousEnds, generation } = sorted[i]!;
    if (previous.generation !== generation - 1 || previousEnds === null) break;
    const offsets = committed.get(previous.topic);
    const drained = previousEnds.every(
      (end, partition) => end === 0n || (offsets?.get(partition) ?? -1n) >= end,
    );
    if (!drained) break;
    readable = generation;
  }
  return readable;
}

/** Every partition count a growth may take: more partitions than the newest generation has. */
export function checkGrowth(current: number, wanted: number): string | null {
  if (!Number.isInteger(wanted) || wanted < 1)
    return `the partition count must be a positive integer, got ${wanted}`;
  if (wanted <= current) return `the audit topic has ${current} partitions; growing it takes more than that`;
  return null;
}
