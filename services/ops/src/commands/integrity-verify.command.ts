import type pg from 'pg';
import { EVENT_COLUMNS, toAuditEventView, type EventRow } from '@audit/shared/contract';
import {
  integrityKeysRepository,
  leafEventOf,
  leafHashOf,
  parseVerifierKey,
  type VerifierKey,
} from '@audit/shared/integrity';
import { sqlIdentifier, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import { projectionStateStore, projectionTables } from '@audit/shared/projection';
import { purgeRepository, wasPurged } from '@audit/shared/retention';
import { checkCheckpoints, compareRows, type Finding, type RowHash } from '../domain/trail-audit.js';
import { leafHashesInOrder, leavesByEventId } from './integrity-verify.leaves.js';

/**
 * Where the keys the checkpoints are checked against come from (docs/integrity.md "Verify"): a keys file given,
 * the key directory's private halves, or, with neither, the database itself: whoever can write it can then add a
 * key and sign what they like with it.
 */
export type KeySource = 'file' | 'key directory' | 'database';

export interface VerifyReport {
  tenant: string;
  rows: number;
  leaves: number;
  /** Leaves whose rows the tenant's retention policy removed (docs/retention.md), and its horizon then. */
  purged: number;
  purged_before: string | null;
  checkpoints: number;
  keys: { source: KeySource; trusted: number };
  findings: Finding[];
  ok: boolean;
}

export interface VerifyContext {
  pool: pg.Pool;
  clickhouse: ClickHouseClient;
  logName: string;
  /** The keys pinned outside Postgres (verifier keys), or null to take the database's word. */
  pinned: { source: Exclude<KeySource, 'database'>; keys: readonly VerifierKey[] } | null;
}

const sameKey = (a: VerifierKey, b: VerifierKey) =>
  a.name === b.name && Buffer.from(a.publicKey).equals(Buffer.from(b.publicKey));

/**
 * The keys checkpoints are checked against, and what is wrong with the stored ones: a stored key that is not a
 * verifier key, and, where keys are pinned, a stored key none of them is (added by someone who can write the
 * database, or pinned incompletely: either way its checkpoints are not trusted).
 */
async function trustedKeys(
  ctx: VerifyContext,
): Promise<{ keys: readonly VerifierKey[]; findings: Finding[] }> {
  const findings: Finding[] = [];
  const stored: VerifierKey[] = [];
  for (const row of await integrityKeysRepository.list(ctx.pool)) {
    const key = parseVerifierKey(row.verifier_key);
    if (!key) findings.push({ kind: 'key', name: row.name, problem: 'its stored verifier key is malformed' });
    else if (ctx.pinned && !ctx.pinned.keys.some((k) => sameKey(k, key)))
      findings.push({ kind: 'key', name: row.name, problem: `stored, but not in the ${ctx.pinned.source}` });
    else stored.push(key);
  }
  return { keys: ctx.pinned?.keys ?? stored, findings };
}

/** The tenant's stored rows, by event id, each as the leaf hash of the event the API would return. */
async function* rowHashes(
  clickhouse: ClickHouseClient,
  tenant: string,
  count: () => void,
): AsyncGenerator<RowHash> {
  const { live } = await projectionStateStore(clickhouse).read();
  const result = await clickhouse.query({
    query: `SELECT ${EVENT_COLUMNS} FROM ${sqlIdentifier(projectionTables(live).events)}
      WHERE tenant_id = ${sqlValue(tenant)} ORDER BY event_id`,
    format: 'JSONEachRow',
  });
  for await (const rows of result.stream<EventRow>()) {
    for (const row of rows) {
      count();
      const view = toAuditEventView(row.json());
      yield { event_id: view.event_id, hash: leafHashOf(leafEventOf({ ...view })) };
    }
  }
}

/**
 * `ops integrity verify --tenant T` (docs/integrity.md "Verify"): every stored row of the tenant against its
 * tree's leaves, naming each altered, missing and forged event and counting those its retention purged, then every
 * checkpoint of the tenant against the tree's leaves and the published keys, naming each that fails.
 */
export async function verifyTenant(ctx: VerifyContext, tenant: string): Promise<VerifyReport> {
  let rows = 0;
  let leaves = 0;
  let purged = 0;
  const findings: Finding[] = [];
  const purges = purgeRepository(ctx.pool);
  // Leaves without rows are weighed against the tenant's purges as the scan meets them, and those that were not
  // purged then once more after it: a run that marked its decisions and deleted meanwhile is in the second read.
  const before = await purges.history(tenant);
  const unweighed = new Map<string, number | null>();
  const compared = compareRows(
    rowHashes(ctx.clickhouse, tenant, () => rows++),
    leavesByEventId(ctx.pool, tenant),
    (leaf) => {
      if (wasPurged(before, leaf.ts)) return true;
      unweighed.set(leaf.event_id, leaf.ts);
      return false;
    },
  );
  const scanned: Finding[] = [];
  for await (const f of compared) {
    if (f.kind === 'purged') purged++;
    else scanned.push(f);
  }
  const history = await purges.history(tenant);
  for (const f of scanned) {
    if (f.kind === 'missing' && wasPurged(history, unweighed.get(f.event_id) ?? null)) purged++;
    else findings.push(f);
  }
  const trusted = await trustedKeys(ctx);
  findings.push(...trusted.findings);
  const { rows: notes } = await ctx.pool.query<{ tree_size: string; note: string }>(
    'SELECT tree_size, note FROM integrity_checkpoints WHERE tenant_id = $1 ORDER BY tree_size',
    [tenant],
  );
  const checked = checkCheckpoints(
    leafHashesInOrder(ctx.pool, tenant, (n) => (leaves += n)),
    notes.map((n) => ({ tree_size: Number(n.tree_size), note: n.note })),
    trusted.keys,
    `${ctx.logName}/tenants/${tenant}`,
  );
  for await (const f of checked) findings.push(f);
  const keys = { source: ctx.pinned?.source ?? 'database', trusted: trusted.keys.length } as const;
  const purgedBefore = history.purgedBefore === null ? null : new Date(history.purgedBefore).toISOString();
  return {
    tenant,
    rows,
    leaves,
    purged,
    purged_before: purgedBefore,
    checkpoints: notes.length,
    keys,
    findings,
    ok: findings.length === 0,
  };
}
