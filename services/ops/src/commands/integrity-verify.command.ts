import type pg from 'pg';
import { EVENT_COLUMNS, toAuditEventView, type EventRow } from '@audit/shared/contract';
import { integrityKeysRepository, leafEventOf, leafHashOf, parseVerifierKey } from '@audit/shared/integrity';
import { sqlIdentifier, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import { projectionStateStore, projectionTables } from '@audit/shared/projection';
import { checkCheckpoints, compareRows, type Finding, type RowHash } from '../domain/trail-audit.js';
import { leafHashesInOrder, leavesByEventId } from './integrity-verify.leaves.js';

export interface VerifyReport {
  tenant: string;
  rows: number;
  leaves: number;
  checkpoints: number;
  findings: Finding[];
  ok: boolean;
}

export interface VerifyContext {
  pool: pg.Pool;
  clickhouse: ClickHouseClient;
  logName: string;
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
 * tree's leaves, naming each altered, missing and forged event, then every checkpoint of the tenant against the
 * tree's leaves and the published keys, naming each that fails.
 */
export async function verifyTenant(ctx: VerifyContext, tenant: string): Promise<VerifyReport> {
  let rows = 0;
  let leaves = 0;
  const findings: Finding[] = [];
  const compared = compareRows(
    rowHashes(ctx.clickhouse, tenant, () => rows++),
    leavesByEventId(ctx.pool, tenant),
  );
  for await (const f of compared) findings.push(f);
  const keys = (await integrityKeysRepository.list(ctx.pool)).map((k) => parseVerifierKey(k.verifier_key)!);
  const { rows: notes } = await ctx.pool.query<{ tree_size: string; note: string }>(
    'SELECT tree_size, note FROM integrity_checkpoints WHERE tenant_id = $1 ORDER BY tree_size',
    [tenant],
  );
  const checked = checkCheckpoints(
    leafHashesInOrder(ctx.pool, tenant, (n) => (leaves += n)),
    notes.map((n) => ({ tree_size: Number(n.tree_size), note: n.note })),
    keys,
    `${ctx.logName}/tenants/${tenant}`,
  );
  for await (const f of checked) findings.push(f);
  return { tenant, rows, leaves, checkpoints: notes.length, findings, ok: findings.length === 0 };
}
