import { formatTimestamp, PURPOSE_OF_USE } from '@audit/shared/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuditEventView } from '../contract/audit-event/event-view.js';
import { sampleHeading, sampleView } from '../test-support/sample-view.js';
import {
  CHECKPOINT_EXTENSION,
  FHIR_JSON,
  fhirAuditEvent,
  fhirBundle,
  fhirReportAuditEvent,
  type FhirAuditEvent,
} from './fhir-audit-event.js';
import type { PatientAccessRow } from './patient-access-report.js';

const DCM = 'http://dicom.nema.org/resources/ontology/DCM';
const REST = {
  system: 'http://terminology.hl7.org/CodeSystem/audit-event-type',
  code: 'rest',
  display: 'RESTful Operation',
};
const IRCP = {
  system: 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType',
  code: 'IRCP',
  display: 'information recipient',
};
const AUT = {
  system: 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType',
  code: 'AUT',
  display: 'author (originator)',
};
const dcm = (code: string, display: string) => ({ system: DCM, code, display });

/** R4's instant (datatypes.html#instant): a full time with seconds and a zone. */
const INSTANT =
  /^([0-9]([0-9]([0-9][1-9]|[1-9]0)|[1-9]00)|[1-9]000)-(0[1-9]|1[0-2])-(0[1-9]|[1-2][0-9]|3[0-1])T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?(Z|(\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00))$/;
/** R4's id (datatypes.html#id). */
const ID = /^[A-Za-z0-9\-.]{1,64}$/;

const view = sampleView();

const heading = sampleHeading();

const row: PatientAccessRow = {
  event_id: '1c8f2b63-6d1f-4b9f-8a4c-3e7d2f5b8ca1',
  timestamp: '2026-11-21T10:00:00.000+00:00',
  user_id: 'u-2',
  user_role: 'clerk',
  action: 'phi.disclose',
  resource_type: 'patient',
  resource_id: 'p-1042',
  fields_accessed: ['dob'],
  phi_involved: true,
  purpose_of_use: 'HRESCH',
  purpose_display: 'healthcare research',
  justification: '',
  disclosure: true,
  recipient: 'Acme Research, 1 Main St',
  success: true,
  source_ip: '10.0.0.1',
  accounting_status: 'reportable',
  exclusion: null,
  checkpoint: { tree_size: 1234, signed_at: '2026-11-21T10:05:00.000+00:00' },
};

const typeOf = (agent: FhirAuditEvent['agent'][number]) => agent.type?.coding;
const userOf = (fhir: FhirAuditEvent) => fhir.agent.find((a) => a.requestor)!;
const clientOf = (fhir: FhirAuditEvent) => fhir.agent.find((a) => a.network || a.who?.display === 'EHR/2.1');
const resourceOf = (fhir: FhirAuditEvent) => fhir.entity.find((e) => e.type.code === '2')!;

/**
 * Every place in a value where FHIR forbids what is there (json.html: no empty strings, arrays or objects, no
 * nulls), and blank strings besides, which HAPI warns of: the paths, empty when there is none.
 */
function forbiddenIn(value: unknown, path = '$'): string[] {
  if (value === null || value === undefined) return [path];
  if (typeof value === 'string') return value.trim() === '' ? [path] : [];
  if (Array.isArray(value)) {
    return value.length === 0 ? [path] : value.flatMap((v, i) => forbiddenIn(v, `${path}[${i}]`));
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length === 0 ? [path] : entries.flatMap(([k, v]) => forbiddenIn(v, `${path}.${k}`));
  }
  return [];
}

describe('forbiddenIn, the check the other tests lean on', () => {
  it('finds every empty string, blank string, empty array, empty object, null and undefined, deep down', () => {
    const found = forbiddenIn({
      a: '',
      b: [],
      c: {},
      d: null,
      e: undefined,
      f: [{ g: ' \t' }],
      h: 'x',
      i: 0,
    });
    expect(found).toEqual(['$.a', '$.b', '$.c', '$.d', '$.e', '$.f[0].g']);
  });
});

describe('the AuditEvent of a patient REST interaction', () => {
  it.each([
    // BALP PatientRead: type rest, subtype read, action R.
    ['phi.read', 'read', 'R'],
    ['chart.view', 'read', 'R'],
    ['patient.get', 'read', 'R'],
    // BALP PatientCreate: type rest, subtype create, action C.
    ['phi.create', 'create', 'C'],
    ['allergy.add', 'create', 'C'],
    // BALP PatientUpdate: type rest, subtype update, action U.
    ['phi.update', 'update', 'U'],
    ['phi.write', 'update', 'U'],
    ['note.edit', 'update', 'U'],
    ['phi.modify', 'update', 'U'],
    // BALP PatientDelete: type rest, subtype delete, action D.
    ['phi.delete', 'delete', 'D'],
    ['allergy.remove', 'delete', 'D'],
    // BALP PatientQuery: type rest, subtype search-type, action E.
    ['patient.query', 'search-type', 'E'],
    ['patient.search', 'search-type', 'E'],
    ['phi.bulk.list', 'search-type', 'E'],
  ])('%s: BALP type rest, subtype %s, action %s', (action, subtype, code) => {
    const fhir = fhirAuditEvent({ ...view, action });
    expect(fhir.type).toEqual(REST);
    expect(fhir.subtype).toEqual([
      { system: 'http://hl7.org/fhir/restful-interaction', code: subtype, display: subtype },
    ]);
    expect(fhir.action).toBe(code);
  });

  it.each([
    // BALP PatientRead and PatientQuery: the user agent is the information recipient.
    ['phi.read', IRCP, dcm('110152', 'Destination Role ID')],
    ['patient.search', IRCP, dcm('110153', 'Source Role ID')],
    // BALP PatientCreate and PatientUpdate: the user from DataSources (AUT), the client the Source Role ID.
    ['phi.create', AUT, dcm('110153', 'Source Role ID')],
    ['phi.update', AUT, dcm('110153', 'Source Role ID')],
    // BALP PatientDelete: the user AUT, the client an Application.
    ['phi.delete', AUT, dcm('110150', 'Application')],
  ])('%s: BALP types the user %j and the client %j', (action, user, client) => {
    const fhir = fhirAuditEvent({ ...view, action });
    expect(typeOf(userOf(fhir))).toEqual([user]);
    expect(typeOf(clientOf(fhir)!)).toEqual([client]);
  });

  it.each(['phi.export', 'phi.print', 'read.export', 'phi.reads', 'phi.constructor', 'phi.__proto__'])(
    '%s, a verb no REST interaction names: DICOM 110110 Patient Record, action E, no subtype, untyped user',
    (action) => {
      const fhir = fhirAuditEvent({ ...view, action });
      expect(fhir.type).toEqual(dcm('110110', 'Patient Record'));
      expect(fhir.action).toBe('E');
      expect(fhir).not.toHaveProperty('subtype');
      expect(userOf(fhir)).not.toHaveProperty('type');
      expect(typeOf(clientOf(fhir)!)).toEqual([dcm('110150', 'Application')]);
    },
  );

  it('BALP Read: the data entity is a System Object in the Domain Resource role; a search names a Query', () => {
    expect(resourceOf(fhirAuditEvent(view)).role).toEqual({
      system: 'http://terminology.hl7.org/CodeSystem/object-role',
      code: '4',
      display: 'Domain Resource',
    });
    expect(resourceOf(fhirAuditEvent({ ...view, action: 'patient.search' })).role).toEqual({
      system: 'http://terminology.hl7.org/CodeSystem/object-role',
      code: '24',
      display: 'Query',
    });
  });
});

describe('the AuditEvent of a disclosure', () => {
  // BALP PrivacyDisclosure.Source: type DCM 110106 Export, subtype iso-21089-lifecycle#disclose, action R.
  it('follows BALP PrivacyDisclosure.Source: Export, the disclose subtype, action R, whatever the verb', () => {
    for (const action of ['phi.disclose', 'phi.read', 'phi.export']) {
      const fhir = fhirAuditEvent({ ...view, action, disclosure: true, recipient: 'Acme Research' });
      expect(fhir.type).toEqual(dcm('110106', 'Export'));
      expect(fhir.subtype).toEqual([
        {
          system: 'http://terminology.hl7.org/CodeSystem/iso-21089-lifecycle',
          code: 'disclose',
          display: 'Disclose Record Lifecycle Event',
        },
      ]);
      expect(fhir.action).toBe('R');
    }
  });

  it('BALP PrivacyDisclosure: the user who disclosed is the source agent, the recipient the destination', () => {
    const fhir = fhirAuditEvent({ ...view, disclosure: true, recipient: 'Acme Research' });
    expect(userOf(fhir)).toMatchObject({
      type: { coding: [dcm('110153', 'Source Role ID')] },
      who: { identifier: { value: 'u-1' } },
      requestor: true,
    });
    expect(fhir.agent.at(-1)).toEqual({
      type: { coding: [dcm('110152', 'Destination Role ID'), IRCP] },
      who: { display: 'Acme Research' },
      requestor: false,
    });
    // BALP PrivacyDisclosure "may have user, app ... agent(s)": the client the user worked from is an app.
    expect(typeOf(clientOf(fhir)!)).toEqual([dcm('110150', 'Application')]);
  });

  it('has no recipient agent when the producer named no recipient', () => {
    const fhir = fhirAuditEvent({ ...view, disclosure: true, recipient: '' });
    expect(fhir.agent).toHaveLength(2);
    expect(fhir.agent.some((a) => a.type?.coding?.some((c) => c.code === '110152'))).toBe(false);
  });

  it('has no recipient agent on a use, whatever recipient says', () => {
    expect(fhirAuditEvent({ ...view, recipient: 'stray' }).agent).toHaveLength(2);
  });
});

describe('what every pattern shares', () => {
  it('records the event time as the instant and the event id as the id', () => {
    const fhir = fhirAuditEvent(view);
    expect(fhir.resourceType).toBe('AuditEvent');
    expect(fhir.id).toBe(view.event_id);
    expect(fhir.id).toMatch(ID);
    expect(fhir.recorded).toBe(view.timestamp);
    expect(fhir.recorded).toMatch(INSTANT);
  });

  it('outcome 0 (Success) on success, 4 (Minor failure) on any failure', () => {
    expect(fhirAuditEvent(view).outcome).toBe('0');
    expect(fhirAuditEvent({ ...view, success: false }).outcome).toBe('4');
    expect(fhirAuditEvent({ ...view, success: false, disclosure: true }).outcome).toBe('4');
  });

  it('purposeOfEvent: the ActReason coding with its display, when a purpose of use is set', () => {
    const actReason = 'http://terminology.hl7.org/CodeSystem/v3-ActReason';
    expect(fhirAuditEvent(view).purposeOfEvent).toEqual([
      { coding: [{ system: actReason, code: 'TREAT', display: 'treatment' }] },
    ]);
    expect(fhirAuditEvent({ ...view, purpose_of_use: 'BTG' }).purposeOfEvent).toEqual([
      { coding: [{ system: actReason, code: 'BTG', display: 'break the glass' }] },
    ]);
    expect(fhirAuditEvent({ ...view, purpose_of_use: '' })).not.toHaveProperty('purposeOfEvent');
  });

  it('BALP agent[user]: requestor, known by the tenant’s user id, role and justification as text, no network', () => {
    expect(userOf(fhirAuditEvent(view))).toEqual({
      type: { coding: [IRCP] },
      role: [{ text: 'nurse' }],
      who: { identifier: { system: 'urn:audit-trail:tenant:acme:user', value: 'u-1' } },
      requestor: true,
      purposeOfUse: [{ text: 'chart review' }],
    });
    expect(userOf(fhirAuditEvent({ ...view, user_role: '', justification: '' }))).toEqual({
      type: { coding: [IRCP] },
      who: { identifier: { system: 'urn:audit-trail:tenant:acme:user', value: 'u-1' } },
      requestor: true,
    });
  });

  it('BALP agent[client]: the User-Agent as who, the source IP as an IP address (type 2), when either is known', () => {
    const client = (event: Partial<AuditEventView>) => fhirAuditEvent({ ...view, ...event }).agent.slice(1);
    expect(client({})).toEqual([
      {
        type: { coding: [dcm('110152', 'Destination Role ID')] },
        who: { display: 'EHR/2.1' },
        requestor: false,
        network: { address: '203.0.113.7', type: '2' },
      },
    ]);
    expect(client({ user_agent: '' })).toEqual([
      {
        type: { coding: [dcm('110152', 'Destination Role ID')] },
        requestor: false,
        network: { address: '203.0.113.7', type: '2' },
      },
    ]);
    expect(client({ source_ip: '2001:db8::1', user_agent: '' })[0]!.network).toEqual({
      address: '2001:db8::1',
      type: '2',
    });
    expect(client({ source_ip: '', user_agent: '' })).toEqual([]);
  });

  it('the source: this service observing, the tenant as the site, an Application Server', () => {
    expect(fhirAuditEvent(view).source).toEqual({
      site: 'acme',
      observer: { display: 'Audit Trail Service' },
      type: [
        {
          system: 'http://terminology.hl7.org/CodeSystem/security-source-type',
          code: '4',
          display: 'Application Server',
        },
      ],
    });
  });

  it('BALP entity[patient]: a Person in the Patient role, a Patient known by the tenant’s id, when named', () => {
    expect(fhirAuditEvent(view).entity[0]).toEqual({
      what: {
        type: 'Patient',
        identifier: { system: 'urn:audit-trail:tenant:acme:patient', value: 'p-1042' },
      },
      type: {
        system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type',
        code: '1',
        display: 'Person',
      },
      role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '1', display: 'Patient' },
    });
    const without = fhirAuditEvent({ ...view, patient_id: '' });
    expect(without.entity).toHaveLength(1);
    expect(without.entity[0]!.type.code).toBe('2');
  });

  it('BALP entity[data]: a System Object named by its type and id, a detail for each field read', () => {
    expect(resourceOf(fhirAuditEvent(view))).toEqual({
      what: {
        identifier: { system: 'urn:audit-trail:tenant:acme:resource-type:lab%20result', value: 'r-7' },
      },
      type: {
        system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type',
        code: '2',
        display: 'System Object',
      },
      role: {
        system: 'http://terminology.hl7.org/CodeSystem/object-role',
        code: '4',
        display: 'Domain Resource',
      },
      detail: [
        { type: 'field', valueString: 'dob' },
        { type: 'field', valueString: 'ssn' },
      ],
    });
    const bare = resourceOf(
      fhirAuditEvent({ ...view, resource_type: 'a:b/c', resource_id: '', fields_accessed: '[]' }),
    );
    expect(bare.what).toEqual({
      identifier: { system: 'urn:audit-trail:tenant:acme:resource-type:a%3Ab%2Fc' },
    });
    expect(bare).not.toHaveProperty('detail');
  });

  it('leaves out text that is only whitespace, and keeps other text as it was', () => {
    const fhir = fhirAuditEvent({
      ...view,
      user_role: ' ',
      justification: '\t',
      patient_id: '  ',
      resource_id: ' ',
      user_agent: ' ',
      fields_accessed: '[" ","  dob "]',
      user_id: ' u-1 ',
    });
    expect(forbiddenIn(fhir)).toEqual([]);
    expect(userOf(fhir).who?.identifier?.value).toBe(' u-1 ');
    expect(resourceOf(fhir).detail).toEqual([{ type: 'field', valueString: '  dob ' }]);
    expect(fhir.entity).toHaveLength(1);
  });

  it('has no meta.profile: it is validated against base R4, not BALP', () => {
    expect(fhirAuditEvent(view)).not.toHaveProperty('meta');
  });
});

describe('a report row', () => {
  it('takes the tenant and the patient from the heading', () => {
    const fhir = fhirReportAuditEvent(heading, {
      ...row,
      disclosure: false,
      recipient: '',
      action: 'phi.read',
    });
    expect(fhir.source.site).toBe('acme');
    expect(fhir.entity[0]!.what?.identifier).toEqual({
      system: 'urn:audit-trail:tenant:acme:patient',
      value: 'p-1042',
    });
    expect(fhir.purposeOfEvent?.[0]?.coding?.[0]?.display).toBe('healthcare research');
  });

  it('carries its checkpoint in our extension, and none while no checkpoint covers it', () => {
    expect(fhirReportAuditEvent(heading, row).extension).toEqual([
      {
        url: CHECKPOINT_EXTENSION,
        extension: [
          { url: 'treeSize', valueDecimal: 1234 },
          { url: 'signedAt', valueInstant: '2026-11-21T10:05:00.000+00:00' },
        ],
      },
    ]);
    expect(fhirReportAuditEvent(heading, { ...row, checkpoint: null })).not.toHaveProperty('extension');
  });

  it('a disclosure row follows BALP PrivacyDisclosure.Source like an event does', () => {
    const fhir = fhirReportAuditEvent(heading, row);
    expect(fhir.type).toEqual(dcm('110106', 'Export'));
    expect(fhir.agent.at(-1)?.who).toEqual({ display: 'Acme Research, 1 Main St' });
  });
});

describe('the report as a Bundle', () => {
  it('is a searchset at the report’s time, every row a match with its urn:uuid, in order', () => {
    const second = { ...row, event_id: '2d9a3c74-7e2a-4caf-9b5d-4f8e3a6c9db2', checkpoint: null };
    const bundle = fhirBundle({ heading, rows: [row, second] });
    expect(bundle).toMatchObject({
      resourceType: 'Bundle',
      type: 'searchset',
      timestamp: heading.generated_at,
      total: 2,
    });
    expect(bundle.entry).toEqual([
      {
        fullUrl: `urn:uuid:${row.event_id}`,
        resource: fhirReportAuditEvent(heading, row),
        search: { mode: 'match' },
      },
      {
        fullUrl: `urn:uuid:${second.event_id}`,
        resource: fhirReportAuditEvent(heading, second),
        search: { mode: 'match' },
      },
    ]);
    expect(forbiddenIn(bundle)).toEqual([]);
  });

  it('links to itself as the request that asked for it, when there was one', () => {
    const self = '/api/v2/public/audit/reports/patient-access?patient_id=pt-1&format=fhir';
    expect(fhirBundle({ heading, rows: [row] }, self).link).toEqual([{ relation: 'self', url: self }]);
    expect(fhirBundle({ heading, rows: [row] })).not.toHaveProperty('link');
  });

  it('has no entry at all when the report has no row', () => {
    const bundle = fhirBundle({ heading, rows: [] });
    expect(bundle).toEqual({
      resourceType: 'Bundle',
      type: 'searchset',
      timestamp: heading.generated_at,
      total: 0,
    });
  });
});

it('names FHIR’s JSON media type', () => {
  expect(FHIR_JSON).toBe('application/fhir+json');
});

describe('any event', () => {
  const text = fc.oneof(
    fc.constantFrom('', ' ', '\t\n', 'Zoë', '<b>x</b>', 'a:b c/d'),
    fc.string({ unit: 'binary', maxLength: 12 }),
  );
  const slug = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);
  const verbs = [
    'read',
    'view',
    'get',
    'create',
    'add',
    'update',
    'edit',
    'delete',
    'search',
    'list',
    'export',
  ];
  const events = fc.record({
    event_id: fc.uuid(),
    timestamp: fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) }).map(formatTimestamp),
    tenant_id: fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/),
    action: fc.tuple(slug, fc.oneof(fc.constantFrom(...verbs), slug)).map((parts) => parts.join('.')),
    user_id: text,
    user_role: text,
    resource_type: text,
    resource_id: text,
    fields_accessed: fc.array(text, { maxLength: 4 }).map((fields) => JSON.stringify(fields)),
    phi_involved: fc.boolean(),
    source_ip: fc.oneof(fc.constant(''), fc.ipV4(), fc.ipV6()),
    user_agent: text,
    justification: text,
    success: fc.boolean(),
    details: fc.constant('{}'),
    patient_id: text,
    purpose_of_use: fc.constantFrom('', ...PURPOSE_OF_USE.keys()),
    recipient: text,
    disclosure: fc.boolean(),
    accounting_exclusion: fc.constant(''),
  });

  /** What FHIR would refuse in an AuditEvent, and what R4's id and instant rules say of it. */
  function checkAuditEvent(fhir: FhirAuditEvent) {
    expect(forbiddenIn(fhir)).toEqual([]);
    // A value left undefined would vanish from the JSON: what is sent must be what was built.
    expect(JSON.parse(JSON.stringify(fhir))).toEqual(fhir);
    expect(fhir.id).toMatch(ID);
    expect(fhir.recorded).toMatch(INSTANT);
    expect(fhir.agent.filter((a) => a.requestor)).toHaveLength(1);
  }

  it('maps to an AuditEvent with no "", [], {} or null anywhere, a valid id and instant, one requestor', () => {
    fc.assert(
      fc.property(events, (event) => checkAuditEvent(fhirAuditEvent(event))),
      { numRuns: 2000 },
    );
  });

  it('maps, as report rows, to a Bundle with none of them either', () => {
    const checkpoint = fc.option(
      fc.record({
        tree_size: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        signed_at: fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) }).map(formatTimestamp),
      }),
    );
    const rows = fc.array(fc.tuple(events, checkpoint), { maxLength: 5 }).map((pairs) =>
      pairs.map(([event, covering]): PatientAccessRow => ({
        ...event,
        fields_accessed: JSON.parse(event.fields_accessed) as string[],
        purpose_display: '',
        accounting_status: 'use',
        exclusion: null,
        checkpoint: covering,
      })),
    );
    fc.assert(
      fc.property(rows, text, (reportRows, patientId) => {
        const bundle = fhirBundle({ heading: { ...heading, patient_id: patientId }, rows: reportRows });
        expect(forbiddenIn(bundle)).toEqual([]);
        expect(bundle.total).toBe(reportRows.length);
        for (const entry of bundle.entry ?? []) checkAuditEvent(entry.resource);
      }),
      { numRuns: 500 },
    );
  });
});
