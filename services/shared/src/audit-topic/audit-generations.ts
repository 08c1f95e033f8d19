import type { Admin } from 'kafkajs';
import type pg from 'pg';
import { sleep } from '../platform/deadline.js';
import { topicGeneration, readableThrough, type CommittedOffsets, type Generation } from './generations.js';
import { generationsRepository } from './generations.repository.js';

export interface AuditGenerationsDeps {
  db: Pick<pg.Pool, 'query'>;
  admin: Pick<Admin, 'fetchOffsets'>;
  /** The audit topic's first generation: topics.auditEvents. */
  base: { name: string; partitions: number };
}

/**
 * The audit topic's generations for a consumer (docs/topic-growth.md "Consumers"): which topics to subscribe to,
 * read again with `reload`, and a gate per consumer group that holds a generation's partitions until the group
 * has read the generation before up to its seal.
 */
export class AuditGenerations {
  private current: Generation[];

  private constructor(
    private readonly deps: AuditGenerationsDeps,
    generations: Generation[],
  ) {
    this.current = generations;
  }

  static async load(deps: AuditGenerationsDeps): Promise<AuditGenerations> {
    return new AuditGenerations(deps, await AuditGenerations.read(deps));
  }

  private static read(deps: AuditGenerationsDeps) {
    return generationsRepository.list(deps.db, deps.base.name, deps.base.partitions);
  }

  topics(): string[] {
    return this.current.map((g) => g.topic);
  }

  /** Every partition of every generation: how many a consumer may handle at once. */
  partitions(): number {
    return this.current.reduce((sum, g) => sum + g.partitions, 0);
  }

  async reload(): Promise<readonly Generation[]> {
    this.current = await AuditGenerations.read(this.deps);
    return this.current;
  }

  /**
   * The gate of a consumer group. `progress`, when given, is where else the group's work on each partition stands
   * (the live projection's trees: their positions): a partition counts as read up to the lower of the two.
   */
  gate(groupId: string, pollMs = 1000, progress?: (topics: readonly string[]) => Promise<CommittedOffsets>) {
    return new GenerationGate(this, this.deps.admin, groupId, pollMs, progress);
  }

  generationOf(topic: string): number | null {
    return topicGeneration(this.deps.base.name, topic);
  }
}

/**
 * Whether a consumer group may read a generation's partitions yet. Once open a generation stays open, so the
 * steady state costs nothing; while one is held the seal and the group's offsets are read at most once per poll.
 */
export class GenerationGate {
  private readable = 1;
  private checkedAt = 0;

  constructor(
    private readonly generations: AuditGenerations,
    private readonly admin: Pick<Admin, 'fetchOffsets'>,
    private readonly groupId: string,
    private readonly pollMs: number,
    private readonly progress?: (topics: readonly string[]) => Promise<CommittedOffsets>,
  ) {}

  async isOpen(topic: string): Promise<boolean> {
    const generation = this.generations.generationOf(topic) ?? 1;
    if (generation <= this.readable) return true;
    if (Date.now() - this.checkedAt >= this.pollMs) {
      this.checkedAt = Date.now();
      await this.check();
    }
    return generation <= this.readable;
  }

  /** Resolves once the topic's generation is open, or once `stopping` says so. */
  async whenOpen(topic: string, stopping: () => boolean): Promise<void> {
    while (!stopping() && !(await this.isOpen(topic).catch(() => false))) await sleep(this.pollMs);
  }

  private async check(): Promise<void> {
    const generations = await this.generations.reload();
    const older = generations.slice(0, -1).map((g) => g.topic);
    const fetched =
      older.length > 0 ? await this.admin.fetchOffsets({ groupId: this.groupId, topics: older }) : [];
    const committed: CommittedOffsets = new Map(
      fetched.map((t) => [t.topic, new Map(t.partitions.map((p) => [p.partition, BigInt(p.offset)]))]),
    );
    const elsewhere = this.progress && older.length > 0 ? await this.progress(older) : null;
    this.readable = Math.max(this.readable, readableThrough(generations, lowerOf(committed, elsewhere)));
  }
}

/** Each partition at the lower of the two (absent from either: not read at all). */
function lowerOf(a: CommittedOffsets, b: CommittedOffsets | null): CommittedOffsets {
  if (!b) return a;
  return new Map(
    [...a].map(([topic, offsets]) => [
      topic,
      new Map(
        [...offsets].map(([partition, offset]) => {
          const other = b.get(topic)?.get(partition) ?? -1n;
          return [partition, other < offset ? other : offset];
        }),
      ),
    ]),
  );
}
