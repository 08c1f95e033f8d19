import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTimestamp } from '@audit/shared/contract';
import { ingest, makeEvent, patientEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { notaryFixture } from '../support/notary-fixture.js';
import { opsCli } from '../support/ops-cli.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { pdfText } from '../support/poppler.js';
import { waitFor } from '../support/wait-for.js';

// Ingest, projector (with the trees), gateway and notary as processes; the operator CLI in-process on the same
// topics and databases, its reports compared with the API's of the same window.
const fx = pipelineFixture('ops-reports', {}, { trees: true });
const { names } = fx;
const gw = gatewayFixture(names, { databaseUrl: fx.databaseUrl });
notaryFixture(names, () => gw.databaseUrl());
const ops = opsCli(names, () => gw.databaseUrl());
const dir = mkdtempSync(join(tmpdir(), 'ops-reports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The command run with --json, expected to succeed: its output parsed. */
async function ok<T = Record<string, unknown>>(...argv: string[]) {
  const res = await ops([...argv, '--json']);
  expect(res.code, res.err).toBe(0);
  return res.json<T>();
}

/** The command run as given, expected to be refused as wrong usage with `error` named. */
async function refused(argv: string[], error: string) {
  const res = await ops(argv);
  expect(res.code, res.err).toBe(2);
  expect(res.err).toContain(error);
}

/** The tenant's events of an action, newest first, through the API. */
async function trail(key: string, action: string) {
  const res = await gw.get(`/audit/events?action=${action}&limit=1000`, key);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { events: Record<string, unknown>[] }).events;
}

const detailsOf = (event: Record<string, unknown>) => JSON.parse(String(event.details)) as unknown;

describe('ops tenants', () => {
  it('names a tenant, shows the name, and records each change in its trail', async () => {
    const tenant = `${names.tenant}-named`;
    // Only the service writes the action: a producer's is refused (and the trail below holds none).
    const forged = { ...makeEvent(tenant, 0), action: 'admin.tenant.update' };
    expect((await ingest(fx.ingest.url, names.ingestToken, [forged])).status).toBe(422);
    expect(await ok('tenants', 'show', '--tenant', tenant)).toEqual({
      tenant_id: tenant,
      display_name: null,
    });
    expect(await ok('tenants', 'set-name', '--tenant', tenant, '--name', 'Acme Clinic')).toEqual({
      tenant_id: tenant,
      display_name: 'Acme Clinic',
      previous: null,
    });
    // 200 characters as Postgres counts them, 400 UTF-16 units.
    const longest = '🏥'.repeat(200);
    expect(await ok('tenants', 'set-name', '--tenant', tenant, '--name', longest)).toMatchObject({
      previous: 'Acme Clinic',
    });
    expect(await ok('tenants', 'show', '--tenant', tenant)).toEqual({
      tenant_id: tenant,
      display_name: longest,
    });
    expect((await ops(['tenants', 'show', '--tenant', tenant])).out).toBe(`${tenant}: "${longest}"`);

    const key = await gw.mint(tenant, 'audit:read');
    const changes = await waitFor('both changes in the trail', async () => {
      const events = await trail(key, 'admin.tenant.update');
      return events.length === 2 && events;
    });
    for (const event of changes) {
      expect(event).toMatchObject({
        tenant_id: tenant,
        user_id: 'operator:test',
        user_role: 'operator',
        resource_type: 'tenant',
        resource_id: tenant,
        phi_involved: false,
        success: true,
        user_agent: 'audit-ops-cli',
      });
    }
    expect(changes.map(detailsOf)).toEqual([
      { display_name: longest, previous: 'Acme Clinic' },
      { display_name: 'Acme Clinic', previous: null },
    ]);
  });

  it('refuses a malformed tenant id or name with exit 2, and changes nothing', async () => {
    const tenant = `${names.tenant}-kept`;
    await ok('tenants', 'set-name', '--tenant', tenant, '--name', 'Kept Clinic');
    const setName = (...argv: string[]) => ['tenants', 'set-name', ...argv];
    await refused(setName('--tenant', 'no/such tenant', '--name', 'Other'), '--tenant: must be a tenant id');
    await refused(setName('--tenant', tenant, '--name', ''), '--name: must not be empty');
    await refused(
      setName('--tenant', tenant, '--name', 'x'.repeat(201)),
      '--name: is at most 200 characters',
    );
    await refused(setName('--tenant', tenant, '--name', 'Two\nlines'), '--name: must be one line');
    await refused(setName('--tenant', tenant), '--name: is required');
    await refused(
      setName('--tenant', tenant, '--name', 'Other', '--patient', 'p-1'),
      '--patient does not apply to tenants set-name',
    );
    expect(await ok('tenants', 'show', '--tenant', tenant)).toMatchObject({ display_name: 'Kept Clinic' });

    // The same name once more: its event follows any a refusal would have written, in the tenant's partition.
    await ok('tenants', 'set-name', '--tenant', tenant, '--name', 'Kept Clinic');
    const key = await gw.mint(tenant, 'audit:read');
    const changes = await waitFor('the second change in the trail', async () => {
      const events = await trail(key, 'admin.tenant.update');
      return events.length >= 2 && events;
    });
    expect(changes.map(detailsOf)).toEqual([
      { display_name: 'Kept Clinic', previous: 'Kept Clinic' },
      { display_name: 'Kept Clinic', previous: null },
    ]);
  });
});

describe('ops reports patient-access', () => {
  const tenant = `${names.tenant}-clinic`;
  const NAME = 'Riverside Family Practice';
  const PATIENT = 'p-2001';
  // One window for the API and the CLI alike, given whole, in the API's time text.
  const SINCE = formatTimestamp(Date.UTC(2000, 0, 1));
  const UNTIL = formatTimestamp(Date.now() + 3_600_000);
  const WINDOW = ['--since', SINCE, '--until', UNTIL];
  const QUERY = `patient_id=${PATIENT}&since=${encodeURIComponent(SINCE)}&until=${encodeURIComponent(UNTIL)}`;
  const base = Date.now() - 86_400_000;
  const about = (i: number, fields: Record<string, unknown> = {}) =>
    patientEvent(tenant, i, base, PATIENT, fields);
  const disclosure = (i: number, fields: Record<string, unknown>) =>
    about(i, { action: 'phi.disclose', disclosure: true, ...fields });
  const events = [
    about(0, { purpose_of_use: 'TREAT', user_id: 'Zoë Ñúñez' }),
    about(1, { justification: 'chart review, "urgent"' }),
    disclosure(2, { purpose_of_use: 'HPAYMT', recipient: 'Payer' }),
    disclosure(3, { purpose_of_use: 'PUBHLTH', recipient: 'County health dept.' }),
    disclosure(4, { purpose_of_use: 'HRESCH', recipient: 'Study 12,\nBoston' }),
    disclosure(5, { recipient: 'Old clinic', timestamp: '2002-06-01T12:00:00.000Z' }),
  ];
  const ids = events.map((e) => e.event_id);
  let key = '';

  interface ApiReport {
    report: Record<string, string>;
    counts: Record<string, number>;
    rows: { event_id: string }[];
  }
  async function api(query: string) {
    const res = await gw.get(`/audit/reports/patient-access?${QUERY}&${query}`, key);
    expect(res.status, res.text).toBe(200);
    return res.text;
  }
  const reportArgs = (...argv: string[]) => [
    'reports',
    'patient-access',
    '--tenant',
    tenant,
    '--patient',
    PATIENT,
    ...WINDOW,
    ...argv,
  ];
  const report = (...argv: string[]) => ops(reportArgs(...argv));
  async function reported(...argv: string[]) {
    const res = await report(...argv);
    expect(res.code, res.err).toBe(0);
    return res.out;
  }
  const withoutTime = ({ generated_at: _, ...heading }: Record<string, string>) => heading;

  beforeAll(async () => {
    key = await gw.mint(tenant, 'audit:read');
    await ok('tenants', 'set-name', '--tenant', tenant, '--name', NAME);
    const elsewhere = { ...makeEvent(tenant, 9, base), patient_id: 'p-9999' };
    expect((await ingest(fx.ingest.url, names.ingestToken, [...events, elsewhere])).status).toBe(202);
    // Every event stored and in a signed checkpoint: both reports then carry the same checkpoint on each row.
    await waitFor('the report whole and checkpointed', async () => {
      const r = JSON.parse(await api('limit=1000')) as { rows: { checkpoint: unknown }[] };
      return r.rows.length === events.length && r.rows.every((row) => row.checkpoint !== null);
    });
  }, 120_000);

  it("gives the API's report as JSON, whole, in either mode and any order", async () => {
    for (const [options, query] of [
      [[], ''],
      [['--mode', 'accounting'], '&mode=accounting'],
      [['--sort', 'recipient', '--order', 'asc'], '&sort=recipient&order=asc'],
    ] as const) {
      const theirs = JSON.parse(await api(`limit=1000${query}`)) as ApiReport;
      const mine = JSON.parse(await reported(...options)) as ApiReport;
      expect(mine.rows).toEqual(theirs.rows);
      expect(mine.counts).toEqual(theirs.counts);
      expect(withoutTime(mine.report)).toEqual(withoutTime(theirs.report));
      expect(mine.report).toMatchObject({
        tenant_name: NAME,
        patient_id: PATIENT,
        since: SINCE,
        until: UNTIL,
      });
    }
    const all = JSON.parse(await reported()) as ApiReport;
    expect(new Set(all.rows.map((r) => r.event_id))).toEqual(new Set(ids));
    expect(all.counts).toEqual({ use: 2, attempted: 0, excluded: 2, reportable: 2 });
  });

  it("gives the API's CSV, byte for byte, on stdout and in a file", async () => {
    const theirs = await api('format=csv&sort=event_id&order=asc');
    // The CLI's stdout ends its output with the line break the test's capture leaves out.
    const stdout = `${await reported('--format', 'csv', '--sort', 'event_id', '--order', 'asc')}\n`;
    expect(stdout).toBe(theirs);
    const records = parse(stdout, { columns: true }) as Record<string, string>[];
    expect(records.map((r) => r.event_id)).toEqual([...ids].sort());
    expect(records.find((r) => r.event_id === events[4]!.event_id)).toMatchObject({
      recipient: 'Study 12,\nBoston',
      accounting_status: 'reportable',
    });
    const file = join(dir, 'report.csv');
    await ok(...reportArgs('--format', 'csv', '--sort', 'event_id', '--order', 'asc', '--out', file));
    expect(readFileSync(file, 'utf8')).toBe(theirs);
  });

  it('writes the PDF to a file readable by its owner only, headed with the name, naming every event', async () => {
    const file = join(dir, 'report.pdf');
    const summary = await ok<{
      path: string;
      format: string;
      rows: number;
      bytes: number;
      report_id: string;
    }>(...reportArgs('--format', 'pdf', '--out', file));
    expect(summary).toMatchObject({ path: file, format: 'pdf', rows: events.length });
    const pdf = readFileSync(file);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(statSync(file).size).toBe(summary.bytes);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = await pdfText(pdf);
    expect(text).toContain(NAME);
    expect(text).toContain(PATIENT);
    for (const id of ids) expect(text).toContain(id);

    // The read in the trail, as the API's reads are: the operator, the patient, what was given.
    const read = await waitFor('the read in the trail', async () =>
      (await trail(key, 'audit.report.patient_access')).find((e) => e.resource_id === summary.report_id),
    );
    expect(read).toMatchObject({
      patient_id: PATIENT,
      user_id: 'operator:test',
      user_role: 'operator',
      user_agent: 'audit-ops-cli',
      resource_type: 'patient_access_report',
      phi_involved: true,
      success: true,
    });
    expect(detailsOf(read)).toEqual({
      since: SINCE,
      until: UNTIL,
      mode: 'access',
      format: 'pdf',
      rows: events.length,
    });
  });

  it('gives the report as a FHIR Bundle, one AuditEvent for each row', async () => {
    const theirs = JSON.parse(await api('format=fhir')) as { entry: unknown[] };
    const bundle = JSON.parse(await reported('--format', 'fhir')) as {
      resourceType: string;
      total: number;
      entry: { fullUrl: string; resource: { resourceType: string } }[];
    };
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'searchset', total: events.length });
    expect(bundle.entry).toHaveLength(events.length);
    expect(bundle.entry.every((e) => e.resource.resourceType === 'AuditEvent')).toBe(true);
    expect(new Set(bundle.entry.map((e) => e.fullUrl))).toEqual(new Set(ids.map((id) => `urn:uuid:${id}`)));
    expect(bundle.entry).toEqual(theirs.entry);
  });

  it('refuses wrong usage with exit 2 before anything is read or recorded', async () => {
    const quiet = `${names.tenant}-quiet`;
    const run = (...argv: string[]) => ['reports', 'patient-access', '--tenant', quiet, ...argv];
    const existing = join(dir, 'existing.pdf');
    writeFileSync(existing, 'kept');
    await refused(run('--patient', PATIENT, '--format', 'pdf'), '--out: is required with --format pdf');
    await refused(run('--patient', PATIENT, '--since', 'last week'), '--since: must be an RFC 3339');
    await refused(
      run('--patient', PATIENT, '--since', '2026-02-01T00:00:00Z', '--until', '2026-01-01T00:00:00Z'),
      '--since: must be earlier than until',
    );
    await refused(run('--patient', PATIENT, '--since', '9999-01-01T00:00:00Z'), '--since: must be earlier');
    await refused(run(), '--patient: is required');
    await refused(run('--patient', PATIENT, '--sort', 'name'), '--sort: must be one of');
    await refused(run('--patient', PATIENT, '--format', 'pdf', '--out', existing), 'exists');
    await refused(run('--patient', PATIENT, '--out', join(dir, 'no-such-dir', 'r.json')), '--out');
    await refused(['reports', 'patient-access', '--tenant', 'a b', '--patient', PATIENT], '--tenant');
    await refused(['reports', 'patient-list', '--tenant', quiet], 'unknown reports command');
    expect(readFileSync(existing, 'utf8')).toBe('kept');

    // One report read after them: the only one in the trail, headed with the tenant's id as it has no name.
    const empty = await ops(run('--patient', PATIENT));
    expect(empty.code, empty.err).toBe(0);
    expect(JSON.parse(empty.out)).toMatchObject({
      report: { tenant_id: quiet, tenant_name: quiet },
      counts: { use: 0, attempted: 0, excluded: 0, reportable: 0 },
      rows: [],
    });
    const quietKey = await gw.mint(quiet, 'audit:read');
    const reads = await waitFor('the read in the trail', async () => {
      const found = await trail(quietKey, 'audit.report.patient_access');
      return found.length > 0 && found;
    });
    expect(reads).toHaveLength(1);
  });
});
