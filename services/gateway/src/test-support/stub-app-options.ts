import { Readable } from 'node:stream';
import pino from 'pino';
import { Registry } from '@audit/shared/platform';
import { DEFAULT_POLICY } from '@audit/shared/retention';
import { allowList, DEFAULT_WEBHOOK_PORTS } from '@audit/shared/webhooks';
import type { GatewayAppOptions } from '../app.js';
import { downloadSlots } from '../domain/download-slots.js';

export const STUB_PEPPER = 'pepper-0123456789abcdef0123456789abcdef';

const unused = () => Promise.reject(new Error('not used by this test'));

/** The gateway's dependencies as in-memory stand-ins, for tests of the HTTP layer; override what a test needs. */
export function stubAppOptions(overrides: Partial<GatewayAppOptions> = {}): GatewayAppOptions {
  return {
    logger: pino({ level: 'silent' }),
    trustedProxies: [],
    limits: { readPerMinute: 1000, writePerMinute: 200 },
    authFailures: { burst: 50, refillPerMinute: 50, holdMs: 0 },
    takeToken: async () => ({ allowed: true, remaining: 999 }),
    auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => null },
    events: {
      findEvent: async () => null,
      wasStored: async () => false,
      listPage: async () => [],
      listKeys: async () => [],
    },
    reportEvents: async () => [],
    tenantName: async () => null,
    auditLog: { publish: async () => [] },
    auditTimeoutMs: 1000,
    exportConcurrency: 4,
    // A store that accepts every job (announcing it, as the real one does inside its transaction) and has none.
    exportJobs: {
      create: async (job, _inFlight, announce) => (await announce(job), true),
      get: async () => null,
      list: async () => [],
    },
    exportJobRequests: { publish: async () => undefined },
    exportJobLimits: { inFlight: 3, maxWindowDays: 366 },
    replayLimits: { maxDays: 31, perTenant: 4 },
    // No tenant has a tree: no checkpoint, no leaf, no key.
    integrity: {
      checkpoints: async () => [],
      checkpoint: async () => null,
      checkpointMadeBy: async () => null,
      leaf: async () => null,
      coveringCheckpoints: async () => new Map(),
      keys: async () => [],
      inclusionProof: unused,
      consistencyProof: unused,
      consistencyProofs: unused,
      windowLeaves: async () => [],
      laterInWindow: async () => [],
      windowProof: unused,
    },
    // No tenant was ever purged.
    purges: {
      status: async () => ({ purgedBefore: null, runs: [] }),
      history: async () => ({ purgedBefore: null, runs: [], holds: [] }),
    },
    exportFiles: { size: async () => null, read: async () => Readable.from([]) },
    cursorSecret: 'cursor-secret-0123456789abcdef012345',
    windowProofMaxHashes: 50_000,
    downloads: downloadSlots({ perKey: 4, perTenant: 16, perProcess: 64 }),
    minRate: { bytesPerS: 1, windowMs: 3_600_000 },
    clock: Date.now,
    readiness: {},
    startup: { done: true, waitingFor: null },
    metrics: new Registry(),
    webhooks: {
      create: unused,
      update: unused,
      signing: unused,
      rotateSecret: unused,
      startReplay: unused,
      latestReplay: unused,
      list: async () => [],
      disable: unused,
      remove: unused,
      // Every endpoint asked about is the key's tenant's, with no attempts yet.
      attempts: async () => ({ found: true, value: [] }),
    },
    viewerTokens: { find: async () => null, create: unused, revoke: unused, frameOrigins: async () => null },
    displayTemplates: { current: async () => [], put: unused, remove: unused, versions: async () => [] },
    // The default policy and no hold; changes are not used.
    retention: {
      policy: async () => DEFAULT_POLICY,
      setPolicy: unused,
      holds: async () => [],
      hold: async () => null,
      createHold: unused,
      releaseHold: unused,
    },
    viewer: { dir: '/nonexistent/', page: '<!doctype html><title>Audit trail</title>' },
    targets: { allowHttp: false, allowed: allowList([]), ports: DEFAULT_WEBHOOK_PORTS, resolve: unused },
    testSender: { send: unused },
    ...overrides,
  };
}
