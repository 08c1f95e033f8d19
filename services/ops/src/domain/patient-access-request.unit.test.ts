import { describe, expect, it } from 'vitest';
import { parsePatientAccessRequest } from './patient-access-request.js';

describe('parsePatientAccessRequest', () => {
  it("gives the API's defaults and reads the times", () => {
    expect(
      parsePatientAccessRequest({ tenant: 'acme', patient: 'p-1042', since: '2026-01-01T00:00:00+01:00' }),
    ).toEqual({
      ok: true,
      request: {
        tenant: 'acme',
        patient: 'p-1042',
        since: Date.UTC(2025, 11, 31, 23),
        mode: 'access',
        sort: 'timestamp',
        order: 'desc',
        format: 'json',
      },
    });
  });

  it('names every wrong option', () => {
    const parsed = parsePatientAccessRequest({
      tenant: 'acme',
      since: 'yesterday',
      mode: 'all',
      sort: 'name',
      order: 'up',
      format: 'xml',
    });
    expect(parsed.ok ? [] : parsed.errors.map((e) => e.slice(0, e.indexOf(':')))).toEqual([
      '--patient',
      '--since',
      '--mode',
      '--sort',
      '--order',
      '--format',
    ]);
  });

  it('refuses a window that ends before it begins', () => {
    expect(
      parsePatientAccessRequest({
        tenant: 'acme',
        patient: 'p-1',
        since: '2026-02-01T00:00:00Z',
        until: '2026-01-01T00:00:00Z',
      }),
    ).toEqual({ ok: false, errors: ['--since: must be earlier than until'] });
  });

  it('sends a PDF to a file only', () => {
    expect(parsePatientAccessRequest({ tenant: 'acme', patient: 'p-1', format: 'pdf' })).toEqual({
      ok: false,
      errors: ['--out: is required with --format pdf: a PDF is not text for a terminal'],
    });
    expect(
      parsePatientAccessRequest({ tenant: 'acme', patient: 'p-1', format: 'pdf', out: 'r.pdf' }).ok,
    ).toBe(true);
  });
});
