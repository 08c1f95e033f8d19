// The read benchmark's dataset, generated inside ClickHouse (INSERT … SELECT FROM numbers()) into the project's own
// tables: a Node TSV loader would need minutes for 20 million rows, the server needs about one.
import {
  createClickHouse,
  dropClickHouseDatabase,
  migrateClickHouse,
  sleep,
  sqlIdentifier,
  sqlValue,
  type ClickHouseClient,
  type ClickHouseSettings,
} from '@audit/shared';
import { runPool } from './pool.js';

/** Bump when the generator changes: a kept dataset of another version is reloaded. */
const VERSION = 'read-bench-v1';
const DAY_MS = 86_400_000;
const WEEKS = 52;
const WEEK_MS = 7 * DAY_MS;
const OTHER_TENANTS = 200;

export const TARGET_TENANT = 'bench-target';

/** Filter values and their share of every tenant's events (per 10,000), as the generator below draws them. */
export const FILTER_VALUES = {
  commonAction: { value: 'phi.read', per10k: 4500 },
  rareAction: { value: 'phi.break_glass', per10k: 12 },
  commonResourceType: { value: 'patient', per10k: 4000 },
  rareResourceType: { value: 'genomic_report', per10k: 50 },
  // A real action the generator never draws: a page must read the tenant's whole history to find it empty.
  absentAction: { value: 'admin.key.create', per10k: 0 },
} as const;

const ACTIONS: [string, number][] = [
  ['phi.read', 4500],
  ['phi.query', 2000],
  ['auth.login', 1200],
  ['record.update', 1000],
  ['phi.export', 500],
  ['admin.user.update', 450],
  ['phi.decrypt', 338],
  ['phi.break_glass', 12],
];
const RESOURCE_TYPES: [string, number][] = [
  ['patient', 4000],
  ['claim', 2500],
  ['encounter', 1500],
  ['prescription', 1000],
  ['lab_result', 600],
  ['document', 350],
  ['genomic_report', 50],
];
const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
  'ehr-portal/4.12.1 (iOS 17.2)',
  'claims-batch/2.3.0 node/20.11.0',
  'python-requests/2.31.0',
];
const FIELDS = [
  '["dob"]',
  '["dob","ssn"]',
  '["name","dob","address"]',
  '["diagnosis","medications"]',
  '["lab_values"]',
];

const COLUMNS = `tenant_id, ts, event_id, action, user_id, user_role, resource_type, resource_id, fields_accessed,
  phi_involved, source_ip, user_agent, justification, success, details, ingested_at`;

export interface Dataset {
  events: number;
  startMs: number;
  endMs: number;
}

const h = (seed: number) => `cityHash64(g, ${seed})`;
const array = (items: readonly string[]) => `[${items.map(sqlValue).join(', ')}]`;
const pick = (items: readonly string[], seed: number) => `${array(items)}[1 + ${h(seed)} % ${items.length}]`;

/** A weighted choice among values whose weights add up to 10,000. */
function weighted(choices: [string, number][], seed: number): string {
  let bound = 0;
  const arms = choices.slice(0, -1).flatMap(([value, weight]) => {
    bound += weight;
    return [`${h(seed)} % 10000 < ${bound}`, sqlValue(value)];
  });
  return `multiIf(${arms.join(', ')}, ${sqlValue(choices.at(-1)![0])})`;
}

// Office hours carry most of the traffic: weekdays 08:00-18:00 UTC at full rate, nights at 15 %, weekends at
// 30 % of that. Candidates are drawn uniformly over the week and kept with that probability (parts per million).
const KEEP_PPM = `multiIf(toDayOfWeek(toDateTime(intDiv(ts, 1000)), 'UTC') >= 6, 300, 1000)
  * multiIf(toHour(toDateTime(intDiv(ts, 1000)), 'UTC') BETWEEN 8 AND 17, 1000, 150)`;
const MEAN_KEEP = (5 * (10 + 14 * 0.15) + 2 * 0.3 * (10 + 14 * 0.15)) / (7 * 24);

function insertWeek(
  tenant: string,
  weekStart: number,
  rows: number,
  firstCandidate: number,
  candidates: number,
) {
  const tenantExpr =
    tenant === TARGET_TENANT
      ? sqlValue(TARGET_TENANT)
      : // Other tenants' sizes are skewed, as real customers' are.
        `concat('bench-other-', toString(toUInt32(pow((${h(3)} % 1000) / 1000, 2) * ${OTHER_TENANTS})))`;
  return `INSERT INTO audit_events (${COLUMNS})
    SELECT tenant_id, ts, toString(generateUUIDv4()) AS event_id, action,
      concat('user-', toString(${h(7)} % 5000)) AS user_id,
      ${pick(['clinician', 'clinician', 'clinician', 'nurse', 'nurse', 'billing', 'admin', 'service'], 8)} AS user_role,
      resource_type,
      concat(substring(resource_type, 1, 3), '_', toString(${h(6)} % 2000000)) AS resource_id,
      if(phi, ${pick(FIELDS, 9)}, '[]') AS fields_accessed,
      phi AS phi_involved,
      concat('10.', toString(${h(10)} % 256), '.', toString(intDiv(${h(10)}, 256) % 256), '.',
        toString(intDiv(${h(10)}, 65536) % 256)) AS source_ip,
      ${pick(USER_AGENTS, 11)} AS user_agent,
      if(phi AND ${h(12)} % 10 < 6, ${array(['treatment', 'payment', 'operations'])}[1 + intDiv(${h(12)}, 10) % 3], '')
        AS justification,
      ${h(13)} % 1000 >= 15 AS success,
      concat('{"request_id":"', lower(hex(${h(14)})), '","method":"', ${pick(['GET', 'GET', 'GET', 'POST', 'PUT'], 15)},
        '","path":"/v2/', resource_type, 's/', resource_id, '","duration_ms":', toString(${h(16)} % 900 + 3),
        ',"session":"', lower(hex(${h(17)})), '"}') AS details,
      ts + 200 + ${h(18)} % 3000 AS ingested_at
    FROM (
      SELECT g, ts, ${tenantExpr} AS tenant_id, ${weighted(ACTIONS, 4)} AS action,
        ${weighted(RESOURCE_TYPES, 5)} AS resource_type, substring(action, 1, 4) = 'phi.' AS phi
      FROM (
        SELECT ${firstCandidate} + number AS g, ${weekStart} + ${h(0)} % ${WEEK_MS} AS ts
        FROM numbers(${candidates})
      )
      WHERE ${h(1)} % 1000000 < ${KEEP_PPM}
      LIMIT ${rows}
    )`;
}

async function one<T>(ch: ClickHouseClient, query: string): Promise<T | undefined> {
  return (await (await ch.query({ query, format: 'JSONEachRow' })).json<T>())[0];
}

/** The dataset the database holds, or null unless it is complete (its marker is written last). */
async function readMarker(settings: ClickHouseSettings): Promise<(Dataset & { version: string }) | null> {
  const ch = createClickHouse(settings, 'default');
  try {
    const db = sqlIdentifier(settings.database);
    const marker = await one<{ n: string }>(
      ch,
      `SELECT count() AS n FROM system.tables
       WHERE database = ${sqlValue(settings.database)} AND name = 'bench_dataset'`,
    );
    if (Number(marker!.n) === 0) return null;
    const row = await one<Record<string, string>>(
      ch,
      `SELECT version, events, start_ms, end_ms, (SELECT count() FROM ${db}.audit_events) AS stored,
         (SELECT count() FROM ${db}.audit_event_ids) AS ids
       FROM ${db}.bench_dataset`,
    );
    if (!row || row.stored !== row.events || row.ids !== row.events) return null;
    return {
      version: row.version!,
      events: Number(row.events),
      startMs: Number(row.start_ms),
      endMs: Number(row.end_ms),
    };
  } finally {
    await ch.close();
  }
}

/** Waits until ClickHouse has had no merge running in the database for a few seconds. */
async function settleMerges(ch: ClickHouseClient, database: string) {
  let quietSince = Date.now();
  while (Date.now() - quietSince < 5000) {
    const merging = await one<{ n: string }>(
      ch,
      `SELECT count() AS n FROM system.merges WHERE database = ${sqlValue(database)}`,
    );
    if (Number(merging!.n) > 0) quietSince = Date.now();
    await sleep(500);
  }
}

/**
 * The dataset of `events` rows, half of them the target tenant's, spread over the 52 weeks before now; kept
 * between runs when the database already holds exactly this version and size.
 */
export async function ensureDataset(
  settings: ClickHouseSettings,
  events: number,
  reload: boolean,
  log: (line: string) => void,
): Promise<Dataset> {
  if (events % 2 !== 0) throw new Error('the event count must be even: half of it is the target tenant');
  const kept = reload ? null : await readMarker(settings);
  if (kept && kept.version === VERSION && kept.events === events) {
    log(
      `dataset kept: ${settings.database} holds ${events.toLocaleString('en-US')} events (--reload to rebuild)`,
    );
    return kept;
  }
  await dropClickHouseDatabase(settings);
  await migrateClickHouse(settings);
  const ch = createClickHouse(settings);
  const endMs = Math.floor(Date.now() / 60_000) * 60_000;
  const startMs = endMs - WEEKS * WEEK_MS;
  const half = events / 2;
  const perWeek = Math.floor(half / WEEKS);
  // Enough candidates that the LIMIT is always reached (the keep rate is a hash, so it hardly varies).
  const candidates = Math.ceil(((perWeek + WEEKS) / MEAN_KEEP) * 1.3);
  const started = performance.now();
  await runPool(2 * WEEKS, 2, async (i) => {
    const tenant = i % 2 === 0 ? TARGET_TENANT : 'others';
    const week = Math.floor(i / 2);
    const rows = week === WEEKS - 1 ? half - perWeek * (WEEKS - 1) : perWeek;
    await ch.command({
      query: insertWeek(tenant, startMs + week * WEEK_MS, rows, i * candidates, candidates),
    });
  });
  const inserted = (performance.now() - started) / 1000;
  await settleMerges(ch, settings.database);
  const settled = (performance.now() - started) / 1000;
  await ch.command({
    query: `CREATE TABLE bench_dataset (version String, events UInt64, start_ms Int64, end_ms Int64) ENGINE = TinyLog`,
  });
  await ch.command({
    query: `INSERT INTO bench_dataset VALUES (${sqlValue(VERSION)}, ${events}, ${startMs}, ${endMs})`,
  });
  await ch.close();
  const marker = await readMarker(settings);
  if (!marker) throw new Error('the loaded dataset does not hold the expected rows');
  log(
    `dataset loaded: ${events.toLocaleString('en-US')} events in ${inserted.toFixed(0)} s (INSERT … SELECT), merges settled after ${settled.toFixed(0)} s`,
  );
  return marker;
}
