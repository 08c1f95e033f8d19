import pg from 'pg';
import { API_KEY_CHANGES_CHANNEL, apiKeysRepository, type StoredApiKey } from '@audit/shared/api-keys';
import { loggableError, sleep, withDeadline, type Logger } from '@audit/shared/platform';

export interface KeyDirectoryOptions {
  databaseUrl: string;
  logger: Logger;
  /** A key changed (created, revoked, rotated): its cached lookup must go. */
  changed(prefix: string): void;
  /** Bounds a catch-up round trip; past it the caller falls back to a lookup and the connection is renewed. */
  roundTripTimeoutMs?: number;
  reconnectMs?: number;
  /** How often the whole set is read again: a safety net under the announcements. */
  reloadMs?: number;
}

/**
 * The set of prefixes that exist, kept current by the announcement Postgres makes at the commit of every key
 * change, over one dedicated connection. A key whose prefix is not in it is refused without touching the pool, so
 * a flood of random keys cannot starve key lookups and rate limiting (docs/api-keys.md "Failed authentication").
 * A key minted a moment ago may not have been announced yet: a miss first waits for one round trip on the
 * listening connection, which Postgres answers only after delivering every announcement committed before it; all
 * misses waiting at once share it, and it also checks that the connection still listens (a transaction-mode
 * pooler in between would not). Without a live listener the set is unknown and every prefix is looked up.
 */
export function keyDirectory(opts: KeyDirectoryOptions) {
  const log = opts.logger.child({ component: 'key-directory' });
  let prefixes: Set<string> | null = null;
  let current: pg.Client | null = null;
  let listener: pg.Client | null = null;
  let stopped = false;
  let waiting: Array<(caughtUp: boolean) => void> = [];
  let catchingUp = false;
  // Announcements that arrive while the whole set is read, which the read may not include.
  let arrived: Set<string> | null = null;
  const roundTripMs = opts.roundTripTimeoutMs ?? 2000;

  /** Reads every prefix; what was announced meanwhile is kept too. */
  async function readAll(client: pg.Client): Promise<void> {
    arrived = new Set();
    try {
      const read = new Set(await apiKeysRepository.prefixes(client));
      for (const prefix of arrived) read.add(prefix);
      prefixes = read;
    } finally {
      arrived = null;
    }
  }

  async function listen(): Promise<void> {
    while (!stopped) {
      // Keep-alive: a connection a NAT dropped while idle is noticed, not waited on.
      const client = new pg.Client({ connectionString: opts.databaseUrl, keepAlive: true });
      current = client;
      let reload: NodeJS.Timeout | undefined;
      try {
        const lost = new Promise<void>((resolve) => {
          client.on('error', () => resolve());
          client.once('end', () => resolve());
        });
        await client.connect();
        client.on('notification', ({ payload }) => {
          if (!payload) return;
          prefixes?.add(payload);
          arrived?.add(payload);
          opts.changed(payload);
        });
        await client.query(`LISTEN ${API_KEY_CHANGES_CHANNEL}`);
        // Read after listening: a key created in between is both read and announced, never neither.
        await readAll(client);
        listener = client;
        reload = setInterval(() => {
          readAll(client).catch((err: unknown) => {
            log.warn({ err: loggableError(err) }, 'key prefixes reload failed; renewing the connection');
            void client.end();
          });
        }, opts.reloadMs ?? 60_000);
        await lost;
      } catch (err) {
        log.warn({ err: loggableError(err) }, 'key change listener failed; looking keys up until it is back');
      }
      clearInterval(reload);
      prefixes = null;
      listener = null;
      await client.end().catch(() => undefined);
      if (!stopped) await sleep(opts.reconnectMs ?? 1000);
    }
  }

  /**
   * One round trip on the listening connection, which also says whether it still listens. A failed or late one
   * renews the connection: until then every prefix is looked up.
   */
  async function roundTrip(client: pg.Client): Promise<boolean> {
    try {
      const { rows } = await withDeadline(
        client.query<{ listening: boolean }>(
          'SELECT $1 = ANY (ARRAY(SELECT pg_listening_channels())) AS listening',
          [API_KEY_CHANGES_CHANNEL],
        ),
        roundTripMs,
        () => new Error(`no answer within ${roundTripMs} ms`),
      );
      if (rows[0]?.listening) return true;
      log.warn({}, 'key change listener no longer listens (a pooler in between?); renewing the connection');
    } catch (err) {
      log.warn({ err: loggableError(err) }, 'key change listener did not answer; renewing the connection');
    }
    void client.end().catch(() => undefined);
    return false;
  }

  /** One round trip at a time; a miss that arrives during one waits for the next, which starts after it. */
  async function catchUp(): Promise<void> {
    catchingUp = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      const caughtUp = listener ? await roundTrip(listener) : false;
      for (const done of batch) done(caughtUp);
    }
    catchingUp = false;
  }

  const caughtUp = () =>
    new Promise<boolean>((resolve) => {
      waiting.push(resolve);
      if (!catchingUp) void catchUp();
    });

  return {
    start(): void {
      void listen();
    },
    /** True only when the prefix is known to exist, without waiting for anything. */
    exists: (prefix: string): boolean => prefixes?.has(prefix) ?? false,
    /** False only when the prefix certainly does not exist; true means look it up. */
    async mayExist(prefix: string): Promise<boolean> {
      if (prefixes === null || prefixes.has(prefix)) return true;
      if (!(await caughtUp())) return true;
      return prefixes === null || prefixes.has(prefix);
    },
    async stop(): Promise<void> {
      stopped = true;
      await current?.end().catch(() => undefined);
    },
  };
}

export type KeyDirectory = ReturnType<typeof keyDirectory>;

/** Key lookups that ask the directory first: a prefix it knows is absent costs no query. */
export const directoryFirst =
  (directory: Pick<KeyDirectory, 'mayExist'>, find: (prefix: string) => Promise<StoredApiKey | null>) =>
  async (prefix: string): Promise<StoredApiKey | null> =>
    (await directory.mayExist(prefix)) ? find(prefix) : null;
