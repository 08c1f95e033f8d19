import type { Admin } from 'kafkajs';
import { sleep } from '@audit/shared/platform';

/** The audit topic's partitions whose records the projector has not all stored yet, of those given as ends. */
export function behind(
  ends: readonly { partition: number; high: string; low: string }[],
  committed: readonly { partition: number; offset: string }[],
): number[] {
  return ends
    .filter((end) => {
      if (Number(end.high) <= Number(end.low)) return false;
      const at = committed.find((c) => c.partition === end.partition)?.offset;
      return at === undefined || Number(at) < Number(end.high);
    })
    .map((end) => end.partition);
}

export class ProjectionLagError extends Error {
  override name = 'ProjectionLagError';
}

/**
 * Waits until the projector's group has committed every record the audit topic holds now, in each of its
 * generations (docs/exports.md "Window"): every event acknowledged before a job was accepted is then in ClickHouse.
 * The projector commits only after ClickHouse stored a batch. Gives up after `timeoutMs` with a ProjectionLagError,
 * or with `signal`'s reason once it is aborted.
 */
export async function waitForProjection(
  admin: Pick<Admin, 'fetchTopicOffsets' | 'fetchOffsets'>,
  topics: readonly string[],
  projectorGroup: string,
  timeoutMs: number,
  signal?: AbortSignal,
  pollMs = 250,
): Promise<void> {
  const ends = await Promise.all(
    topics.map(async (topic) => ({ topic, ends: await admin.fetchTopicOffsets(topic) })),
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    const committed = await admin.fetchOffsets({ groupId: projectorGroup, topics: [...topics] });
    const pending = ends.flatMap(({ topic, ends: topicEnds }) =>
      behind(topicEnds, committed.find((c) => c.topic === topic)?.partitions ?? []).map(
        (p) => `${topic}:${p}`,
      ),
    );
    if (pending.length === 0) return;
    if (Date.now() >= deadline) {
      throw new ProjectionLagError(
        `the projection did not catch up with the audit topic within ${Math.round(timeoutMs / 1000)} s (partitions ${pending.join(', ')})`,
      );
    }
    await sleep(pollMs);
  }
}
