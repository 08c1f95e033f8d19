// What authentication and the shared rate limit add to a request: the same list route served twice in this
// process, once behind the real auth hook (Postgres key store and token bucket), once behind a hook that only
// sets the principal; both read from a stub that returns fixed rows, so ClickHouse plays no part.
import pg from 'pg';
import { type Scope } from '@audit/shared/api-keys';
import { systemClock, type EventRow } from '@audit/shared/contract';
import { createHttpServer } from '@audit/shared/platform';
import { cachedKeyStore } from '../../services/gateway/src/adapters/key-store.js';
import { postgresRateLimiter } from '../../services/gateway/src/adapters/rate-limiter.js';
import { buildApp } from '../../services/gateway/src/app.js';
import { authenticate, type AuthDeps } from '../../services/gateway/src/domain/authenticate.js';
import { eventListRoute } from '../../services/gateway/src/routes/event-list.route.js';
import { stubAppOptions } from '../../services/gateway/src/test-support/stub-app-options.js';
import { httpClient } from './http-timing.js';
import { summarize } from './stats.js';

export interface OverheadOptions {
  databaseUrl: string;
  pepper: string;
  cursorSecret: string;
  key: string;
  tenant: string;
  /** The page the stub returns (limit + 1 rows, as the route asks). */
  rows: EventRow[];
  readPerMinute: number;
  samples: number;
}

const PATH = '/api/v2/public/audit/events?limit=100';

export async function gatewayOverhead(opts: OverheadOptions) {
  // As services/gateway/src/main.ts configures it.
  const pool = new pg.Pool({
    connectionString: opts.databaseUrl,
    max: 10,
    connectionTimeoutMillis: 2000,
    query_timeout: 2000,
  });
  const events = {
    listPage: async () => opts.rows,
    listKeys: async () => [],
    findEvent: async () => null,
    wasStored: async () => false,
  };
  const takeToken = postgresRateLimiter(pool);
  const auth: AuthDeps = {
    pepper: opts.pepper,
    env: 'live',
    findKey: cachedKeyStore(pool, { ttlMs: 2000, maxKeys: 100_000, maxUnknown: 10_000 }).find,
  };
  const limits = { readPerMinute: opts.readPerMinute, writePerMinute: opts.readPerMinute };
  // The other dependencies (webhooks, audit log) are stand-ins: the list route does not touch them.
  const options = stubAppOptions({ limits, takeToken, auth, events, cursorSecret: opts.cursorSecret });
  const full = await buildApp(options);
  const principal = { prefix: 'bench', tenantId: opts.tenant, scopes: new Set<Scope>(['audit:read']) };
  const bare = createHttpServer(options.logger);
  await bare.register(
    async (api) => {
      api.decorateRequest('principal', null);
      api.decorateRequest('clientIp', '');
      api.addHook('onRequest', async (request) => {
        request.principal = principal;
      });
      eventListRoute(api, { events, cursorSecret: opts.cursorSecret, clock: systemClock });
    },
    { prefix: '/api/v2/public' },
  );
  const fullUrl = await full.listen({ host: '127.0.0.1', port: 0 });
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });
  const withAuth = httpClient(fullUrl);
  const without = httpClient(bareUrl);
  const headers = { authorization: `Bearer ${opts.key}` };

  const times = { full: [] as number[], bare: [] as number[] };
  // Alternating, so drift in the machine's load affects both alike.
  for (let i = -opts.samples / 4; i < opts.samples; i++) {
    const a = await withAuth.request(PATH, { headers });
    const b = await without.request(PATH);
    if (a.status !== 200 || b.status !== 200)
      throw new Error(`overhead: answers ${a.status} and ${b.status}`);
    if (i >= 0) {
      times.full.push(a.totalMs);
      times.bare.push(b.totalMs);
    }
  }

  // The hook's own work, timed around it: the key check (cached lookup, HMAC) and the token take (Postgres).
  const prefix = /^svc_live_([0-9a-f]{8})_/.exec(opts.key)![1]!;
  const take: number[] = [];
  const hook: number[] = [];
  for (let i = 0; i < opts.samples; i++) {
    const started = performance.now();
    await authenticate(headers.authorization, '127.0.0.1', auth);
    const checked = performance.now();
    await takeToken(prefix, 'read', opts.readPerMinute);
    take.push(performance.now() - checked);
    hook.push(performance.now() - started);
  }

  withAuth.close();
  without.close();
  await full.close();
  await bare.close();
  await pool.end();
  return {
    full: summarize(times.full),
    bare: summarize(times.bare),
    takeToken: summarize(take),
    hook: summarize(hook),
  };
}
