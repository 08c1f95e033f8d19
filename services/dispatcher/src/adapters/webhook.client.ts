import type { Readable } from 'node:stream';
import { Agent } from 'undici';
import { parseWebhookUrl, SIGNATURE_HEADER, type Resolve, type TargetRules } from '@audit/shared';
import { errorFailure, statusFailure } from './attempt-failure.js';
import { checkedAddresses, guardedConnector } from './guarded-connector.js';

export interface DeliveryRequest {
  /** The endpoint URL as stored (validated at creation, checked again here). */
  url: string;
  /** The exact payload bytes, signed by the caller. */
  body: Buffer;
  /** The X-Service-Signature header value, computed by the caller. */
  signature: string;
}

export type AttemptResult =
  | { ok: true; status: number; latencyMs: number }
  | { ok: false; status: number | null; error: string; latencyMs: number };

export interface WebhookClientOptions {
  /** The whole attempt: resolving, connecting, the response and reading its body. */
  timeoutMs: number;
  rules: TargetRules;
  resolve: Resolve;
  maxResponseBytes?: number;
  /** Keep-alive pool size per origin. */
  connectionsPerOrigin?: number;
}

export interface WebhookClient {
  /** Never throws: every failure is an AttemptResult. */
  send(request: DeliveryRequest): Promise<AttemptResult>;
  close(): Promise<void>;
}

const USER_AGENT = 'audit-trail-service-webhooks/1';

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

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** POSTs signed deliveries (decisions.md "Delivery"); one pool per origin, so a slow receiver delays no other. */
export function webhookClient(options: WebhookClientOptions): WebhookClient {
  const { timeoutMs, rules, resolve } = options;
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  const agent = new Agent({
    connections: options.connectionsPerOrigin ?? 32,
    connect: guardedConnector(rules.allowed, resolve, timeoutMs),
  });

  async function send(request: DeliveryRequest): Promise<AttemptResult> {
    const started = performance.now();
    const latencyMs = () => Math.round(performance.now() - started);
    const url = parseWebhookUrl(request.url, rules);
    if (!url.ok)
      return { ok: false, status: null, error: `refused url: ${url.reason}`, latencyMs: latencyMs() };

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let status: number | null = null;
    try {
      // Checked at every delivery, even one a kept-alive connection would carry; the connector checks again
      // whatever it connects to, so an answer that changes between the two cannot slip through.
      await untilAborted(checkedAddresses(url.value.hostname, rules.allowed, resolve), controller.signal);
      const response = await agent.request({
        origin: url.value.origin,
        path: `${url.value.pathname}${url.value.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          [SIGNATURE_HEADER]: request.signature,
        },
        body: request.body,
        signal: controller.signal,
      });
      status = response.statusCode;
      await readAtMost(response.body, maxResponseBytes);
      const failure = statusFailure(status);
      if (failure === null) return { ok: true, status, latencyMs: latencyMs() };
      return { ok: false, status, error: failure, latencyMs: latencyMs() };
    } catch (error) {
      const text = controller.signal.aborted
        ? `timeout after ${timeoutMs} ms`
        : errorFailure(error, timeoutMs);
      return { ok: false, status, error: text, latencyMs: latencyMs() };
    } finally {
      clearTimeout(timer);
    }
  }

  return { send, close: () => agent.close() };
}
