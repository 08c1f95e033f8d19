import { describe, expect, it } from 'vitest';
import { parseExportJobRequest, parseExportJobsQuery } from './export-job-request.js';

const NOW = Date.UTC(2026, 10, 21, 9, 30);
const DAY = 24 * 3600 * 1000;
const opts = { now: NOW, maxWindowDays: 366 };
const fieldsOf = (result: ReturnType<typeof parseExportJobRequest>) =>
  result.ok ? [] : [...new Set(result.errors.map((e) => e.field))];

describe('parseExportJobRequest', () => {
  it('takes the filters as given, and fixes until at the time of acceptance when it is not given', () => {
    const result = parseExportJobRequest(
      {
        format: 'csv',
        since: '2026-01-01T00:00:00+01:00',
        action_prefix: 'phi.',
        phi_involved: true,
        source_ip: '::ffff:10.0.0.1',
      },
      opts,
    );
    expect(result).toEqual({
      ok: true,
      job: {
        format: 'csv',
        filters: {
          action_prefix: 'phi.',
          phi_involved: true,
          source_ip: '10.0.0.1',
          since: Date.UTC(2025, 11, 31, 23),
        },
        since: Date.UTC(2025, 11, 31, 23),
        until: NOW,
      },
    });
  });

  it('keeps a given until, in the filters and as the window', () => {
    const result = parseExportJobRequest(
      { format: 'parquet', since: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:00Z' },
      opts,
    );
    expect(result.ok && result.job).toMatchObject({
      since: Date.UTC(2026, 0, 1),
      until: Date.UTC(2026, 1, 1),
      filters: { since: Date.UTC(2026, 0, 1), until: Date.UTC(2026, 1, 1) },
    });
  });

  it('accepts a window of exactly the longest length, and refuses one a millisecond longer, naming since', () => {
    const until = '2026-11-01T00:00:00.000Z';
    const at = (ms: number) => new Date(Date.parse(until) - ms).toISOString();
    expect(parseExportJobRequest({ format: 'csv', since: at(366 * DAY), until }, opts).ok).toBe(true);
    const refused = parseExportJobRequest({ format: 'csv', since: at(366 * DAY + 1), until }, opts);
    expect(refused).toEqual({
      ok: false,
      errors: [{ field: 'since', message: 'must be at most 366 days before until (now when not given)' }],
    });
    const short = parseExportJobRequest(
      { format: 'csv', since: at(2 * DAY), until },
      { ...opts, maxWindowDays: 1 },
    );
    expect(fieldsOf(short)).toEqual(['since']);
    // Without until, the window ends now.
    const old = parseExportJobRequest(
      { format: 'csv', since: new Date(NOW - 367 * DAY).toISOString() },
      opts,
    );
    expect(fieldsOf(old)).toEqual(['since']);
  });

  it('refuses an empty or reversed window, also against a defaulted until', () => {
    expect(
      fieldsOf(
        parseExportJobRequest(
          { format: 'csv', since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' },
          opts,
        ),
      ),
    ).toEqual(['since']);
    expect(
      fieldsOf(parseExportJobRequest({ format: 'csv', since: new Date(NOW).toISOString() }, opts)),
    ).toEqual(['since']);
  });

  it.each([
    [undefined, ['since', 'format']],
    [{}, ['since', 'format']],
    [{ format: 'csv' }, ['since']],
    [{ since: '2026-01-01T00:00:00Z' }, ['format']],
  ])('names what is missing in %j as required', (body, fields) => {
    const result = parseExportJobRequest(body, opts);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.map((e) => e.field).sort()).toEqual([...fields].sort());
      expect(result.errors.every((e) => e.message === 'is required')).toBe(true);
    }
  });

  const valid = { format: 'ndjson', since: '2026-01-01T00:00:00Z' };
  it.each([
    [{ limit: 10 }, 'limit'],
    [{ cursor: 'abc' }, 'cursor'],
    [{ formt: 'csv' }, 'formt'],
    [{ format: 'CSV' }, 'format'],
    [{ format: 'json' }, 'format'],
    [{ format: ['csv'] }, 'format'],
    [{ since: 1767225600000 }, 'since'],
    [{ since: '2026-01-01' }, 'since'],
    [{ since: '1969-12-31T23:59:59Z' }, 'since'],
    [{ until: '2026-13-01T00:00:00Z' }, 'until'],
    [{ phi_involved: 'true' }, 'phi_involved'],
    [{ success: 1 }, 'success'],
    [{ action: "phi.read' OR 1=1 --" }, 'action'],
    [{ action: 'x'.repeat(101) }, 'action'],
    [{ action_prefix: 'PHI.' }, 'action_prefix'],
    [{ resource_id: '' }, 'resource_id'],
    [{ resource_id: 'r'.repeat(257) }, 'resource_id'],
    [{ user_id: '\ud800' }, 'user_id'],
    [{ user_id: 'a\u0000b' }, 'user_id'],
    [{ source_ip: '10.0.0.1; DROP TABLE export_jobs' }, 'source_ip'],
    [{ source_ip: '<script>' }, 'source_ip'],
    [{ resource_type: { $ne: 1 } }, 'resource_type'],
  ])('refuses %j, naming %s', (change, field) => {
    expect(fieldsOf(parseExportJobRequest({ ...valid, ...change }, opts))).toEqual([field]);
  });

  it.each([null, [], 'csv', 42, true])('refuses the body %j, which is no object', (body) => {
    expect(parseExportJobRequest(body, opts).ok).toBe(false);
  });

  it('takes hostile text where any text is allowed, as the value to match', () => {
    const result = parseExportJobRequest(
      { ...valid, resource_id: "'); DROP TABLE export_jobs; --", user_id: '"\\<>{}%00' },
      opts,
    );
    expect(result.ok && result.job.filters).toMatchObject({
      resource_id: "'); DROP TABLE export_jobs; --",
      user_id: '"\\<>{}%00',
    });
  });
});

describe('parseExportJobsQuery', () => {
  it.each([
    [{}, { ok: true, limit: 20 }],
    [{ limit: '1' }, { ok: true, limit: 1 }],
    [
      { limit: '100', cursor: 'abc' },
      { ok: true, limit: 100, cursor: 'abc' },
    ],
  ])('reads %j', (query, expected) => {
    expect(parseExportJobsQuery(query)).toEqual(expected);
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: '1e2' }, 'limit'],
    [{ limit: ['1', '2'] }, 'limit'],
    [{ cursor: '' }, 'cursor'],
    [{ status: 'queued' }, 'status'],
    [{ action: 'phi.read' }, 'action'],
  ])('refuses %j, naming %s', (query, field) => {
    const result = parseExportJobsQuery(query);
    expect(result.ok ? [] : result.errors.map((e) => e.field)).toEqual([field]);
  });
});
