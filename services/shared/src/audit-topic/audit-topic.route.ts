import type { Admin } from 'kafkajs';
import { sleep } from '../platform/deadline.js';
import type { Logger } from '../platform/logger.js';
import { generationTopicStates, refusedBySize } from './generation-topics.kafka.js';
import { writableTopic } from './generations.js';
import type { TopicRoute } from '../platform/kafka/coalescing-sender.js';

export interface AuditTopicRouteOptions {
  /** How long a send refused by a sealed generation waits for the next one to open (a switch takes seconds). */
  waitMs?: number;
  pollMs?: number;
  logger: Logger;
}

/**
 * The audit topic's writable generation for a producer (docs/topic-growth.md "Producers"): read from the broker at
 * start, and again only when a send is refused as too large, which is how a sealed generation answers. Nothing is
 * polled while nothing grows.
 */
export class AuditTopicRoute implements TopicRoute {
  private topic: string;

  /** Writes to the base topic until `refresh` has asked the broker (a service's start-up step). */
  constructor(
    private readonly admin: Pick<Admin, 'listTopics' | 'describeConfigs'>,
    private readonly base: string,
    private readonly opts: AuditTopicRouteOptions,
  ) {
    this.topic = base;
  }

  /** Asks the broker; a base topic not created yet is written as generation 1 (migrate creates it). */
  async refresh(): Promise<void> {
    const states = await generationTopicStates(this.admin, this.base);
    this.topic = states.length > 0 ? writableTopic(states) : this.base;
  }

  current(): string {
    return this.topic;
  }

  async moved(sentTo: string, err: unknown, callerDeadline = Infinity): Promise<boolean> {
    if (!refusedBySize(err)) return false;
    const deadline = Math.min(Date.now() + (this.opts.waitMs ?? 10_000), callerDeadline);
    for (let first = true; ; first = false) {
      const states = await generationTopicStates(this.admin, this.base);
      // Open at the first look: the refusal was the records' own size, not a seal.
      if (first && (states.find((s) => s.topic === sentTo)?.open ?? true)) return false;
      const topic = writableTopic(states);
      if (states.find((s) => s.topic === topic)?.open) {
        this.opts.logger.info({ from: sentTo, to: topic }, 'audit topic generation sealed; writing the next');
        this.topic = topic;
        return true;
      }
      // Neither open: the switch is under way, and the newest opens next.
      if (Date.now() >= deadline) return false;
      await sleep(this.opts.pollMs ?? 250);
    }
  }
}
