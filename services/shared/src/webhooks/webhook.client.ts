import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { Pool } from 'undici';
import { CappedMap } from '../platform/capped-map.js';
import { errorFailure, retryAfter, statusFailure } from './attempt-failure.js';
import {
  checkedAddresses,
  guardedConnector,
  literalRefusal,
  type RefusedTargetError,
} from './guarded-connector.js';
import { parseWebhookUrl, type Resolve, type TargetRules } from './webhook-target.js';

export interface DeliveryRequest {
  /** Whose connections carry it: each endpoint has its own. */
  endpointId: string;
  /** The endpoint URL as stored (validated at creation, checked again here). */
  url: string;
  /** The exact payload bytes, signed by the caller. */
  body: Buffer;
  /** The signature headers, computed by the caller (signatureHeaders). */
  headers: Record<string, string>;
}

export type AttemptResult =
  | { ok: true; status: number; latencyMs: number }
  | {
      ok: false;
      status: number | null;
      error: string;
      latencyMs: number;
      /** How long a 429 or 503 asked us to wait (Retry-After), in ms; null when it did not say, or said it wrongly. */
      retryAfterMs?: number | null;
    };

export interface WebhookClientOptions {
  /** The whole attempt: resolving, connecting, the response and reading its body. */
  timeoutMs: number;
  rules: TargetRules;
  resolve: Resolve;
  maxResponseBytes?: number;
  /** Keep-alive connections per endpoint: as many as its lane lets requests run at once. */
  connectionsPerEndpoint?: number;
}

export interface WebhookClient {
  /** Never throws: every failure is an AttemptResult. */
  send(request: DeliveryRequest): Promise<AttemptResult>;
  close(): Promise<void>;
}

const USER_AGENT = 'audit-trail-service-webhooks/1';
// Parsed targets kept per URL text; past this many the cache starts over (endpoints are few, URLs rarely change).
const MAX_CACHED_TARGETS = 10_000;
// An endpoint's connections unused for this long are closed (a disabled or deleted endpoint's too).
const IDLE_POOL_MS = 60_000;

/** A stored URL as the client needs it, parsed once. */
type Target =
  | { ok: false; reason: string }
  | {
      ok: true;
      origin: string;
      path: string;
      hostname: string;
      /** For an IP literal, its check (it never changes); undefined for a name, resolved and checked each time. */
      literal: RefusedTargetError | null | undefined;
    };

/**
 * Consumes at most `limit` bytes (give or take the chunk that crosses it) so a kept-alive connection can carry
 * the next delivery; past the limit the connection is dropped rather than drained, since a receiver may never
 * stop sending.
 */
async function readAtMost(body: Readable, limit: number): Promise<void> {
  let read = 0;
  for await (const chunk of body) {
    read += (chunk as Buffer).length;
    if (read >= limit) {
      body.destroy();
      return;
    }
  }
}

/**
 * The attempt's deadline, as the abort signal undici listens to. undici takes an EventEmitter emitting 'abort' as
 * well as an AbortSignal; an AbortController per request cost about a third of a raw request's CPU
 * (bench:webhooks), this costs next to nothing.
 */
class Deadline extends EventEmitter {
  private expired = false;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    super();
    this.timer = setTimeout(() => {
      this.expired = true;
      this.emit('abort');
    }, ms);
  }

  /** Read by undici before it listens: an expired deadline aborts at once. */
  get aborted(): boolean {
    return this.expired;
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  /** `work`, or a rejection once the deadline expires, whichever comes first. */
  race<T>(work: Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new Error('deadline expired'));
      this.once('abort', onAbort);
      work.then(resolve, reject).finally(() => this.removeListener('abort', onAbort));
    });
  }
}

/** An endpoint's own keep-alive connections, and how many requests use them now. */
interface EndpointPool {
  pool: Pool;
  inUse: number;
  lastUsed: number;
}

/**
 * POSTs signed deliveries (docs/contract.md "Delivery"). Each endpoint has its own connections, not one
 * pool per origin: endpoints of one host that hang would otherwise take every connection to it, and hold up
 * its others.
 */
export function webhookClient(options: WebhookClientOptions): WebhookClient {
  const { timeoutMs, rules, resolve } = options;
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  const connect = guardedConnector(rules.allowed, resolve, timeoutMs);
  const pools = new Map<string, EndpointPool>();
  const sweeper = setInterval(() => closeIdle(performance.now() - IDLE_POOL_MS), IDLE_POOL_MS).unref();

  function poolFor(endpointId: string, origin: string): EndpointPool {
    const key = `${endpointId} ${origin}`;
    let found = pools.get(key);
    if (!found) {
      const pool = new Pool(origin, { connections: options.connectionsPerEndpoint ?? 16, connect });
      found = { pool, inUse: 0, lastUsed: 0 };
      pools.set(key, found);
    }
    return found;
  }

  function closeIdle(before: number): void {
    for (const [key, entry] of pools) {
      if (entry.inUse > 0 || entry.lastUsed > before) continue;
      pools.delete(key);
      void entry.pool.close();
    }
  }

  const targets = new CappedMap<string, Target>(MAX_CACHED_TARGETS);

  // The same text under the same rules always parses the same way: parsing and a literal's check are done once.
  function target(text: string): Target {
    let found = targets.get(text);
    if (found) return found;
    const url = parseWebhookUrl(text, rules);
    found = url.ok
      ? {
          ok: true,
          origin: url.value.origin,
          path: `${url.value.pathname}${url.value.search}`,
          hostname: url.value.hostname,
          literal: literalRefusal(url.value.hostname, rules.allowed),
        }
      : { ok: false, reason: url.reason };
    targets.set(text, found);
    return found;
  }

  async function send(request: DeliveryRequest): Promise<AttemptResult> {
    const started = performance.now();
    const latencyMs = () => Math.round(performance.now() - started);
    const url = target(request.url);
    if (!url.ok)
      return { ok: false, status: null, error: `refused url: ${url.reason}`, latencyMs: latencyMs() };

    const deadline = new Deadline(timeoutMs);
    const pool = poolFor(request.endpointId, url.origin);
    pool.inUse += 1;
    let status: number | null = null;
    try {
      // Checked at every delivery, even one a kept-alive connection would carry; the connector checks again
      // whatever it connects to, so an answer that changes between the two cannot slip through. An IP literal
      // needs no resolving: its kept check stands.
      if (url.literal) throw url.literal;
      if (url.literal === undefined) {
        await deadline.race(checkedAddresses(url.hostname, rules.allowed, resolve));
      }
      const response = await pool.pool.request({
        path: url.path,
        method: 'POST',
        headers: { ...request.headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
        body: request.body,
        signal: deadline,
      });
      status = response.statusCode;
      await readAtMost(response.body, maxResponseBytes);
      const failure = statusFailure(status);
      if (failure === null) return { ok: true, status, latencyMs: latencyMs() };
      const retryAfterMs =
        status === 429 || status === 503 ? retryAfter(response.headers['retry-after'], Date.now()) : null;
      return { ok: false, status, error: failure, latencyMs: latencyMs(), retryAfterMs };
    } catch (error) {
      const text = deadline.aborted ? `timeout after ${timeoutMs} ms` : errorFailure(error, timeoutMs);
      return { ok: false, status, error: text, latencyMs: latencyMs() };
    } finally {
      deadline.clear();
      pool.inUse -= 1;
      pool.lastUsed = performance.now();
    }
  }

  async function close(): Promise<void> {
    clearInterval(sweeper);
    const all = [...pools.values()];
    pools.clear();
    await Promise.all(all.map((entry) => entry.pool.close()));
  }

  return { send, close };
}
