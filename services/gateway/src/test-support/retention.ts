import { randomUUID } from 'node:crypto';
import type { ParsedApiKey, Scope } from '@audit/shared/api-keys';
import {
  DEFAULT_POLICY,
  isActive,
  type HoldStatus,
  type LegalHold,
  type RetentionPolicy,
  type RetentionRepository,
} from '@audit/shared/retention';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp, type GatewayAppOptions } from '../app.js';
import { STUB_PEPPER, stubAppOptions } from './stub-app-options.js';
import { viewerTokenFor } from './viewer-token.js';

export const HOLDS_T0 = Date.UTC(2026, 10, 21, 9, 30);

/** A hold of the i-th millisecond after HOLDS_T0, in force; change what a test needs. */
export const legalHold = (i: number, overrides: Partial<LegalHold> = {}): LegalHold => ({
  hold_id: randomUUID(),
  reason: `matter ${i}`,
  scope: {},
  created_at: new Date(HOLDS_T0 + i),
  created_by: 'api_key:0a1b2c3d',
  released_at: null,
  released_by: null,
  release_reason: null,
  ...overrides,
});

type Stored = LegalHold & { tenant: string };

const newestFirst = (
  a: Pick<LegalHold, 'created_at' | 'hold_id'>,
  b: Pick<LegalHold, 'created_at' | 'hold_id'>,
) =>
  b.created_at.getTime() - a.created_at.getTime() ||
  (a.hold_id === b.hold_id ? 0 : b.hold_id < a.hold_id ? -1 : 1);

const matches = (status: HoldStatus) => (h: LegalHold) =>
  status === 'all' || isActive(h) === (status === 'active');

/**
 * The repository's semantics in memory: tenants apart, newest first, the limit of holds in force, each change
 * stored only once its announcement resolved, a released hold returned as it is.
 */
export function memoryRetention(initial: Stored[] = []): RetentionRepository & {
  policies: Map<string, RetentionPolicy>;
  stored: Stored[];
} {
  const policies = new Map<string, RetentionPolicy>();
  const stored = [...initial];
  let clock = HOLDS_T0 + 1_000_000;
  const now = () => new Date(clock++);
  const find = (tenant: string, id: string) => stored.find((h) => h.tenant === tenant && h.hold_id === id);
  const view = ({ tenant: _tenant, ...hold }: Stored): LegalHold => hold;
  return {
    policies,
    stored,
    policy: async (tenant) => policies.get(tenant) ?? DEFAULT_POLICY,
    async setPolicy(tenant, change, by, announce) {
      const previous = policies.get(tenant) ?? DEFAULT_POLICY;
      const policy = { ...change, version: previous.version + 1, changed_at: now(), changed_by: by };
      await announce({ policy, previous });
      policies.set(tenant, policy);
      return { policy, previous };
    },
    holds: async (tenant, status, limit, after) =>
      stored
        .filter((h) => h.tenant === tenant && matches(status)(h))
        .sort(newestFirst)
        .filter((h) => !after || newestFirst(after, h) < 0)
        .slice(0, limit)
        .map(view),
    hold: async (tenant, id) => {
      const found = find(tenant, id);
      return found ? view(found) : null;
    },
    async createHold(tenant, request, by, max, announce) {
      if (stored.filter((h) => h.tenant === tenant && isActive(h)).length >= max) return null;
      const hold = legalHold(0, {
        reason: request.reason,
        scope: request.scope,
        created_at: now(),
        created_by: by,
      });
      await announce(hold);
      stored.push({ ...hold, tenant });
      return hold;
    },
    async releaseHold(tenant, id, release, announce) {
      const found = find(tenant, id);
      if (!found) return null;
      if (!isActive(found)) return { hold: view(found), released: false };
      const released = {
        ...view(found),
        released_at: now(),
        released_by: release.by,
        release_reason: release.reason,
      };
      await announce(released);
      Object.assign(found, released);
      return { hold: released, released: true };
    },
  };
}

/**
 * An app over `memoryRetention` for a key with `scopes` (both retention scopes by default), the events it publishes
 * collected, and a viewer token acting for the key, narrowed when asked. Closed by `close`.
 */
export async function retentionApp(
  key: ParsedApiKey,
  opts: {
    scopes?: Scope[];
    holds?: Stored[];
    narrowed?: boolean;
    overrides?: Partial<GatewayAppOptions>;
  } = {},
) {
  const retention = memoryRetention(opts.holds);
  const published: RetentionAuditEvent[] = [];
  const stored = storedKeyFor(key, STUB_PEPPER, { scopes: opts.scopes ?? ['audit:read', 'retention:write'] });
  const viewer = viewerTokenFor(stored, opts.narrowed ? { user_id: 'u-1' } : {});
  const app = await buildApp(
    stubAppOptions({
      auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored },
      viewerTokens: { ...stubAppOptions().viewerTokens, find: async () => viewer.stored },
      retention,
      auditLog: { publish: async (events) => (published.push(...(events as RetentionAuditEvent[])), []) },
      ...opts.overrides,
    }),
  );
  return { app, retention, published, asViewer: { authorization: `Bearer ${viewer.bearer}` } };
}

/** An audit event as a test reads it back. */
export type RetentionAuditEvent = {
  action: string;
  resource_id: string;
  details: Record<string, unknown>;
} & Record<string, unknown>;
