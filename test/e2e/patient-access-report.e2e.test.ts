import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { leafEventOf, leafHashOf } from '@audit-trail/integrity-verifier';
import {
  type AuditEventRecord,
  loadSchemaVersions,
  singleObjectCodec,
  formatTimestamp,
} from '@audit/shared/contract';
import { DurableProducer } from '@audit/shared/platform';
import { sampleRecord } from '@audit/shared/test-support';
import { tenantProfilesRepository } from '@audit/shared/tenants';
import pg from 'pg';
import { ingest, makeEvent, patientEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { startFhirValidator } from '../support/fhir-validator.js';
import { notaryFixture } from '../support/notary-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { pdfDrawnText, pdfText } from '../support/poppler.js';
import { waitFor } from '../support/wait-for.js';

// Ingest, projector (with the trees), gateway and notary as processes; the report read through the API only, and
// compared with an oracle written out by hand below.
const fx = pipelineFixture('patient-report', {}, { trees: true });
const { names } = fx;
const gw = gatewayFixture(names, { databaseUrl: fx.databaseUrl });
notaryFixture(names, () => gw.databaseUrl());
const tenant = names.tenant;
const other = `${names.tenant}-other`;
const PATIENT = 'p-1042';
// The patient's whole history: one of its disclosures is older than the default six years.
const ALL = `patient_id=${PATIENT}&since=2000-01-01T00:00:00Z`;
let key = '';
let otherKey = '';

type Status = 'use' | 'attempted' | 'excluded' | 'reportable';
interface Expected {
  event: ReturnType<typeof patientEvent>;
  status: Status;
  exclusion: string | null;
}

const base = Date.now() - 86_400_000;
/** An event of the tenant about the patient, with what the report must say of it. */
function about(i: number, fields: Record<string, unknown>, status: Status, exclusion: string | null = null) {
  return { event: patientEvent(tenant, i, base, PATIENT, fields), status, exclusion } as Expected;
}

// The oracle: each event labelled by hand with its place in a HIPAA accounting (164.528(a)(1)).
const expected: Expected[] = [
  about(0, { purpose_of_use: 'TREAT', user_id: 'Zoë Ñúñez' }, 'use'),
  about(1, { purpose_of_use: 'ETREAT', success: false }, 'use'),
  about(
    2,
    { action: 'phi.disclose', disclosure: true, purpose_of_use: 'HPAYMT', recipient: 'Payer' },
    'excluded',
    'treatment_payment_operations',
  ),
  about(
    3,
    { action: 'phi.disclose', disclosure: true, purpose_of_use: 'BTG', recipient: 'ER, "B"' },
    'excluded',
    'treatment_payment_operations',
  ),
  about(
    4,
    { action: 'phi.disclose', disclosure: true, recipient: 'Lawyer', accounting_exclusion: 'authorized' },
    'excluded',
    'authorized',
  ),
  about(
    5,
    { action: 'phi.disclose', disclosure: true, purpose_of_use: 'PUBHLTH', recipient: 'County health dept.' },
    'reportable',
  ),
  about(
    6,
    { action: 'phi.disclose', disclosure: true, purpose_of_use: 'HRESCH', recipient: 'Study 12,\nBoston' },
    'reportable',
  ),
  about(
    7,
    {
      action: 'phi.disclose',
      disclosure: true,
      recipient: 'Old clinic',
      timestamp: '2002-06-01T12:00:00.000Z',
    },
    'excluded',
    'before_compliance_date',
  ),
  about(8, { user_id: 'u-8', justification: 'chart review' }, 'use'),
  about(
    9,
    { action: 'phi.disclose', disclosure: true, purpose_of_use: 'GOV', recipient: 'State', success: false },
    'attempted',
  ),
  about(
    10,
    { action: 'phi.disclose', disclosure: true, purpose_of_use: 'HLEGAL', recipient: 'Court' },
    'reportable',
  ),
];
// Not in the report: another patient, no patient at all, and the same patient id in another tenant.
const elsewhere = [
  { ...makeEvent(tenant, 20, base), patient_id: 'p-9999' },
  makeEvent(tenant, 21, base),
  { ...makeEvent(other, 22, base), patient_id: PATIENT, phi_involved: true, action: 'phi.read' },
];
// Written by a producer of the contract's version 1, straight to the topic: no patient field at all.
const older = Array.from({ length: 3 }, () => sampleRecord({ tenant_id: tenant, timestamp: base + 30 }));

interface Row {
  event_id: string;
  timestamp: string;
  user_id: string;
  accounting_status: Status;
  exclusion: string | null;
  recipient: string;
  purpose_of_use: string;
  success: boolean;
  checkpoint: { tree_size: number; signed_at: string } | null;
}
interface Report {
  report: Record<string, string>;
  counts: Record<Status, number>;
  rows: Row[];
  page: { next_cursor: string | null; has_more: boolean; returned: number };
}

async function report(query: string, as = key) {
  const res = await gw.get(`/audit/reports/patient-access?${query}`, as);
  return { status: res.status, headers: res.headers, text: res.text };
}
const json = async (query: string, as = key) => {
  const res = await report(query, as);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text) as Report;
};

/** Every page of a JSON report, in order. */
async function allRows(query: string, limit: number): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const page: Report = await json(
      `${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    rows.push(...page.rows);
    cursor = page.page.next_cursor;
  } while (cursor);
  return rows;
}

const eventTimeOf = (e: Expected) => formatTimestamp(Date.parse(e.event.timestamp));

beforeAll(async () => {
  key = await gw.mint(tenant, 'audit:read,viewer:issue');
  otherKey = await gw.mint(other, 'audit:read');
  const v1 = loadSchemaVersions('audit-event')[0]!;
  const producer = new DurableProducer(fx.kafka);
  await producer.connect();
  await producer.send({
    topic: fx.topics.auditEvents.name,
    messages: older.map((r) => ({
      key: tenant,
      // A version 1 record: the fields it has, encoded with its own schema.
      value: singleObjectCodec<AuditEventRecord>([v1], v1).encode(r),
    })),
  });
  await producer.disconnect();
  const sent = await ingest(fx.ingest.url, names.ingestToken, [
    ...expected.map((e) => e.event),
    ...elsewhere,
  ]);
  expect(sent.status).toBe(202);
  // Every event stored and in a signed checkpoint: the report then carries one for each row.
  await waitFor('the report whole and checkpointed', async () => {
    const r = await json(`${ALL}&limit=1000`);
    return r.rows.length === expected.length && r.rows.every((row) => row.checkpoint !== null);
  });
}, 120_000);

describe('the patient access report', () => {
  it('lists every access and disclosure of the patient, marked as the oracle says, on every page and sort', async () => {
    for (const [sort, order] of [
      ['timestamp', 'desc'],
      ['user_id', 'asc'],
      ['accounting_status', 'desc'],
      ['recipient', 'asc'],
    ] as const) {
      const rows = await allRows(`${ALL}&sort=${sort}&order=${order}`, 2);
      expect(new Set(rows.map((r) => r.event_id)).size).toBe(expected.length);
      for (const e of expected) {
        const row = rows.find((r) => r.event_id === e.event.event_id);
        expect(row, e.event.event_id).toMatchObject({
          timestamp: eventTimeOf(e),
          user_id: e.event.user_id,
          accounting_status: e.status,
          exclusion: e.exclusion,
          recipient: (e.event as { recipient?: string }).recipient ?? '',
          success: e.event.success,
        });
      }
      const keys = rows.map((r) => (sort === 'timestamp' ? r.timestamp : (r[sort] ?? '')));
      const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(keys).toEqual(order === 'asc' ? sorted : sorted.reverse());
    }
    const whole = await json(ALL);
    expect(whole.counts).toEqual({ use: 3, attempted: 1, excluded: 4, reportable: 3 });
    // By default the last six years: the disclosure of 2002 is left out.
    const recent = await json(`patient_id=${PATIENT}&limit=1000`);
    expect(recent.rows.map((r) => r.exclusion)).not.toContain('before_compliance_date');
    expect(recent.rows).toHaveLength(expected.length - 1);
  });

  it('gives only the disclosures the patient is owed in accounting mode', async () => {
    const r = await json(`${ALL}&mode=accounting&sort=timestamp&order=asc`);
    expect(r.rows.map((row) => row.event_id)).toEqual(
      expected.filter((e) => e.status === 'reportable').map((e) => e.event.event_id),
    );
  });

  it('proves each row in the checkpoint it names, from the event the API returns', async () => {
    const r = await json(`${ALL}&limit=1000`);
    for (const row of r.rows) {
      const looked = JSON.parse((await gw.get(`/audit/events/${row.event_id}`, key)).text) as Record<
        string,
        unknown
      >;
      const proof = JSON.parse(
        (
          await gw.get(
            `/audit/integrity/proofs/inclusion?event_id=${row.event_id}&tree_size=${row.checkpoint!.tree_size}`,
            key,
          )
        ).text,
      ) as { leaf_hash: string; tree_size: number };
      expect(proof.tree_size).toBe(row.checkpoint!.tree_size);
      expect(Buffer.from(leafHashOf(leafEventOf(looked))).toString('base64')).toBe(proof.leaf_hash);
    }
  });

  it('gives the same rows as CSV, read back by a CSV reader', async () => {
    const res = await report(`${ALL}&format=csv&sort=event_id&order=asc`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const records = parse(res.text, { columns: true }) as Record<string, string>[];
    const oracle = [...expected].sort((a, b) => (a.event.event_id < b.event.event_id ? -1 : 1));
    expect(records.map((r) => r.event_id)).toEqual(oracle.map((e) => e.event.event_id));
    for (const [i, e] of oracle.entries()) {
      expect(records[i]).toMatchObject({
        timestamp: eventTimeOf(e),
        user_id: e.event.user_id,
        recipient: (e.event as { recipient?: string }).recipient ?? '',
        accounting_status: e.status,
        exclusion: e.exclusion ?? '',
        fields_accessed: '["dob"]',
      });
      expect(Number(records[i]!.checkpoint_tree_size)).toBeGreaterThan(0);
    }
  });

  it('gives the same rows as a PDF headed with the tenant’s name, read back by pdftotext', async () => {
    const pool = new pg.Pool({ connectionString: gw.databaseUrl(), max: 1 });
    await tenantProfilesRepository.setDisplayName(pool, tenant, 'Riverside Community Hospital', 'test');
    await pool.end();
    const res = await gw.getBytes(
      `/audit/reports/patient-access?${ALL}&format=pdf&sort=timestamp&order=asc`,
      key,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const text = await pdfText(res.body);
    expect(text).toContain('Riverside Community Hospital');
    expect(text).toContain(PATIENT);
    expect(text).toMatch(/2000-01-01 to before \d{4}-\d{2}-\d{2}/);
    const drawn = (await pdfDrawnText(res.body)).replace(/\s+/g, '');
    const at = expected.map((e) => drawn.indexOf(e.event.event_id));
    expect(at.every((i) => i >= 0)).toBe(true);
    const chronological = [...expected].sort(
      (a, b) => Date.parse(a.event.timestamp) - Date.parse(b.event.timestamp),
    );
    expect(chronological.map((e) => drawn.indexOf(e.event.event_id))).toEqual([...at].sort((a, b) => a - b));
  });

  it('gives the report as an R4 Bundle and one event as an AuditEvent, both valid for HAPI FHIR’s validator', async () => {
    const res = await report(`${ALL}&format=fhir`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/fhir+json; charset=utf-8');
    const bundle = JSON.parse(res.text) as {
      resourceType: string;
      total: number;
      link: { relation: string; url: string }[];
      entry: { resource: { id: string } }[];
    };
    expect(bundle).toMatchObject({ resourceType: 'Bundle', total: expected.length });
    expect(bundle.link).toEqual([
      { relation: 'self', url: `/api/v2/public/audit/reports/patient-access?${ALL}&format=fhir` },
    ]);
    expect(bundle.entry.map((e) => e.resource.id).sort()).toEqual(
      expected.map((e) => e.event.event_id).sort(),
    );
    const one = await gw.get(`/audit/events/${expected[5]!.event.event_id}`, key, {
      accept: 'application/fhir+json',
    });
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toBe('application/fhir+json; charset=utf-8');
    expect(JSON.parse(one.text)).toMatchObject({
      resourceType: 'AuditEvent',
      id: expected[5]!.event.event_id,
    });
    // Refused by the client (q=0), or not named: the API's own JSON.
    for (const accept of ['application/fhir+json;q=0, application/json', 'application/json', '*/*']) {
      const plain = await gw.get(`/audit/events/${expected[5]!.event.event_id}`, key, { accept });
      expect(plain.headers.get('content-type'), accept).toMatch(/^application\/json/);
    }
    const validator = await startFhirValidator();
    try {
      expect(await validator.errors(bundle)).toEqual([]);
      expect(await validator.errors(JSON.parse(one.text))).toEqual([]);
    } finally {
      await validator.close();
    }
  }, 120_000);

  it('never crosses tenants: the same patient id elsewhere is another patient', async () => {
    const mine = await json(`${ALL}&limit=1000`);
    expect(mine.rows.map((r) => r.event_id)).not.toContain(elsewhere[2]!.event_id);
    const theirs = await waitFor('the other tenant’s event', async () => {
      const r = await json(`patient_id=${PATIENT}`, otherKey);
      return r.rows.length > 0 && r;
    });
    expect(theirs.rows.map((r) => r.event_id)).toEqual([elsewhere[2]!.event_id]);
  });

  it('keeps the version 1 records in the trail beside the version 2 ones, readable and provable', async () => {
    for (const record of older) {
      const res = await waitFor('the version 1 record', async () => {
        const r = await gw.get(`/audit/events/${record.event_id}`, key);
        return r.status === 200 && (JSON.parse(r.text) as Record<string, unknown>);
      });
      expect(res).toMatchObject({ patient_id: '', purpose_of_use: '', disclosure: false, recipient: '' });
      const proof = await waitFor('its leaf', async () => {
        const r = await gw.get(`/audit/integrity/proofs/inclusion?event_id=${record.event_id}`, key);
        return r.status === 200 && (JSON.parse(r.text) as { leaf_hash: string });
      });
      expect(Buffer.from(leafHashOf(leafEventOf(res))).toString('base64')).toBe(proof.leaf_hash);
    }
  });

  it('records every report read in the trail, naming the patient', async () => {
    const before = await json(`patient_id=${PATIENT}&mode=accounting&format=json`);
    const trail = await waitFor('the report’s audit event', async () => {
      const res = await gw.get(
        `/audit/events?action=audit.report.patient_access&patient_id=${PATIENT}&limit=1000`,
        key,
      );
      const events = (JSON.parse(res.text) as { events: Record<string, unknown>[] }).events;
      return events.find((e) => String(e.details).includes(`"until":"${before.report.until}"`)) ?? false;
    });
    expect(trail).toMatchObject({
      resource_type: 'patient_access_report',
      phi_involved: true,
      success: true,
    });
    expect(JSON.parse(String(trail.details))).toMatchObject({
      mode: 'accounting',
      format: 'json',
      rows: before.rows.length,
      until: before.report.until,
    });
  });

  it('refuses bad input with a 422 naming each field, and a key without audit:read with a 403 it records', async () => {
    const fields = async (query: string) => {
      const res = await report(query);
      expect(res.status, res.text).toBe(422);
      return (JSON.parse(res.text) as { details: { field: string }[] }).details.map((d) => d.field);
    };
    expect(await fields('')).toEqual(['patient_id']);
    expect(await fields(`patient_id=${PATIENT}&sort=name&mode=x`)).toEqual(['mode', 'sort']);
    expect(await fields(`patient_id=${PATIENT}&format=csv&limit=5`)).toEqual(['limit']);
    const first = await json(`patient_id=${PATIENT}&limit=2`);
    expect(
      await fields(`patient_id=p-9999&limit=2&cursor=${encodeURIComponent(first.page.next_cursor!)}`),
    ).toEqual(['cursor']);
    expect(await fields(`patient_id=${PATIENT}&since=2030-01-01T00:00:00Z`)).toEqual(['since']);

    const exporter = await gw.mint(tenant, 'audit:export');
    expect((await report(`patient_id=${PATIENT}`, exporter)).status).toBe(403);
    await waitFor('the refusal in the trail', async () => {
      const res = await gw.get('/audit/events?action=audit.report.patient_access&success=false', key);
      return (JSON.parse(res.text) as { events: unknown[] }).events.length > 0;
    });
  });

  it('shows a viewer token narrowed to the patient their report, and no other patient’s', async () => {
    const made = await gw.send('POST', '/audit/viewer-tokens', key, {
      scopes: ['audit:read'],
      narrowed_to: { patient_id: PATIENT },
    });
    expect(made.status, made.text).toBe(201);
    const token = (JSON.parse(made.text) as { token: string }).token;
    expect((await json(`${ALL}&limit=1000`, token)).rows).toHaveLength(expected.length);
    expect((await report('patient_id=p-9999', token)).status).toBe(403);
    const unknown = randomUUID();
    expect((await report(`patient_id=${unknown}`)).status).toBe(200);
  });
});
