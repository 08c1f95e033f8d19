import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFhirValidator, type FhirValidator } from '../support/fhir-validator.js';

// HAPI FHIR's R4 validator (infra/fhir-validator), shown to tell valid resources from invalid ones before other tests
// trust its word on what the service emits.

/** A read over the REST API, in the shape of IHE BALP's Basic Audit Log Patterns. */
const restRead = {
  resourceType: 'AuditEvent',
  type: { system: 'http://terminology.hl7.org/CodeSystem/audit-event-type', code: 'rest' },
  subtype: [{ system: 'http://hl7.org/fhir/restful-interaction', code: 'read' }],
  action: 'R',
  recorded: '2024-05-01T10:00:00Z',
  outcome: '0',
  agent: [{ requestor: true, who: { identifier: { system: 'urn:example:users', value: 'user-1' } } }],
  source: { observer: { display: 'audit-trail' } },
  entity: [{ what: { identifier: { system: 'urn:example:patients', value: 'patient-1' } } }],
};

let validator: FhirValidator;

// The first run fetches the jars from Maven Central (89 jars, 145 MB: 8 s on a fast line, minutes on a slow one);
// then the JVM starts, compiles ValidateFhir.java and loads the R4 profiles (4 to 15 s).
beforeAll(async () => {
  validator = await startFhirValidator();
}, 900_000);

afterAll(() => validator?.close());

describe('the FHIR validator', () => {
  it('finds no error in a valid AuditEvent', async () => {
    expect(await validator.errors(restRead)).toEqual([]);
  });

  it('refuses an action outside its required value set', async () => {
    const errors = await validator.errors({ ...restRead, action: 'X' });
    expect([...new Set(errors.map((e) => e.location))]).toEqual(['AuditEvent.action']);
  });

  it('refuses a purpose of use that the ActReason code system does not hold', async () => {
    const purposeOfEvent = [
      { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActReason', code: 'NOTACODE' }] },
    ];
    const errors = await validator.errors({ ...restRead, purposeOfEvent });
    expect(errors).toEqual([expect.objectContaining({ location: 'AuditEvent.purposeOfEvent[0]' })]);
    expect(errors[0]!.message).toContain('NOTACODE');
  });

  it('finds no error in a searchset Bundle of two AuditEvents', async () => {
    const bundle = {
      resourceType: 'Bundle',
      type: 'searchset',
      total: 2,
      entry: ['1', '2'].map((id) => ({
        fullUrl: `https://audit.example/fhir/AuditEvent/${id}`,
        resource: { ...restRead, id },
        search: { mode: 'match' },
      })),
    };
    expect(await validator.errors(bundle)).toEqual([]);
  });

  it('answers a line that is not JSON with a fatal issue, and goes on', async () => {
    const issues = await validator.sendLine('not json {', null);
    expect(issues).toEqual([expect.objectContaining({ severity: 'fatal' })]);
    expect(await validator.errors(restRead)).toEqual([]);
  });
});
