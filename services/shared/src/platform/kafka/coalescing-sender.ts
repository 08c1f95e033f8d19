import type { Message, Producer } from 'kafkajs';

/** Where a sender sends, asked at each request: a fixed topic, or the audit topic's writable generation. */
export interface TopicRoute {
  current(): string;
  /**
   * After a send to `sentTo` failed: true once the route has moved to another topic the same request may go to
   * (the one it went to was sealed by a growth), false when the failure is the caller's or `deadline` (epoch ms,
   * when the request's callers stop waiting) passed first.
   */
  moved(sentTo: string, err: unknown, deadline?: number): Promise<boolean>;
}

export const fixedRoute = (topic: string): TopicRoute => ({ current: () => topic, moved: async () => false });

// Under the topic's max.message.bytes with room for the batch framing; one larger message travels alone.
export const MAX_SEND_BYTES = 1024 * 1024;

export interface CoalescingSenderOptions {
  /** Submissions beyond this many queued bytes are refused at once: an outage must not fill the memory. */
  maxQueuedBytes: number;
  /** A submission still queued after this long is dropped unsent: its caller has already been told to retry. */
  maxWaitMs: number;
  now?: () => number;
}

export class SendRefusedError extends Error {
  override name = 'SendRefusedError';
}

interface Pending {
  messages: Message[];
  bytes: number;
  queuedAt: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const sizeOf = (messages: readonly Message[]) =>
  messages.reduce((sum, m) => sum + ((m.value as Buffer | null)?.length ?? 0) + 64, 0);

function splitBySize(messages: Message[]): Message[][] {
  const parts: Message[][] = [[]];
  let bytes = 0;
  for (const m of messages) {
    const size = sizeOf([m]);
    if (parts.at(-1)!.length > 0 && bytes + size > MAX_SEND_BYTES) {
      parts.push([]);
      bytes = 0;
    }
    parts.at(-1)!.push(m);
    bytes += size;
  }
  return parts;
}

/**
 * Sends for one topic, one produce request at a time (the idempotent producer allows no more), with everything
 * that arrived while a request was in flight joined into the next one, up to MAX_SEND_BYTES. Each caller settles
 * with the request that carried its messages, so a caller is acknowledged only when Kafka has all of them.
 */
export class CoalescingSender {
  private queue: Pending[] = [];
  private queuedBytes = 0;
  private draining = false;
  private readonly now: () => number;
  private readonly route: TopicRoute;

  constructor(
    private readonly producer: Pick<Producer, 'send'>,
    topic: string | TopicRoute,
    private readonly options: CoalescingSenderOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.route = typeof topic === 'string' ? fixedRoute(topic) : topic;
  }

  /** Settles once every message is acknowledged; a submission over the cap travels in several requests. */
  send(messages: Message[]): Promise<void> {
    const bytes = sizeOf(messages);
    if (this.queuedBytes + bytes > this.options.maxQueuedBytes) {
      return Promise.reject(new SendRefusedError('the send queue is full'));
    }
    const queuedAt = this.now();
    const parts = splitBySize(messages).map(
      (part) =>
        new Promise<void>((resolve, reject) => {
          this.queue.push({ messages: part, bytes: sizeOf(part), queuedAt, resolve, reject });
        }),
    );
    this.queuedBytes += bytes;
    if (!this.draining) void this.drain();
    return Promise.all(parts).then(() => undefined);
  }

  private take(): Pending {
    const next = this.queue.shift()!;
    this.queuedBytes -= next.bytes;
    return next;
  }

  private takeRequest(): Pending[] {
    const taken: Pending[] = [];
    let bytes = 0;
    while (this.queue.length > 0 && (taken.length === 0 || bytes + this.queue[0]!.bytes <= MAX_SEND_BYTES)) {
      const next = this.take();
      if (this.now() - next.queuedAt > this.options.maxWaitMs) {
        next.reject(new SendRefusedError('waited too long for Kafka'));
        continue;
      }
      bytes += next.bytes;
      taken.push(next);
    }
    return taken;
  }

  private async drain(): Promise<void> {
    this.draining = true;
    while (this.queue.length > 0) {
      const request = this.takeRequest();
      if (request.length === 0) continue;
      try {
        // Sent again elsewhere only while its first caller still waits (a growth's switch, sendRequest).
        const deadline = Math.min(...request.map((p) => p.queuedAt)) + this.options.maxWaitMs;
        await this.sendRequest(
          request.flatMap((p) => p.messages),
          deadline,
        );
        request.forEach((p) => p.resolve());
      } catch (err) {
        request.forEach((p) => p.reject(err));
      }
    }
    this.draining = false;
  }

  /** One request, sent again where the route moved to when its topic was sealed (a growth of the audit topic). */
  private async sendRequest(messages: Message[], deadline: number): Promise<void> {
    for (;;) {
      const topic = this.route.current();
      try {
        await this.producer.send({ topic, acks: -1, messages });
        return;
      } catch (err) {
        if (!(await this.route.moved(topic, err, deadline))) throw err;
      }
    }
  }
}
