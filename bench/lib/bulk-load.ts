// The read benchmark's dataset, generated inside ClickHouse (INSERT … SELECT FROM numbers()) into the project's own
// tables: a Node TSV loader would need minutes for 20 million rows, the server needs about one.
import { dropClickHouseDatabase, migrateClickHouse } from '@audit/shared/migrations';
import {
  createClickHouse,
  sleep,
  sqlIdentifier,
  sqlValue,
  type ClickHouseClient,
  type ClickHouseSettings,
} from '@audit/shared/platform';
import { VIEW_FRIENDLY_BLOCKS } from '../../services/ops/src/adapters/projection-tables.admin.js';
import { runPool } from './pool.js';

/** Bump when the generator changes: a kept dataset of another version is reloaded. */
const VERSION = 'read-bench-v3';
const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** The whole history: two years before now. */
const WEEKS = 104;
const OTHER_TENANTS = 200;

export const TARGET_TENANT = 'bench-target';

/**
 * The target tenant's history, in weeks before now and shares of its events: a steady older year, a gap of six
 * months, dense recent weeks with a one-day burst among them, and a quiet stretch of nine weeks up to now (a
 * tenant that went quiet, or history loaded from an older system). Other tenants are spread over all 104 weeks.
 */
export const TARGET_SHAPE = {
  older: { fromWeek: 104, toWeek: 60, share: 0.2 },
  dense: { fromWeek: 34, toWeek: 9, share: 0.7 },
  burst: { week: 20, hours: 6, share: 0.1 },
} as const;

/**
 * Filter values and their share of every tenant's events (per million), as the generator below draws them: for
 * each filter, values at about 10 %, 0.1 %, 0.001 % (one patient's record) and none, and where the field allows
 * it, one of most events.
 */
export const FILTER_VALUES = {
  action: {
    '10 %': 'auth.login',
    '0.1 %': 'phi.break_glass',
    '0.001 %': 'phi.emergency_access',
    '0 %': 'admin.key.create',
    '45 %': 'phi.read',
  },
  action_prefix: {
    '75 %': 'phi.',
    '10 %': 'auth.',
    '0.1 %': 'phi.break',
    '0.001 %': 'phi.emerg',
    '0 %': 'zzz.',
  },
  resource_type: {
    '40 %': 'patient',
    '10 %': 'lab_result',
    '0.1 %': 'genomic_report',
    '0.001 %': 'consent_form',
    '0 %': 'invoice',
  },
  user_id: { '10 %': 'svc-batch', '0.1 %': 'dr-busy', '0.001 %': 'auditor-7', '0 %': 'nobody' },
  resource_id: { '10 %': 'shared-board', '0.1 %': 'pat-hot', '0.001 %': 'pat-123', '0 %': 'pat-none' },
  source_ip: { '10 %': '10.0.0.1', '0.1 %': '10.0.0.2', '0.001 %': '10.0.0.3', '0 %': '192.0.2.1' },
  success: { '98.5 %': 'true', '1.5 %': 'false' },
  phi_involved: { '75 %': 'true', '25 %': 'false' },
  patient_id: { '10 %': 'pt-ward-7', '0.1 %': 'pt-busy', '0.001 %': 'pt-rare', '0 %': 'pt-none' },
} as const;

/**
 * The patient of the report's measurements: REPORT_ROWS events of the target tenant over the six years before the
 * data's end (a report's default window), a tenth of them disclosures; the only events older than the 104 weeks.
 */
export const REPORT_PATIENT = 'pt-report';
export const REPORT_ROWS = 5000;
const REPORT_YEARS_MS = 6 * 365 * DAY_MS;

const ACTIONS: [string, number][] = [
  ['phi.read', 450_000],
  ['phi.query', 200_000],
  ['auth.login', 100_000],
  ['record.update', 100_000],
  ['phi.export', 50_000],
  ['admin.user.update', 49_000],
  ['phi.break_glass', 1000],
  ['phi.emergency_access', 10],
  ['phi.decrypt', 49_990],
];
const RESOURCE_TYPES: [string, number][] = [
  ['patient', 400_000],
  ['claim', 250_000],
  ['lab_result', 100_000],
  ['genomic_report', 1000],
  ['consent_form', 10],
  ['encounter', 150_000],
  ['prescription', 98_990],
];
/** A value of the given shares (per million), else the expression `rest`. */
function special(choices: [string, number][], seed: number, rest: string): string {
  let bound = 0;
  const arms = choices.flatMap(([value, weight]) => {
    bound += weight;
    return [`${h(seed)} % 1000000 < ${bound}`, sqlValue(value)];
  });
  return `multiIf(${arms.join(', ')}, ${rest})`;
}
export const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
  'ehr-portal/4.12.1 (iOS 17.2)',
  'claims-batch/2.3.0 node/20.11.0',
  'python-requests/2.31.0',
];
export const FIELDS = [
  '["dob"]',
  '["dob","ssn"]',
  '["name","dob","address"]',
  '["diagnosis","medications"]',
  '["lab_values"]',
];

export const COLUMNS = `tenant_id, ts, event_id, action, user_id, user_role, resource_type, resource_id, fields_accessed,
  phi_involved, source_ip, user_agent, justification, success, details, ingested_at, patient_id`;

export interface Dataset {
  events: number;
  startMs: number;
  endMs: number;
}

const h = (seed: number) => `cityHash64(g, ${seed})`;
const array = (items: readonly string[]) => `[${items.map(sqlValue).join(', ')}]`;
const pick = (items: readonly string[], seed: number) => `${array(items)}[1 + ${h(seed)} % ${items.length}]`;

/** A weighted choice among values whose weights add up to a million. */
function weighted(choices: [string, number][], seed: number): string {
  return special(choices.slice(0, -1), seed, sqlValue(choices.at(-1)![0]));
}

// Office hours carry most of the traffic: weekdays 08:00-18:00 UTC at full rate, nights at 15 %, weekends at
// 30 % of that. Candidates are drawn uniformly over the week and kept with that probability (parts per million).
const KEEP_PPM = `multiIf(toDayOfWeek(toDateTime(intDiv(ts, 1000)), 'UTC') >= 6, 300, 1000)
  * multiIf(toHour(toDateTime(intDiv(ts, 1000)), 'UTC') BETWEEN 8 AND 17, 1000, 150)`;
const MEAN_KEEP = (5 * (10 + 14 * 0.15) + 2 * 0.3 * (10 + 14 * 0.15)) / (7 * 24);

/**
 * `rows` events of one tenant (or of the others) in [fromMs, fromMs + spanMs): in office hours' shape, or, for a
 * burst, evenly. `firstCandidate` keeps every span's hashes apart.
 */
function insertSpan(
  tenant: string,
  span: { fromMs: number; spanMs: number; shaped: boolean },
  rows: number,
  firstCandidate: number,
) {
  const candidates = Math.ceil(((rows + 100) / (span.shaped ? MEAN_KEEP : 1)) * 1.3);
  const tenantExpr =
    tenant === TARGET_TENANT
      ? sqlValue(TARGET_TENANT)
      : // Other tenants' sizes are skewed, as real customers' are.
        `concat('bench-other-', toString(toUInt32(pow((${h(3)} % 1000) / 1000, 2) * ${OTHER_TENANTS})))`;
  const v = FILTER_VALUES;
  return `INSERT INTO audit_events (${COLUMNS})
    SELECT tenant_id, ts, toString(generateUUIDv4()) AS event_id, action,
      ${special(
        [
          [v.user_id['10 %'], 100_000],
          [v.user_id['0.1 %'], 1000],
          [v.user_id['0.001 %'], 10],
        ],
        7,
        `concat('user-', toString(${h(19)} % 5000))`,
      )} AS user_id,
      ${pick(['clinician', 'clinician', 'clinician', 'nurse', 'nurse', 'billing', 'admin', 'service'], 8)} AS user_role,
      resource_type,
      ${special(
        [
          [v.resource_id['10 %'], 100_000],
          [v.resource_id['0.1 %'], 1000],
          [v.resource_id['0.001 %'], 10],
        ],
        6,
        `concat(substring(resource_type, 1, 3), '_', toString(${h(20)} % 2000000))`,
      )} AS resource_id,
      if(phi, ${pick(FIELDS, 9)}, '[]') AS fields_accessed,
      phi AS phi_involved,
      ${special(
        [
          [v.source_ip['10 %'], 100_000],
          [v.source_ip['0.1 %'], 1000],
          [v.source_ip['0.001 %'], 10],
        ],
        10,
        `concat('10.', toString(1 + ${h(21)} % 255), '.', toString(intDiv(${h(21)}, 256) % 256), '.', toString(intDiv(${h(21)}, 65536) % 256))`,
      )} AS source_ip,
      ${pick(USER_AGENTS, 11)} AS user_agent,
      if(phi AND ${h(12)} % 10 < 6, ${array(['treatment', 'payment', 'operations'])}[1 + intDiv(${h(12)}, 10) % 3], '')
        AS justification,
      ${h(13)} % 1000 >= 15 AS success,
      concat('{"request_id":"', lower(hex(${h(14)})), '","method":"', ${pick(['GET', 'GET', 'GET', 'POST', 'PUT'], 15)},
        '","path":"/v2/', resource_type, 's/', resource_id, '","duration_ms":', toString(${h(16)} % 900 + 3),
        ',"session":"', lower(hex(${h(17)})), '"}') AS details,
      ts + 200 + ${h(18)} % 3000 AS ingested_at,
      ${special(
        [
          [v.patient_id['10 %'], 100_000],
          [v.patient_id['0.1 %'], 1000],
          [v.patient_id['0.001 %'], 10],
        ],
        22,
        `if(phi, concat('pt-', toString(${h(23)} % 2000000)), '')`,
      )} AS patient_id
    FROM (
      SELECT g, ts, ${tenantExpr} AS tenant_id, ${weighted(ACTIONS, 4)} AS action,
        ${weighted(RESOURCE_TYPES, 5)} AS resource_type, substring(action, 1, 4) = 'phi.' AS phi
      FROM (
        SELECT ${firstCandidate} + number AS g, ${span.fromMs} + ${h(0)} % ${span.spanMs} AS ts
        FROM numbers(${candidates})
      )
      WHERE ${span.shaped ? `${h(1)} % 1000000 < ${KEEP_PPM}` : '1'}
      LIMIT ${rows}
    )`;
}

/**
 * The report patient's events (REPORT_PATIENT): spread evenly over the six years before `endMs`, by a few dozen
 * users; every tenth a disclosure, of purposes that the accounting excludes and that it does not.
 */
function insertReportPatient(endMs: number) {
  return `INSERT INTO audit_events (${COLUMNS}, purpose_of_use, recipient, disclosure)
    SELECT ${sqlValue(TARGET_TENANT)} AS tenant_id,
      ${endMs - REPORT_YEARS_MS} + intDiv(g * ${REPORT_YEARS_MS}, ${REPORT_ROWS}) + ${h(1)} % 60000 AS ts,
      toString(generateUUIDv4()) AS event_id,
      if(g % 10 = 0, 'phi.disclose', ${pick(['phi.read', 'phi.read', 'phi.query', 'phi.update'], 2)}) AS action,
      concat('user-', toString(${h(3)} % 40)) AS user_id,
      ${pick(['clinician', 'nurse', 'billing', 'records clerk'], 4)} AS user_role,
      'patient' AS resource_type, ${sqlValue(REPORT_PATIENT)} AS resource_id, ${pick(FIELDS, 9)} AS fields_accessed,
      1 AS phi_involved, '10.1.2.3' AS source_ip, ${sqlValue(USER_AGENTS[0]!)} AS user_agent, '' AS justification,
      1 AS success, '{}' AS details, ts + 500 AS ingested_at, ${sqlValue(REPORT_PATIENT)} AS patient_id,
      ${pick(['TREAT', 'HPAYMT', 'HOPERAT', 'PUBHLTH', 'HRESCH'], 5)} AS purpose_of_use,
      if(g % 10 = 0, concat('Recipient ', toString(${h(6)} % 20), ', 1 Main St'), '') AS recipient,
      g % 10 = 0 AS disclosure
    FROM (SELECT number AS g FROM numbers(${REPORT_ROWS}))`;
}

/** The target tenant's spans (TARGET_SHAPE) and the others' weeks, each with its rows. */
function spans(half: number, endMs: number) {
  const { older, dense, burst } = TARGET_SHAPE;
  const weeksOf = (fromWeek: number, toWeek: number, rows: number) => {
    const n = fromWeek - toWeek;
    return Array.from({ length: n }, (_, i) => ({
      fromMs: endMs - (fromWeek - i) * WEEK_MS,
      spanMs: WEEK_MS,
      shaped: true,
      rows: i === n - 1 ? rows - Math.floor(rows / n) * (n - 1) : Math.floor(rows / n),
    }));
  };
  const olderRows = Math.round(half * older.share);
  const burstRows = Math.round(half * burst.share);
  const target = [
    ...weeksOf(older.fromWeek, older.toWeek, olderRows),
    // The report patient's events (insertReportPatient) count among the tenant's half.
    ...weeksOf(dense.fromWeek, dense.toWeek, half - olderRows - burstRows - REPORT_ROWS),
    {
      fromMs: endMs - burst.week * WEEK_MS + 2 * DAY_MS + 9 * 3_600_000,
      spanMs: burst.hours * 3_600_000,
      shaped: false,
      rows: burstRows,
    },
  ].map((s) => ({ ...s, tenant: TARGET_TENANT }));
  const others = weeksOf(WEEKS, 0, half).map((s) => ({ ...s, tenant: 'others' }));
  return [...target, ...others];
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
 * The dataset of `events` rows, half of them the target tenant's (TARGET_SHAPE), the rest over the 104 weeks before now; kept
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
  // One span's insert also fills the filter index and its summary: minutes for the largest.
  const ch = createClickHouse(settings, settings.database, 3_600_000);
  const endMs = Math.floor(Date.now() / 60_000) * 60_000;
  const startMs = endMs - WEEKS * WEEK_MS;
  const all = spans(events / 2, endMs);
  const started = performance.now();
  let done = 0;
  await runPool(all.length, 2, async (i) => {
    const span = all[i]!;
    // Hash seeds far apart: every span draws its own candidates.
    await ch.command({
      query: insertSpan(span.tenant, span, span.rows, i * 100_000_000),
      clickhouse_settings: VIEW_FRIENDLY_BLOCKS,
    });
    done += span.rows;
    if (i % 20 === 0) log(`  … ${done.toLocaleString('en-US')} of ${events.toLocaleString('en-US')} events`);
  });
  await ch.command({ query: insertReportPatient(endMs), clickhouse_settings: VIEW_FRIENDLY_BLOCKS });
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
