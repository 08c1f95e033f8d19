import pg from 'pg';
import { loggableError, sleep, type Logger } from '@audit/shared/platform';
import {
  ENDPOINT_CHANGES_CHANNEL,
  secretBinding,
  signingKey,
  webhooksRepository,
  type SecretBox,
} from '@audit/shared/webhooks';
import { EndpointIndex, type ActiveEndpoint, type MatchedEvent } from '../domain/endpoint-index.js';

export interface EndpointDirectoryOptions {
  pool: pg.Pool;
  databaseUrl: string;
  box: SecretBox;
  reloadMs: number;
  logger: Logger;
}

/**
 * The active endpoints, kept current by push: every change is announced on a Postgres channel at commit, the
 * changed endpoint leaves the index at once (a disable stops pending deliveries without waiting), and a reload
 * brings in what is active. A reload that overlapped an announcement is redone, so it cannot restore a stale row.
 */
export function endpointDirectory(opts: EndpointDirectoryOptions) {
  const log = opts.logger.child({ component: 'endpoint-directory' });
  let index = new EndpointIndex();
  let generation = 0;
  let reloading: Promise<void> | null = null;
  let listener: pg.Client | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const followed = new Set<string>();

  const open = (row: Awaited<ReturnType<typeof webhooksRepository.listActive>>[number]): ActiveEndpoint[] => {
    try {
      const binding = secretBinding(row.id, row.tenant_id);
      const expiresAt = row.previous_secret_expires_at?.getTime();
      return [
        {
          id: row.id,
          tenantId: row.tenant_id,
          url: row.url,
          filter: row.event_filter,
          patients: row.patient_filter,
          secret: signingKey(opts.box.open(row.secret_sealed, binding)),
          previous:
            row.previous_secret_sealed && expiresAt !== undefined && expiresAt > Date.now()
              ? { secret: signingKey(opts.box.open(row.previous_secret_sealed, binding)), expiresAt }
              : null,
          version: row.version,
          ratePerSecond: row.rate_limit_per_second,
          createdAt: row.created_at.getTime(),
        },
      ];
    } catch {
      log.error(
        { endpoint_id: row.id },
        'endpoint secret cannot be opened with WEBHOOK_SECRET_KEY; not delivering to it',
      );
      return [];
    }
  };

  async function loadOnce(): Promise<void> {
    for (;;) {
      const started = generation;
      const rows = await webhooksRepository.listActive(opts.pool);
      if (started === generation) {
        index = new EndpointIndex(rows.flatMap(open));
        return;
      }
    }
  }

  function reload(): Promise<void> {
    reloading ??= loadOnce().finally(() => (reloading = null));
    return reloading;
  }

  const reloadLogged = () =>
    reload().catch((err: unknown) => log.warn({ err: loggableError(err) }, 'endpoint reload failed'));

  /** Leaves the index at once: pending work for it is dropped from here on. */
  function forget(id: string) {
    generation += 1;
    index.remove(id);
    followed.delete(id);
    void reloadLogged();
  }

  function announced(payload: string) {
    const [id, change] = payload.split(':') as [string, string | undefined];
    // Gone or inactive: out at once. Created or changed (a new secret, URL, filter or rate): in with the next
    // reload, and until then as it was, so that no delivery is dropped for it.
    if (change !== 'create' && change !== 'rotate_secret' && change !== 'update') return forget(id);
    generation += 1;
    void reloadLogged();
  }

  async function listen(): Promise<void> {
    while (!stopped) {
      const client = new pg.Client({ connectionString: opts.databaseUrl });
      try {
        await client.connect();
        client.on('notification', (n) => n.payload && announced(n.payload));
        const lost = new Promise<void>((resolve) => {
          client.on('error', () => resolve());
          client.once('end', () => resolve());
        });
        await client.query(`LISTEN ${ENDPOINT_CHANGES_CHANNEL}`);
        listener = client;
        // Anything announced while no one listened is picked up by a full reload.
        generation += 1;
        await reload();
        await lost;
      } catch (err) {
        log.warn({ err: loggableError(err) }, 'endpoint change listener failed; reconnecting');
      }
      listener = null;
      await client.end().catch(() => undefined);
      if (!stopped) await sleep(1000);
    }
  }

  /**
   * The event of the endpoint's creation or change to `version` was read: every later event of its tenant is for
   * the endpoint as it is from then on. Its row commits only after that event reached Kafka, so wait (bounded)
   * until that version is visible; a change rolled back never is.
   */
  async function changed(id: string, version: number, timeoutMs: number): Promise<void> {
    followed.add(id);
    const deadline = Date.now() + timeoutMs;
    while ((index.get(id)?.version ?? 0) < version && Date.now() < deadline) {
      const row = await webhooksRepository.findActive(opts.pool, id).catch(() => null);
      if (row && row.version >= version) {
        for (const e of open(row)) index.add(e);
        // A reload that read before this row committed must not put back an index without it.
        generation += 1;
        return;
      }
      // An inactive endpoint's change (a rotation, an update): nothing is delivered to it, nothing to wait for.
      // A change of an endpoint that no longer exists (deleted since): likewise. Only a creation that has not
      // committed yet looks like that, and it is version 1.
      if (!row) {
        const any = await webhooksRepository.find(opts.pool, id).catch(() => undefined);
        if (any === null && version > 1) return;
        if (any && !any.active && any.version >= version) return;
      }
      await sleep(50);
    }
  }

  return {
    /** Resolves once the first load is done: consuming before it would miss endpoints. */
    async start(): Promise<void> {
      await reload();
      void listen();
      timer = setInterval(
        () =>
          reload().catch((err: unknown) => log.warn({ err: loggableError(err) }, 'endpoint reload failed')),
        opts.reloadMs,
      );
    },
    get: (id: string) => index.get(id),
    matching: (event: MatchedEvent) => index.matching(event, (id) => followed.has(id)),
    changed,
    /** The dispatcher's own change (an auto-disable) applies here at once, like an announced one. */
    forget,
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await listener?.end().catch(() => undefined);
    },
  };
}

export type EndpointDirectory = ReturnType<typeof endpointDirectory>;
