import { describe, expect, it } from 'vitest';
import { resolveWindow } from '@audit/shared/reports';
import { parsePatientAccessQuery } from './patient-access-query.js';

const fields = (query: Record<string, unknown>) => {
  const parsed = parsePatientAccessQuery(query);
  return parsed.ok ? [] : parsed.errors.map((e) => e.field);
};

describe('the patient access query', () => {
  it('takes a patient and settles the defaults: every access, newest first, as JSON, 100 rows a page', () => {
    expect(parsePatientAccessQuery({ patient_id: 'p-1042' })).toEqual({
      ok: true,
      query: {
        patientId: 'p-1042',
        mode: 'access',
        sort: 'timestamp',
        order: 'desc',
        format: 'json',
        limit: 100,
      },
    });
  });

  it('names every bad, unknown or repeated parameter', () => {
    expect(fields({})).toEqual(['patient_id']);
    expect(fields({ patient_id: '' })).toEqual(['patient_id']);
    expect(fields({ patient_id: 'p', mode: 'all', sort: 'name', order: 'up', format: 'xml' })).toEqual([
      'mode',
      'sort',
      'order',
      'format',
    ]);
    expect(fields({ patient_id: 'p', since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' })).toEqual(
      ['since'],
    );
    expect(fields({ patient_id: 'p', patient: 'p' })).toEqual(['patient']);
    expect(fields({ patient_id: ['p', 'q'] })).toEqual(['patient_id']);
  });

  it('pages JSON only: a file is the whole report', () => {
    expect(fields({ patient_id: 'p', format: 'csv', limit: '10', cursor: 'x' })).toEqual(['limit', 'cursor']);
    expect(fields({ patient_id: 'p', format: 'json', limit: '10', cursor: 'x' })).toEqual([]);
  });
});

describe('resolveWindow', () => {
  const now = Date.UTC(2026, 10, 30, 8, 0, 0, 0);

  it('reaches back six calendar years from now, now included', () => {
    expect(resolveWindow({}, now)).toEqual({ since: Date.UTC(2020, 10, 30, 8, 0, 0, 1), until: now + 1 });
  });

  it('reaches back six years from a given end, and takes a whole window as given', () => {
    const until = Date.UTC(2024, 1, 29);
    expect(resolveWindow({ until }, now)).toEqual({ since: Date.UTC(2018, 2, 1), until });
    expect(resolveWindow({ since: 5, until: 9 }, now)).toEqual({ since: 5, until: 9 });
    expect(resolveWindow({ since: 5 }, now)).toEqual({ since: 5, until: now + 1 });
  });
});
